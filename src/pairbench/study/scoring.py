"""Scoring sentence pairs with bi-encoders (cosine) and cross-encoders (raw output + normalised score).

Speed comes from three choices that sentence-transformers' own ``encode``/``predict`` do not make:
batches are sorted by *token* length (not characters), so padding waste is smallest; on a CPU
with N threads, N batches run side by side on one thread each (see :func:`_forward_batches`);
and each distinct sentence of a suite is encoded once. Everything runs under
``torch.inference_mode``. ``bench/bench_scoring.py`` measures the result against
sentence-transformers (``docs/results.md``, which also records what was tried and not kept:
``torch.compile`` and batches grown to a token budget, neither faster on CPU). On an accelerator
(CUDA) the batches go through :mod:`pairbench.study.device_batches` instead: a token budget per
batch (``batch_tokens``), tokenization in worker threads ahead of the forward, pinned memory and
batches split in two when they run out of GPU memory (``docs/gpu.md``).

Memory does not grow with the suite: the scoring job reads it in chunks of pairs
(``scoring.chunk_pairs``) and a bi-encoder keeps each distinct sentence's embedding in an
:class:`EmbeddingStore`, a file on disk read back with ``pread`` (page cache, not the job's
memory), indexed by a 16-byte digest of the sentence. A sentence met again in a later chunk is
read back, not encoded again; only the index (about 100 bytes per distinct sentence) stays in
memory.

Normalisation of cross-encoder outputs (``normalise`` in a model's config):

- ``auto`` (default): the activation the model saved with itself (sentence-transformers stores it in
  ``config.json``; Sigmoid for one-logit models unless the model says otherwise). Multi-label
  models (e.g. NLI) use a softmax over labels and report the probability of ``label``.
- ``sigmoid``, ``identity``, ``softmax``: override.

``raw`` is always the model's output before any activation: the logit (of ``label`` for
multi-label models).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import tempfile
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import torch

from pairbench.core import runtime
from pairbench.core.errors import ConfigError, PairbenchError
from pairbench.study import device_batches, forms
from pairbench.study.device_batches import DevicePlan
from pairbench.study.device_batches import queued_batches as _queued_batches
from pairbench.study.kinds import ScoringSettings  # noqa: F401 (the settings every scorer takes)
from pairbench.study.model_folder import one_logit_label
from pairbench.study.onnx_runtime import load_exported
from pairbench.study.similarity import cosine_rows, similarity_for

log = logging.getLogger(__name__)


def _token_lengths(tokenizer, texts, pairs=None, max_length=None) -> np.ndarray:
    kwargs = dict(add_special_tokens=True, truncation=max_length is not None, max_length=max_length)
    if pairs is None:
        enc = tokenizer(list(texts), **kwargs)
    else:
        enc = tokenizer(list(texts), list(pairs), **kwargs)
    return np.fromiter((len(ids) for ids in enc["input_ids"]), dtype=np.int64, count=len(texts))


def _on_accelerator(model) -> bool:
    return model.device.type != "cpu"


def _sort_lengths(model, texts, pairs=None) -> np.ndarray:
    """What batches are sorted by: tokens on a CPU, where padding costs compute; characters on an
    accelerator (as sentence-transformers sorts), where the forward pass waits on the CPU and a
    second tokenization of every text costs more than the padding it saves (``docs/results.md``)."""
    if not _on_accelerator(model):
        return _token_lengths(model.tokenizer, texts, pairs=pairs, max_length=model.max_seq_length)
    sizes = (len(t) for t in texts) if pairs is None else (len(a) + len(b) for a, b in zip(texts, pairs))
    return np.fromiter(sizes, dtype=np.int64, count=len(texts))


def _batches(model, texts, pairs, batch_size: int, plan: DevicePlan) -> list[np.ndarray]:
    """Length-sorted batches: ``batch_size`` rows on a CPU; on an accelerator with a token budget
    (``batch_tokens``), as many rows as fit in it, sorted by tokens."""
    if _on_accelerator(model) and plan.batch_tokens:
        lengths = device_batches.token_counts(model.tokenizer, texts, pairs, model.max_seq_length)
        if lengths is None:  # a tokenizer without a fast backend
            lengths = _token_lengths(model.tokenizer, texts, pairs=pairs, max_length=model.max_seq_length)
        return device_batches.token_budget_batches(lengths, plan.batch_tokens)
    return _length_sorted_batches(_sort_lengths(model, texts, pairs=pairs), batch_size)


def _length_sorted_batches(lengths: np.ndarray, batch_size: int) -> list[np.ndarray]:
    # Longest first (an out-of-memory error shows up in the first batch, not the last);
    # the stable sort keeps equal lengths in input order, so results are deterministic.
    order = np.argsort(-lengths, kind="stable")
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


def _check_texts(texts, what: str) -> None:
    for i, text in enumerate(texts):
        if not isinstance(text, str) or not text.strip():
            raise PairbenchError(f"{what}: item {i} is an empty sentence ({text!r}); every sentence needs text")


def load_bi_encoder(model_dir: str | Path, settings: ScoringSettings, device: str, key: str = "?"):
    """A SentenceTransformer, or for ``backend: onnx | openvino`` the export in ``model_dir``
    (:class:`pairbench.study.onnx_runtime.ExportedModel`, scored by the same functions)."""
    if forms.is_exported(settings):
        return load_exported(model_dir, settings, key=key)
    from sentence_transformers import SentenceTransformer

    return load_embedder(SentenceTransformer, model_dir, settings, device)


def load_embedder(model_class, model_dir: str | Path, settings: ScoringSettings, device: str):
    """A model that embeds each sentence alone (``SentenceTransformer``, ``SparseEncoder``,
    ``MultiVectorEncoder``), in its deployed form, offline, in eval mode."""
    dtype = runtime.resolve_dtype(settings.dtype, device)
    model = model_class(
        str(model_dir),
        device=device,
        trust_remote_code=settings.trust_remote_code,
        local_files_only=True,
        **forms.loading_kwargs(settings, dtype),  # model_kwargs (dtype), truncate_dim
    )
    if settings.max_length:
        model.max_seq_length = settings.max_length
    model.eval()
    return model


def load_cross_encoder(model_dir: str | Path, settings: ScoringSettings, device: str, key: str = "?"):
    """A CrossEncoder, or for ``backend: onnx | openvino`` the export in ``model_dir``."""
    if forms.is_exported(settings):
        return load_exported(model_dir, settings, key=key)
    from sentence_transformers import CrossEncoder

    dtype = runtime.resolve_dtype(settings.dtype, device)
    model = CrossEncoder(
        str(model_dir),
        device=device,
        trust_remote_code=settings.trust_remote_code,
        max_length=settings.max_length,
        local_files_only=True,
        **forms.loading_kwargs(settings, dtype),  # model_kwargs (dtype)
    )
    model.eval()
    return model


def _forward_batches(
    model, batches: list[np.ndarray], inputs_of, output_of, plan: DevicePlan | None = None
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``(indices, output)`` of each batch, in order: ``output_of(model(features))`` as a numpy array.

    On a CPU with N torch threads, N batches run side by side on one thread each: small
    sentences give matrix products too small for N threads to share well, and whole batches in
    parallel are faster (``docs/results.md``). Each batch is computed exactly as alone, so the
    outputs do not change. Tokenizing stays in this thread (a fast tokenizer is not shared across
    threads) and at most 2N batches are tokenized ahead, so memory stays bounded.
    """

    def forward(features):
        return _forward_on_device(model, features, output_of).cpu().numpy()

    def features_of(idx):
        features = model.preprocess(inputs_of(idx))
        return {k: (v.to(model.device) if isinstance(v, torch.Tensor) else v) for k, v in features.items()}

    if _on_accelerator(model):
        plan = plan or DevicePlan()
        if plan.batch_tokens:
            yield from device_batches.run_batches(model, batches, inputs_of, output_of, plan)
            return
        # batch_tokens null: batch_size rows sorted by characters, each batch tokenized here
        yield from _queued_batches(batches, lambda idx: (idx, features_of(idx)), _launcher(model, output_of, plan))
        return
    workers = torch.get_num_threads()
    if workers <= 1 or len(batches) <= 1:
        for idx in batches:
            yield idx, forward(features_of(idx))
        return
    pool = _batch_pool(workers)
    torch.set_num_threads(1)
    try:
        pending: deque = deque()
        for idx in batches:
            pending.append((idx, pool.submit(forward, features_of(idx))))
            if len(pending) >= 2 * workers:
                done_idx, future = pending.popleft()
                yield done_idx, future.result()
        while pending:
            done_idx, future = pending.popleft()
            yield done_idx, future.result()
    finally:
        torch.set_num_threads(workers)


def _forward_on_device(model, features, output_of):
    with torch.inference_mode():
        return output_of(model(features)).float()


def _launcher(model, output_of, plan: DevicePlan):
    """A batch's forward on the accelerator, split in two when it runs out of memory."""

    def forward(m, features, out):
        return _forward_on_device(m, features, out)

    return lambda batch: device_batches.launch(model, batch[1], output_of, len(batch[0]), plan, forward=forward)


_POOLS: dict[int, ThreadPoolExecutor] = {}


def _batch_pool(workers: int) -> ThreadPoolExecutor:
    # One pool per process, kept for every chunk: new threads for each chunk would each get
    # fresh allocator arenas, and the job's peak memory then grew with the suite (measured:
    # +133 MB from 4k to 40k pairs with a pool per chunk, +82 MB with this one; docs/results.md).
    if workers not in _POOLS:
        _POOLS[workers] = ThreadPoolExecutor(workers, thread_name_prefix="pairbench-batch")
    return _POOLS[workers]


def encode_sentences(
    model, texts: list[str], batch_size: int = 32, prompt: str | None = None, plan: DevicePlan | None = None
) -> np.ndarray:
    """Embed ``texts`` with a SentenceTransformer in token-length-sorted batches; float32 array.
    ``plan``: batching on an accelerator (:class:`pairbench.study.device_batches.DevicePlan`)."""
    _check_texts(texts, "encode_sentences")
    if not texts:
        return np.zeros((0, model.get_sentence_embedding_dimension() or 0), dtype=np.float32)
    prompted = [prompt + t for t in texts] if prompt else list(texts)
    plan = plan or DevicePlan()
    batches = _batches(model, prompted, None, batch_size, plan)
    out: np.ndarray | None = None
    for idx, emb in _forward_batches(
        model, batches, lambda idx: [prompted[i] for i in idx], lambda output: output["sentence_embedding"], plan
    ):
        if out is None:
            out = np.empty((len(texts), emb.shape[1]), dtype=np.float32)
        out[idx] = emb
    assert out is not None
    return out


class EmbeddingStore:
    """Embeddings of distinct sentences in a temporary file, each row written once.

    ``rows(texts)`` gives each text's row, ``new`` lists the texts not stored yet; ``put`` appends
    their embeddings and ``get`` reads rows back.
    """

    def __init__(self, folder: str | os.PathLike | None = None):
        self.dim = 0  # set by the first ``put``
        self._index: dict[bytes, int] = {}
        self._file = tempfile.TemporaryFile(dir=folder)

    def __len__(self) -> int:
        return len(self._index)

    @staticmethod
    def key(text: str) -> bytes:
        return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()

    def missing(self, texts: list[str]) -> list[str]:
        """The distinct texts of ``texts`` not in the store, in first-seen order."""
        return [t for t in dict.fromkeys(texts) if self.key(t) not in self._index]

    def put(self, texts: list[str], embeddings: np.ndarray) -> None:
        start = len(self._index)
        self.dim = self.dim or embeddings.shape[1]
        os.pwrite(
            self._file.fileno(), np.ascontiguousarray(embeddings, dtype=np.float32).tobytes(), start * self.dim * 4
        )
        for offset, text in enumerate(texts):
            self._index[self.key(text)] = start + offset

    def get(self, texts: list[str]) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        fd, size = self._file.fileno(), self.dim * 4
        for i, text in enumerate(texts):
            out[i] = np.frombuffer(os.pread(fd, size, self._index[self.key(text)] * size), dtype=np.float32)
        return out

    def close(self) -> None:
        self._file.close()


def score_bi_chunk(
    model,
    store: EmbeddingStore,
    s1: list[str],
    s2: list[str],
    settings: ScoringSettings,
    similarity=cosine_rows,
    plan: DevicePlan | None = None,
) -> np.ndarray:
    """Similarity (cosine unless the form quantises) of one chunk of pairs; sentences not in
    ``store`` are encoded and added to it."""
    new = store.missing([*s1, *s2])
    if new:
        plan = plan or settings_plan(settings)
        store.put(new, encode_sentences(model, new, settings.batch_size, settings.prompt, plan))
    return similarity(store.get(s1), store.get(s2))


def settings_plan(settings: ScoringSettings, key: str = "?") -> DevicePlan:
    """The accelerator batching of a model's settings (``batch_tokens``)."""
    return DevicePlan(key=key, batch_tokens=getattr(settings, "batch_tokens", device_batches.DEFAULT_BATCH_TOKENS))


def score_bi(model, s1: list[str], s2: list[str], settings: ScoringSettings) -> tuple[np.ndarray, str]:
    """Similarity of the embeddings (:class:`pairbench.study.similarity.Similarity`); each distinct sentence is encoded once."""
    distinct = list(dict.fromkeys([*s1, *s2]))
    position = {text: i for i, text in enumerate(distinct)}
    emb = encode_sentences(model, distinct, settings.batch_size, settings.prompt, settings_plan(settings))
    similarity = similarity_for(settings)
    return similarity(emb[[position[t] for t in s1]], emb[[position[t] for t in s2]]), similarity.description


def cross_logits(
    model,
    s1: list[str],
    s2: list[str],
    batch_size: int = 32,
    template: str | None = None,
    plan: DevicePlan | None = None,
) -> np.ndarray:
    """The cross-encoder's logits before any activation, shape (n_pairs, num_labels), float64.

    ``template``: each pair is read as one text, the template with ``{query}`` and ``{document}``
    replaced by sentence1 and sentence2 (a causal-LM reranker's prompt, never truncated).
    """
    _check_texts(s1, "cross-encoder sentence1")
    _check_texts(s2, "cross-encoder sentence2")
    plan = plan or DevicePlan()
    if template:
        texts = [fill_template(template, a, b) for a, b in zip(s1, s2)]
        lengths = _token_lengths(model.tokenizer, texts)
        if model.max_seq_length and len(lengths) and lengths.max() > model.max_seq_length:
            i = int(lengths.argmax())
            raise PairbenchError(
                f"pair {i} is {lengths[i]} tokens in its prompt template, over the model's "
                f"{model.max_seq_length}; the template's end would be cut off: raise `max_length`"
            )

        def inputs_of(idx):
            return [texts[i] for i in idx]

        if _on_accelerator(model) and plan.batch_tokens:
            batches = device_batches.token_budget_batches(lengths, plan.batch_tokens)
        else:
            batches = _length_sorted_batches(lengths, batch_size)
    else:
        batches = _batches(model, s1, s2, batch_size, plan)

        def inputs_of(idx):
            return [(s1[i], s2[i]) for i in idx]

    out = np.empty((len(s1), model.num_labels), dtype=np.float64)
    for idx, scores in _forward_batches(model, batches, inputs_of, lambda output: output["scores"], plan):
        out[idx] = scores.reshape(len(idx), -1)
    return out


def fill_template(template: str, query: str, document: str) -> str:
    """The template with ``{query}`` and ``{document}`` replaced in one pass: a sentence that holds
    the text ``{document}`` or ``{query}`` itself is pasted as it is, never filled again."""
    parts = re.split(r"(\{query\}|\{document\})", template)
    return "".join(query if part == "{query}" else document if part == "{document}" else part for part in parts)


def _label_index(model, label: str | None, key: str) -> int:
    if model.num_labels == 1:
        if label is not None:
            raise ConfigError(f"models.{key}.label: {one_logit_label(label, 'this cross-encoder')}")
        return 0
    id2label = {int(i): str(name) for i, name in model.config.id2label.items()}
    if label is None:
        raise ConfigError(
            f"models.{key}: this cross-encoder has {model.num_labels} labels ({', '.join(id2label.values())}); "
            "set `label:` to the one whose probability is the similarity score (e.g. entailment)"
        )
    for i, name in id2label.items():
        if name.lower() == label.lower():
            return i
    raise ConfigError(f"models.{key}.label: {label!r} is not one of {', '.join(id2label.values())}")


def normalise_logits(
    logits: np.ndarray, index: int, normalise: str, saved_activation
) -> tuple[np.ndarray, np.ndarray, str]:
    """Return (raw, score, description) for the label ``index`` of ``logits``."""
    raw = logits[:, index]
    t = torch.from_numpy(logits)
    if normalise == "auto":
        if logits.shape[1] > 1:
            normalise = "softmax"
        else:
            name = type(saved_activation).__name__ if saved_activation is not None else "Identity"
            if name == "Sigmoid":
                normalise = "sigmoid"
            elif name == "Identity":
                normalise = "identity"
            else:
                score = saved_activation(t[:, index : index + 1]).squeeze(-1).double().numpy()
                return raw, score, f"auto:{name}"
    if normalise == "sigmoid":
        score = torch.sigmoid(t[:, index]).numpy()
    elif normalise == "softmax":
        score = torch.softmax(t, dim=1)[:, index].numpy()
    elif normalise == "identity":
        score = raw.copy()
    else:  # pragma: no cover - checked in ScoringSettings
        raise ConfigError(f"unknown normalisation {normalise!r}")
    return raw, score.astype(np.float64), normalise


def score_cross(
    model, s1, s2, settings: ScoringSettings, key: str = "?", plan: DevicePlan | None = None
) -> tuple[np.ndarray, np.ndarray, str]:
    """``raw`` and normalised ``score``; with ``both_orders`` each is the mean over (a, b) and (b, a)."""
    index = _label_index(model, settings.label, key)
    activation = getattr(model, "activation_fn", None)
    template = (settings.causal_lm or {}).get("template")
    plan = plan or settings_plan(settings, key)
    logits = cross_logits(model, s1, s2, batch_size=settings.batch_size, template=template, plan=plan)
    raw, score, how = normalise_logits(logits, index, settings.normalise, activation)
    if settings.both_orders:
        # A cross-encoder reads the pair as one sequence, so its score depends on the order; a
        # model trained on both orders (training.cross_encoder `score_both_orders`) is scored so.
        swapped = cross_logits(model, s2, s1, batch_size=settings.batch_size, template=template, plan=plan)
        raw_ba, score_ba, _ = normalise_logits(swapped, index, settings.normalise, activation)
        raw, score, how = (raw + raw_ba) / 2, (score + score_ba) / 2, f"{how}, mean of both orders"
    if logits.shape[1] > 1:
        how = f"{how}[{model.config.id2label[index]}]"
    return raw, score, how
