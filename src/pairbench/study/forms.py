"""Deployed forms of a model: the settings that change how a model is run, not which model it is.

A practitioner rarely deploys a model as trained: embeddings are cut to fewer dimensions,
quantised to int8 or to bits, the network is run by ONNX Runtime or OpenVINO (with int8
weights), or in bfloat16. Each form is a model setting (``models.<key>`` in the config), done by
sentence-transformers' own code, and written into the shard's Parquet metadata and the cost
table (docs/deployed_forms.md):

- ``truncate_dim: N`` (bi-encoders): the first N dimensions of each embedding (Matryoshka
  truncation; ``SentenceTransformer(truncate_dim=N)``), compared by cosine.
- ``quantize: int8 | uint8 | binary | ubinary`` (bi-encoders): embeddings quantised by
  ``sentence_transformers.quantize_embeddings``, then compared as
  :class:`pairbench.study.similarity.Similarity` says: int8 / uint8 by the cosine of the integer
  codes (uint8 codes are read as offsets from 128: the library's uint8 is its int8 + 128, so both
  give one score); binary / ubinary by ``1 - Hamming distance / bits`` (the share of equal bits).
  int8 / uint8 need per-dimension ranges: the minimum and maximum of each dimension over the
  embeddings of the suite's first distinct sentences (at most
  :data:`~pairbench.study.similarity.CALIBRATION_SENTENCES`, read from the whole suite), the same
  for every part job and chunk size. The shard records how many sentences calibrated them.
- ``backend: torch | onnx | openvino`` with ``onnx_quantization: dynamic-int8`` (bi- and
  cross-encoders): the model is exported once by the local rule ``export_model`` into
  ``resources/exports/{model}`` (:func:`export_model`, :mod:`pairbench.study.onnx_export`:
  ``torch.onnx.export(dynamo=True)`` of the library model's whole forward pass, no optimum; int8
  by ONNX Runtime's ``quantize_dynamic``, per channel on the MatMuls); the scoring job runs that
  folder with ONNX Runtime or OpenVINO (:mod:`pairbench.study.onnx_runtime`). The packages
  (onnx, onnxscript, onnxruntime, openvino) are dependencies of the package; a run that sets a
  backend without them stops when the workflow loads, naming the install.
- ``dtype: bfloat16`` (every kind): the weights and activations in bfloat16, on CPU too.
"""

from __future__ import annotations

import importlib.util

from pairbench.core.errors import ConfigError
from pairbench.study.onnx_export import export_onnx
from pairbench.study.onnx_export import export_recipe as _export_recipe
from pairbench.study.onnx_runtime import EXPORT_MANIFEST, INT8_FILE, ONNX_FILE  # noqa: F401 (forms.* for callers)

# The settings each family reads (kinds.py adds them to its kinds' settings).
EMBEDDING_FORM_SETTINGS = ("truncate_dim", "quantize", "backend", "onnx_quantization")
NETWORK_FORM_SETTINGS = ("backend", "onnx_quantization")
FORM_KEYS = ("truncate_dim", "quantize", "backend", "onnx_quantization")
# What each backend needs imported (the export needs onnx and onnxscript, and checks itself with
# the backend's runtime); all are dependencies of the package (pyproject.toml).
BACKEND_MODULES = {
    "onnx": ("onnxruntime", "onnx", "onnxscript"),
    "openvino": ("openvino", "onnxruntime", "onnx", "onnxscript"),
}
# The export's files (EXPORT_MANIFEST and INT8_FILE too, imported above from onnx_runtime).
EXPORT_FILES = {"onnx": ONNX_FILE, "openvino": ONNX_FILE}
# The exported forms a trained run joins the study in besides its torch form (``study_forms:`` of a
# training run): form name -> that form's model settings. The form is a model of the study named
# ``<run>-<form>``, exported from the run's model folder by rule export_model.
STUDY_FORMS = {
    "onnx": {"backend": "onnx"},
    "onnx-int8": {"backend": "onnx", "onnx_quantization": "dynamic-int8"},
    "openvino": {"backend": "openvino"},
    "openvino-int8": {"backend": "openvino", "onnx_quantization": "dynamic-int8"},
}


def check_form(block: dict, *, key: str = "?") -> None:
    """Stop, at load, on a form setting that cannot work (one line, naming the key)."""
    backend = block.get("backend") or "torch"
    quantization = block.get("onnx_quantization")
    if quantization and backend == "torch":
        raise ConfigError(
            f"models.{key}.onnx_quantization: {quantization!r} needs `backend: onnx` (or openvino) "
            f"(this model has backend {backend!r}); set it or remove onnx_quantization"
        )
    if backend in BACKEND_MODULES:
        missing = [m for m in BACKEND_MODULES[backend] if importlib.util.find_spec(m) is None]
        if missing:
            raise ConfigError(
                f"models.{key}.backend: {backend!r} needs the Python packages {', '.join(missing)}, which are "
                f"not installed; install pairbench with its dependencies (`pip install -e .` in its checkout) "
                f"or `pip install {' '.join(BACKEND_MODULES[backend])}`, or remove the setting (backend: torch)"
            )
    if backend != "torch" and (block.get("dtype") or "auto") not in ("auto", "float32"):
        raise ConfigError(
            f"models.{key}.dtype: {block['dtype']!r} applies to the torch backend only; "
            f"backend {backend!r} runs its exported weights; remove dtype"
        )
    if backend != "torch" and block.get("causal_lm"):
        raise ConfigError(
            f"models.{key}.backend: {backend!r} exports sequence-classification cross-encoders, not a causal-LM "
            "reranker (causal_lm:); set `backend: torch` for this model"
        )
    if backend != "torch" and (block.get("device") or "auto") not in ("auto", "cpu"):
        raise ConfigError(
            f"models.{key}.device: {block['device']!r}: backend {backend!r} runs on the CPU; "
            "set `device: cpu` (or auto) or `backend: torch`"
        )


def is_exported(block) -> bool:
    """Whether the model is scored from an export (``resources/exports/{model}``), not its folder
    (``block``: its config block or its ScoringSettings)."""
    backend = block.get("backend") if isinstance(block, dict) else getattr(block, "backend", None)
    return (backend or "torch") != "torch"


def study_form_models(key: str, model: dict, forms) -> dict[str, dict]:
    """The study models of a trained model's exported ``forms`` (names of :data:`STUDY_FORMS`).

    ``model``: the trained model's study entry (``kind``, ``dir``, ``source``, scoring settings).
    Each form keeps the run's scoring settings, is scored from ``resources/exports/<key>-<form>``
    and is exported from the run's folder (its ``source``); a form that cannot work for the
    model's settings stops the workflow at load (:func:`check_form`).
    """
    out = {}
    for form in forms:
        name = f"{key}-{form}"
        entry = {**model, **STUDY_FORMS[form], "dir": f"resources/exports/{name}"}
        check_form(entry, key=name)
        out[name] = entry
    return out


def loading_kwargs(settings, dtype) -> dict:
    """Keyword arguments of ``SentenceTransformer`` / ``CrossEncoder`` for the model's torch form
    (an exported backend is loaded by :func:`pairbench.study.onnx_runtime.load_exported`)."""
    kwargs: dict = {"backend": "torch", "model_kwargs": {"dtype": dtype}}
    if getattr(settings, "truncate_dim", None):
        kwargs["truncate_dim"] = settings.truncate_dim
    return kwargs


def export_recipe(block: dict) -> dict:
    """How the export of ``block`` is made (the rule's params: a change exports again)."""
    return _export_recipe(block)


def export_model(model_dir, out_dir, block: dict, *, key: str = "?") -> dict:
    """Rule export_model: the model in ``model_dir`` exported for its backend into ``out_dir``.

    ``torch.onnx.export(dynamo=True)`` of the whole forward pass (``onnx/model.onnx``), fused by ONNX
    Runtime's optimiser where that keeps it within 1e-5 of torch; with ``onnx_quantization:
    dynamic-int8`` also ``onnx/model_qint8.onnx`` (per channel, MatMul only). OpenVINO reads the
    same ONNX file. ``pairbench_export.json`` records what was exported, from what, and how close
    it is (:mod:`pairbench.study.onnx_export`). ``block``: the model's ``kind``, ``backend`` and
    ``onnx_quantization``.
    """
    check_form(block, key=key)
    return export_onnx(model_dir, out_dir, block, key=key)


def exported_metadata(model) -> dict:
    """The export's shard metadata (runtime, export facts, int8 settings); {} for a torch model."""
    describe = getattr(model, "export_metadata", None)
    return describe() if callable(describe) else {}


def form_metadata(settings, reads: tuple[str, ...], similarity=None) -> dict:
    """The form's settings for the shard's metadata: every form key the kind ``reads`` and that is
    set, and how pairs compare (``similarity``: a :class:`pairbench.study.similarity.Similarity`)."""
    out = {}
    for name in FORM_KEYS:
        if name not in reads:
            continue
        value = getattr(settings, name, None)
        if value not in (None, ""):
            out[name] = value
    if similarity is not None:
        out.update(similarity.metadata())
    return out
