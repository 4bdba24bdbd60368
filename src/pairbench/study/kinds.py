"""The model-kind registry: one record per ``kind`` of model the study scores, the whole truth about it.

A :class:`ModelKind` says

- how a model of that kind is loaded and scores a chunk of sentence pairs: ``scorer`` names a
  chunk-scorer class (``"module:Class"``, see :mod:`pairbench.study.chunk_scorers`), built once per
  job as ``Class(model_dir, settings, device, key)`` and called on each chunk ``(s1, s2) -> (raw,
  score, normalisation)``. ``scorer=None``: the kind is not scored from text (``not_from_text``
  says how it is scored instead);
- which family it is compared in (``bi``: each sentence encoded alone; ``cross``: the pair read
  together), its colour and marker in the figures and the label of its score axis;
- what its model folder holds (``holds``: the folder types of :mod:`pairbench.study.model_folder` it
  accepts, its own first), what a folder of another type needs (``refused``) and the setting a
  folder type also needs (``folder_needs``);
- what its shard and cost row record, through its chunk scorer: ``sentences_encoded`` (what it
  ran through the model), loading apart from scoring or inside each call (then a note says so),
  keys of its own (a sparse model's active dimensions);
- which scoring settings of a ``models:`` entry it reads.

The kind enum of ``workflow/schemas/config.schema.yaml`` lists exactly the declared kinds (a test
checks it); defaults of the settings live in that schema only. Adding a kind: one entry in
:data:`KINDS`, its chunk scorer, and the name in the schema's enum (``docs/ARCHITECTURE.md``).
"""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass, field

from pairbench.core.errors import ConfigError
from pairbench.core.schemas import model_properties
from pairbench.study.forms import EMBEDDING_FORM_SETTINGS, NETWORK_FORM_SETTINGS, check_form
from pairbench.study.scoring_causal import check_causal_lm

# Keys of a `models:` entry that describe the model rather than how it is scored.
MODEL_KEYS = ("kind", "source", "description", "enabled")
COMMON_SETTINGS = ("batch_size", "max_length", "dtype", "device", "trust_remote_code")


@dataclass(frozen=True)
class ModelKind:
    name: str
    scorer: str | None  # "module:Class" of its chunk scorer; None: not scored from text
    family: str  # "bi" or "cross": the side of the study's bi-vs-cross comparisons
    colour: str
    settings: tuple[str, ...]
    description: str = ""
    # False: the kind comes only from a training stage and cannot be declared under `models:`.
    declared: bool = True
    # Model folder: the folder types it accepts (its own first), what to do with another one,
    # and settings a folder type needs (folder type -> (setting, what it is for)).
    holds: tuple[str, ...] = ()
    refused: str = ""
    folder_needs: dict[str, tuple[str, str]] = field(default_factory=dict)
    # Figures and cost rows.
    marker: str = "o"
    axis_label: str = "score"
    not_from_text: str = ""  # how a kind without a scorer is scored

    def open(self, model_dir, settings, device: str, key: str = "?"):
        """The kind's chunk scorer with its model loaded (for one job)."""
        if self.scorer is None:
            raise ConfigError(f"models.{key}: kind {self.name!r} is not scored from text: {self.not_from_text}")
        module, name = self.scorer.split(":")
        return getattr(importlib.import_module(module), name)(model_dir, settings, device, key)

    def score(self, model_dir, settings, s1, s2, device: str, key: str = "?"):
        """``(raw, score, normalisation)`` of the pairs (s1[i], s2[i]) in one call."""
        scorer = self.open(model_dir, settings, device, key)
        try:
            return scorer(list(s1), list(s2))
        finally:
            scorer.close()


_CHUNKS = "pairbench.study.chunk_scorers"
_CROSS_REFUSED = (
    "point `source:` at a cross-encoder (a model with a trained classification head, or a causal LM with `causal_lm:`)"
)
_CAUSAL_NEEDS = "its prompt template and yes/no tokens (docs/model_kinds.md; e.g. Qwen/Qwen3-Reranker-0.6B)"
KINDS: dict[str, ModelKind] = {
    kind.name: kind
    for kind in (
        ModelKind(
            "bi",
            f"{_CHUNKS}:BiEncoderScorer",
            "bi",
            "#1f77b4",
            (*COMMON_SETTINGS, "batch_tokens", "prompt", *EMBEDDING_FORM_SETTINGS),
            "bi-encoder scored by cosine",
            holds=("bi", "encoder", "masked_lm"),
            refused="point `source:` at a sentence-transformers model or a transformers encoder",
            axis_label="cosine",
        ),
        ModelKind(
            "cross",
            f"{_CHUNKS}:CrossEncoderScorer",
            "cross",
            "#d62728",
            (
                *COMMON_SETTINGS,
                "batch_tokens",
                "normalise",
                "label",
                "both_orders",
                "causal_lm",
                *NETWORK_FORM_SETTINGS,
            ),
            "cross-encoder (a classification head, or a causal LM's yes/no logits)",
            holds=("cross", "causal_lm"),
            refused=_CROSS_REFUSED,
            folder_needs={"causal_lm": ("causal_lm", _CAUSAL_NEEDS)},
            marker="s",
        ),
        ModelKind(
            "sparse",
            "pairbench.study.scoring_sparse:SparseEncoderScorer",
            "bi",
            "#ff7f0e",
            COMMON_SETTINGS,
            "learned sparse encoder (SPLADE) scored by its own similarity",
            holds=("sparse", "masked_lm"),
            refused="point `source:` at a sentence-transformers SparseEncoder or a masked-LM model",
            marker="D",
        ),
        ModelKind(
            "multi_vector",
            "pairbench.study.scoring_multi_vector:MultiVectorScorer",
            "bi",
            "#8c564b",
            (*COMMON_SETTINGS, "both_orders"),
            "multi-vector late-interaction model scored by MaxSim",
            holds=("multi_vector",),
            refused="point `source:` at a MultiVectorEncoder or PyLate (ColBERT) model folder",
            marker="P",
        ),
        ModelKind(
            "celi",
            f"{_CHUNKS}:CeliScorer",
            "cross",
            "#9467bd",
            COMMON_SETTINGS,
            "a trained CELI reranker",
            holds=("cross", "bi", "encoder"),
            refused=_CROSS_REFUSED,
            marker="s",
        ),
        # Siamese: each sentence encoded alone, compared by per-layer cosines, so family "bi"
        # (docs/frozen_features.md).
        ModelKind(
            "frozen_features",
            None,
            "bi",
            "#2ca02c",
            (),
            "a frozen-feature STS model (training.frozen_features)",
            declared=False,
            marker="v",
            not_from_text="its models are trained by training.frozen_features and scored from the "
            "cached latents of their frozen lm by that stage's own rules; list them under "
            "training.frozen_features.runs, not under models:",
        ),
    )
}
# Kinds compared as "cross-encoders" / "bi-encoders" in the study's tables, from the records.
CROSS_KINDS = tuple(name for name, kind in KINDS.items() if kind.family == "cross")
BI_KINDS = tuple(name for name, kind in KINDS.items() if kind.family == "bi")
KIND_COLOURS = {name: kind.colour for name, kind in KINDS.items()}
OTHER_COLOUR = "#555555"


def text_scored(kind: str) -> bool:
    """Whether models of ``kind`` are scored from text by the study's scoring rules."""
    return kind not in KINDS or KINDS[kind].scorer is not None


def kind_for_folder(folder_type: str) -> ModelKind | None:
    """The kind to set for a folder of ``folder_type``: the declared kind whose own type it is, or
    one that takes it with a setting (``folder_needs``); None when neither."""
    own = (k for k in KINDS.values() if k.declared and k.holds[:1] == (folder_type,))
    needs = (k for k in KINDS.values() if k.declared and folder_type in k.folder_needs)
    return next(own, None) or next(needs, None)


def _schema_default(name: str):
    """The default of one model setting, read from ``config.schema.yaml`` (its only home)."""
    return model_properties()[name].get("default")


@dataclass(frozen=True)
class ScoringSettings:
    """The per-model settings of a ``models:`` entry that affect scoring; defaults from the schema."""

    kind: str
    batch_size: int = _schema_default("batch_size")
    batch_tokens: int | None = _schema_default("batch_tokens")  # on an accelerator (study.device_batches)
    max_length: int | None = _schema_default("max_length")
    normalise: str = _schema_default("normalise")
    label: str | None = _schema_default("label")
    both_orders: bool = False  # the schema gives none: absent means off
    prompt: str | None = _schema_default("prompt")
    dtype: str = _schema_default("dtype")
    device: str = _schema_default("device")
    trust_remote_code: bool = _schema_default("trust_remote_code")
    # Deployed forms (pairbench.study.forms, docs/deployed_forms.md).
    truncate_dim: int | None = _schema_default("truncate_dim")
    quantize: str | None = _schema_default("quantize")
    backend: str = _schema_default("backend")
    onnx_quantization: str | None = _schema_default("onnx_quantization")
    causal_lm: dict | None = None  # the schema gives none: a causal-LM reranker's template and tokens

    @classmethod
    def from_config(cls, block: dict, *, key: str = "?") -> ScoringSettings:
        """Settings of one model; a setting its kind does not read is an error, not dropped."""
        check_model_settings(block, key=key)
        for name, value in block.items():
            if name in MODEL_KEYS:
                continue  # the kind is checked against the registry, not the schema's copy of it
            allowed = model_properties().get(name, {}).get("enum")
            if allowed and value not in allowed:
                raise ConfigError(f"models.{key}.{name}: {value!r} is not one of {', '.join(map(str, allowed))}")
        return cls(**{k: v for k, v in block.items() if k not in MODEL_KEYS}, kind=block["kind"])


def model_kind(kind: str, *, key: str = "?") -> ModelKind:
    if kind not in KINDS:
        raise ConfigError(f"models.{key}.kind: unknown model kind {kind!r}; use one of {', '.join(KINDS)}")
    return KINDS[kind]


def model_setting_problems(block: dict, *, key: str = "?") -> list[tuple[str, ConfigError]]:
    """Every setting of one model that its kind does not read or that cannot work, as (setting,
    error) pairs (a default-filled value counts as unset); the checking pass reports them all."""
    kind = model_kind(block.get("kind"), key=key)
    fields = {f.name: f.default for f in dataclasses.fields(ScoringSettings)}
    found = []
    for name, value in block.items():
        if name in MODEL_KEYS or name in kind.settings:
            continue
        if name not in fields:
            message = f"not a scoring setting; the settings of kind {kind.name!r} are: {', '.join(kind.settings)}"
        elif value != fields[name]:
            message = (
                f"kind {kind.name!r} does not read this setting (its settings: {', '.join(kind.settings)}); remove it"
            )
        else:
            continue
        found.append((name, ConfigError(f"models.{key}.{name}: {message}")))
    for check in (check_form, check_causal_lm):
        try:
            check(block, key=key)
        except ConfigError as err:  # "models.<key>.<setting>[.<sub>]: ..."
            found.append((str(err).removeprefix(f"models.{key}.").split(":")[0].split(".")[0], err))
    return found


def check_model_settings(block: dict, *, key: str = "?") -> None:
    """Stop on the first setting the model's kind does not read or that cannot work."""
    found = model_setting_problems(block, key=key)
    if found:
        raise found[0][1]


def score_with_kind(kind: str, model_dir, settings: ScoringSettings, s1, s2, device: str, *, key: str = "?"):
    """Score the pairs (s1[i], s2[i]) with the model of kind ``kind`` (loaded for this call)."""
    return model_kind(kind, key=key).score(model_dir, settings, s1, s2, device, key)
