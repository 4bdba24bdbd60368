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
  ``resources/exports/{model}`` (:func:`export_model`: the library's ONNX / OpenVINO export and
  ``export_dynamic_quantized_onnx_model``); the scoring job loads that folder with the backend.
  The backends need optimum (sentence-transformers' extras ``onnx`` / ``openvino``, which do not
  install beside this project's libraries): a run that sets one without it stops when the
  workflow loads, saying so.
- ``dtype: bfloat16`` (every kind): the weights and activations in bfloat16, on CPU too.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import shutil
from pathlib import Path

from pairbench.core.errors import ConfigError

# The settings each family reads (kinds.py adds them to its kinds' settings).
EMBEDDING_FORM_SETTINGS = ("truncate_dim", "quantize", "backend", "onnx_quantization")
NETWORK_FORM_SETTINGS = ("backend", "onnx_quantization")
FORM_KEYS = ("truncate_dim", "quantize", "backend", "onnx_quantization")
# What each backend needs imported, the extra that would install it, and why that extra does not
# install beside this project's libraries (docs/deployed_forms.md, Packages).
BACKEND_MODULES = {"onnx": ("optimum.onnxruntime", "onnx"), "openvino": ("optimum.intel", "openvino")}
BACKEND_BLOCKERS = {
    "onnx": "every optimum-onnx release requires transformers < 4.58",
    "openvino": "optimum-intel requires transformers < 5.6 and a torch build of its own",
}
EXPORT_FILES = {"onnx": "onnx/model.onnx", "openvino": "openvino/openvino_model.xml"}
EXPORT_MANIFEST = "pairbench_export.json"
INT8_FILE = "onnx/model_qint8.onnx"


def check_form(block: dict, *, key: str = "?") -> None:
    """Stop, at load, on a form setting that cannot work (one line, naming the key)."""
    backend = block.get("backend") or "torch"
    quantization = block.get("onnx_quantization")
    if quantization and backend != "onnx":
        raise ConfigError(
            f"models.{key}.onnx_quantization: {quantization!r} needs `backend: onnx` "
            f"(this model has backend {backend!r}); set it or remove onnx_quantization"
        )
    if backend in BACKEND_MODULES:
        module, extra = BACKEND_MODULES[backend]
        if importlib.util.find_spec(module.split(".")[0]) is None:
            raise ConfigError(
                f"models.{key}.backend: {backend!r} needs {module}, which is not installed, and "
                f"sentence-transformers' {extra!r} extra cannot install beside this project's "
                f"sentence-transformers {_version('sentence-transformers')} and transformers "
                f"{_version('transformers')} ({BACKEND_BLOCKERS[backend]}); remove the setting (backend: "
                "torch), or score in an environment whose libraries that extra supports (docs/deployed_forms.md)"
            )
    if backend != "torch" and (block.get("dtype") or "auto") not in ("auto", "float32"):
        raise ConfigError(
            f"models.{key}.dtype: {block['dtype']!r} applies to the torch backend only; "
            f"backend {backend!r} runs its exported weights; remove dtype"
        )


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "(not installed)"


def is_exported(block: dict) -> bool:
    """Whether the model is scored from an export (``resources/exports/{model}``), not its folder."""
    return (block.get("backend") or "torch") != "torch"


def loading_kwargs(settings, dtype) -> dict:
    """Keyword arguments of ``SentenceTransformer`` / ``CrossEncoder`` for the model's form."""
    backend = getattr(settings, "backend", "torch") or "torch"
    kwargs: dict = {"backend": backend}
    if backend == "torch":
        kwargs["model_kwargs"] = {"dtype": dtype}
    elif getattr(settings, "onnx_quantization", None) == "dynamic-int8":
        kwargs["model_kwargs"] = {"file_name": exported_int8_file(settings)}
    if getattr(settings, "truncate_dim", None):
        kwargs["truncate_dim"] = settings.truncate_dim
    return kwargs


def exported_int8_file(settings) -> str:
    """The int8 ONNX file that :func:`export_model` writes for ``onnx_quantization: dynamic-int8``."""
    return INT8_FILE


def export_model(model_dir, out_dir, block: dict, *, key: str = "?") -> dict:
    """Rule export_model: the model in ``model_dir`` exported for its backend into ``out_dir``.

    ``backend: onnx`` saves the library's ONNX export (``onnx/model.onnx``); with
    ``onnx_quantization: dynamic-int8`` also ``export_dynamic_quantized_onnx_model`` with the
    configuration of this CPU (``avx512_vnni``, ``avx512``, ``avx2`` or ``arm64``), saved as
    ``onnx/model_qint8.onnx``. ``backend: openvino`` saves the OpenVINO IR. The manifest
    ``pairbench_export.json`` says what was exported, from what. ``block``: the model's
    ``kind``, ``backend`` and ``onnx_quantization``.
    """
    from sentence_transformers import (
        CrossEncoder,
        SentenceTransformer,
        export_dynamic_quantized_onnx_model,
    )

    backend = block["backend"]
    check_form(block, key=key)
    out_dir, tmp = Path(out_dir), Path(str(out_dir) + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    cls = CrossEncoder if block["kind"] == "cross" else SentenceTransformer
    model = cls(str(model_dir), backend=backend, device="cpu", local_files_only=True)
    model.save(str(tmp))
    manifest = {"backend": backend, "from": str(model_dir), "file": EXPORT_FILES[backend]}
    if block.get("onnx_quantization") == "dynamic-int8":
        config = cpu_quantization_config()
        export_dynamic_quantized_onnx_model(model, config, str(tmp), file_suffix="qint8")
        manifest.update(onnx_quantization="dynamic-int8", quantization_config=config, file=INT8_FILE)
    source_manifest = Path(model_dir) / "pairbench_source.json"
    if source_manifest.exists():
        shutil.copy2(source_manifest, tmp / source_manifest.name)
    (tmp / EXPORT_MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    shutil.rmtree(out_dir, ignore_errors=True)
    tmp.rename(out_dir)
    return manifest


def cpu_quantization_config() -> str:
    """The library's dynamic-quantisation preset for this CPU, from its instruction-set flags."""
    import platform

    if platform.machine().lower() in ("arm64", "aarch64"):
        return "arm64"
    try:
        flags = Path("/proc/cpuinfo").read_text().split()
    except OSError:
        flags = []
    for flag, config in (("avx512_vnni", "avx512_vnni"), ("avx512f", "avx512"), ("avx2", "avx2")):
        if flag in flags:
            return config
    return "avx2"


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
