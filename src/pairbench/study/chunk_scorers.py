"""Chunk scorers: one model, loaded once per scoring job, scoring the suite chunk by chunk.

Each kind of :data:`pairbench.study.kinds.KINDS` names its chunk scorer. A chunk scorer is built
as ``Scorer(model_dir, settings, device, key)`` (which loads the model and times it) and called on
each chunk of pairs: ``scorer(s1, s2) -> (raw, score, normalisation)``. It keeps

- ``encoded``: what it ran through the model (distinct sentences for kinds that encode each
  sentence alone, pairs for kinds that read a pair together; the shard's ``sentences_encoded``);
- ``loading_seconds``: seconds spent loading the model, ``None`` when the model is loaded inside
  each call (then the scoring time includes loading, which the shard says);
- ``streamed``: False for a scorer that must see all the pairs of its job in one call;
- ``metadata()``: extra shard metadata of the kind (e.g. a sparse model's active dimensions); on
  CUDA also the job's peak GPU memory ``peak_gpu_mb`` and the batches split after running out of
  it, ``oom_splits`` (``plan``: :class:`pairbench.study.device_batches.DevicePlan`).

Before its first chunk a scorer whose form needs it is calibrated on sentences of the whole
suite (``calibrates``, ``calibrate``: int8 / uint8 ranges, :mod:`pairbench.study.similarity`), and
each chunk is checked for pairs whose edit lies beyond the model's maximum length
(``unseen_edits``, :mod:`pairbench.study.truncation`).
"""

from __future__ import annotations

import importlib
import time

import numpy as np

from pairbench.core.errors import ConfigError
from pairbench.study import device_batches
from pairbench.study.forms import exported_metadata, is_exported
from pairbench.study.model_folder import check_model_folder
from pairbench.study.scoring import (
    EmbeddingStore,
    encode_sentences,
    load_bi_encoder,
    load_cross_encoder,
    score_bi_chunk,
    score_cross,
    settings_plan,
)
from pairbench.study.scoring_causal import load_causal_reranker
from pairbench.study.similarity import similarity_for
from pairbench.study.truncation import unseen_edit_rows


class ChunkScorer:
    """Base of the chunk scorers: times ``load`` and counts what is encoded."""

    streamed = True
    loads_in_call = False
    calibrates = False  # whether calibrate() must see the suite's calibration sentences first
    pair_input = False  # True: the two sentences are read together (truncated together)
    similarity = None  # a deployed form's similarity of embeddings (pairbench.study.similarity), bi only

    def __init__(self, model_dir, settings, device: str, key: str = "?"):
        self.model_dir, self.settings, self.device, self.key = model_dir, settings, device, key
        self.encoded = 0
        self.plan = settings_plan(settings, key)
        device_batches.reset_peak(device)
        start = time.perf_counter()
        self.model = self.load()
        self.loading_seconds: float | None = None if self.loads_in_call else time.perf_counter() - start

    def load(self):  # pragma: no cover - every scorer defines it
        raise NotImplementedError

    def __call__(self, s1: list[str], s2: list[str]) -> tuple[np.ndarray, np.ndarray, str]:  # pragma: no cover
        raise NotImplementedError

    def metadata(self) -> dict:
        return self.device_metadata()

    def device_metadata(self) -> dict:
        """``peak_gpu_mb`` and ``oom_splits`` on CUDA, nothing elsewhere."""
        return device_batches.device_metadata(self.device, self.plan)

    def close(self) -> None:
        pass

    def calibrate(self, texts: list[str], how: str) -> None:  # pragma: no cover - only forms that calibrate
        raise NotImplementedError

    @property
    def max_length(self) -> int | None:
        """The model's maximum input length in tokens (None: not known without loading it)."""
        return getattr(self.model, "max_seq_length", None)

    def unseen_edits(self, s1: list[str], s2: list[str]) -> list[int]:
        """Rows of the chunk whose sentences differ only beyond the model's maximum length."""
        tokenizer = getattr(self.model, "tokenizer", None)
        if tokenizer is None or not self.max_length or getattr(self.settings, "causal_lm", None):
            return []  # a causal-LM template is never truncated: an over-long pair stops the job
        prompt = getattr(self.settings, "prompt", None) or ""
        return unseen_edit_rows(tokenizer, self.max_length, s1, s2, pair=self.pair_input, prefix=prompt)


class BiEncoderScorer(ChunkScorer):
    """Kind ``bi``: cosine of SentenceTransformer embeddings; each distinct sentence encoded once per job."""

    def load(self):
        self.store = EmbeddingStore()
        self.similarity = similarity_for(self.settings, self.key)
        model = load_bi_encoder(self.model_dir, self.settings, self.device, key=self.key)
        if self.settings.truncate_dim:
            # The width its files did not say (pairbench.study.model_folder), from one sentence.
            width = encode_sentences(model, ["width"], 1, self.settings.prompt, self.plan).shape[1]
            if width < self.settings.truncate_dim:
                raise ConfigError(
                    f"models.{self.key}.truncate_dim: {self.settings.truncate_dim} is above the model's {width} "
                    f"embedding dimensions; set at most {width} or remove truncate_dim"
                )
        return model

    @property
    def calibrates(self) -> bool:
        return self.similarity.calibrates

    def calibrate(self, texts: list[str], how: str) -> None:
        """int8 / uint8 ranges from the embeddings of ``texts`` (kept in the store for the chunks)."""
        new = self.store.missing(texts)
        if new:
            encoded = encode_sentences(self.model, new, self.settings.batch_size, self.settings.prompt, self.plan)
            self.store.put(new, encoded)
            self.encoded += len(new)
        self.similarity.calibrate(self.store.get(texts), how)

    def __call__(self, s1, s2):
        before = len(self.store)
        cos = score_bi_chunk(self.model, self.store, s1, s2, self.settings, self.similarity, self.plan)
        self.encoded += len(self.store) - before
        return cos, cos.copy(), self.similarity.description

    def metadata(self) -> dict:
        # an exported backend's runtime, export and int8 settings
        return {**exported_metadata(self.model), **self.device_metadata()}

    def close(self) -> None:
        self.store.close()


class CrossEncoderScorer(ChunkScorer):
    """Kind ``cross``: a CrossEncoder's logit (``raw``) and normalised score.

    A causal-LM reranker with ``causal_lm:`` set is built by
    :func:`pairbench.study.scoring_causal.load_causal_reranker` (its template, yes/no tokens).
    """

    pair_input = True

    def load(self):
        # A causal LM without `causal_lm:` would be read through default tokens and no template.
        # An export (backend onnx / openvino) holds no weights: rule export_model checked its source.
        if not is_exported(self.settings):
            check_model_folder(
                self.model_dir, "cross", key=f"models.{self.key}", settings={"causal_lm": self.settings.causal_lm}
            )
        if self.settings.causal_lm:
            model = load_causal_reranker(self.model_dir, self.settings, self.device, key=self.key)
        else:
            model = load_cross_encoder(self.model_dir, self.settings, self.device, key=self.key)
        if model.num_labels == 1 and self.settings.normalise == "softmax":
            raise ConfigError(
                f"models.{self.key}.normalise: softmax over this cross-encoder's one logit is 1.0 for every "
                "pair; set `normalise: auto` (its saved activation), sigmoid or identity"
            )
        return model

    def __call__(self, s1, s2):
        self.encoded += len(s1) * (2 if self.settings.both_orders else 1)
        return score_cross(self.model, s1, s2, self.settings, key=self.key, plan=self.plan)

    def metadata(self) -> dict:
        return {**exported_metadata(self.model), **self.device_metadata()}


class CallScorer(ChunkScorer):
    """A kind whose scoring function loads its model inside each call, given all the pairs of a job."""

    streamed = False
    loads_in_call = True  # its seconds include loading; the shard says so
    function = ""  # "module:function" with signature (model_dir, settings, s1, s2, device, key)

    def load(self):
        return None

    def __call__(self, s1, s2):
        self.encoded += len(s1) * (2 if self.settings.both_orders else 1)
        module, name = self.function.split(":")
        score = getattr(importlib.import_module(module), name)
        return score(self.model_dir, self.settings, s1, s2, self.device, self.key)


class CeliScorer(CallScorer):
    """Kind ``celi``: a trained CELI reranker (sentence1 the query, sentence2 the document)."""

    function = "pairbench.celi.scoring:score_pairs"
