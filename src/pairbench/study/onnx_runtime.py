"""Scoring an export of rule export_model with ONNX Runtime (``backend: onnx``) or OpenVINO
(``backend: openvino``), through the same scoring code as the torch path.

:class:`ExportedModel` has the parts of ``SentenceTransformer`` / ``CrossEncoder`` that
:mod:`pairbench.study.scoring` uses: ``tokenizer`` and ``max_seq_length`` (token-length-sorted
batches, truncation checks), ``preprocess`` (the model's own tokenizer, saved in the export, with
the library's padding and ``longest_first`` truncation at ``max_seq_length``) and a call that
returns ``sentence_embedding`` (bi) or ``scores`` (cross: logits before any activation;
``activation_fn`` is the one the model saved). So ``load_bi_encoder`` / ``encode_sentences`` /
``score_bi`` / ``cross_logits`` / ``score_cross`` and the chunk scorers take an export folder with
``ScoringSettings(backend="onnx", ...)`` exactly as they take a model folder.

Threads: as on the torch path, a job with N threads runs N batches side by side, each on one
thread (ONNX Runtime: an InferenceSession with ``intra_op_num_threads = 1``, whose ``run`` several threads
call at once; OpenVINO: N streams of one thread, one infer request per calling thread). On the
2-core machine this was faster than one batch at a time on N threads (docs/deployed_forms.md).
"""

from __future__ import annotations

import importlib.metadata
import json
import threading
from pathlib import Path

import numpy as np

from pairbench.core.errors import PairbenchError

RUNTIMES = {"onnx": "onnxruntime", "openvino": "openvino"}
# The files of an export (rule export_model, pairbench.study.onnx_export); OpenVINO reads the ONNX file.
ONNX_FILE = "onnx/model.onnx"
INT8_FILE = "onnx/model_qint8.onnx"
EXPORT_MANIFEST = "pairbench_export.json"


def read_export_manifest(folder, *, key: str = "?") -> dict:
    """The export's ``pairbench_export.json``; one line naming the folder when it is not an export."""
    path = Path(folder) / EXPORT_MANIFEST
    if not path.exists():
        raise PairbenchError(
            f"models.{key}: {folder} holds no {EXPORT_MANIFEST}, so it is not an export of rule export_model; "
            f"score the export the workflow makes (resources/exports/{key}) or set `backend: torch`"
        )
    return json.loads(path.read_text(encoding="utf-8"))


def open_runner(path, backend: str, threads: int = 1):
    """A function ``run(features) -> first output`` of the ONNX file at ``path`` on the CPU."""
    if backend == "openvino":
        return _openvino_run(path, threads)
    return _onnxruntime_run(path, threads)


def _onnxruntime_run(path, threads: int):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1  # N batches side by side, one thread each (module docstring)
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    inference = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    names = [i.name for i in inference.get_inputs()]

    def run(features: dict) -> np.ndarray:
        return inference.run(None, {name: features[name] for name in names})[0]

    return run


def _openvino_run(path, threads: int):
    import openvino as ov

    # f32: on a CPU with bfloat16 units OpenVINO would otherwise run in bfloat16.
    config = {"INFERENCE_NUM_THREADS": threads, "NUM_STREAMS": threads, "INFERENCE_PRECISION_HINT": "f32"}
    compiled = ov.Core().compile_model(str(path), "CPU", config)
    names = [port.get_any_name() for port in compiled.inputs]
    local = threading.local()

    def run(features: dict) -> np.ndarray:
        if not hasattr(local, "request"):
            local.request = compiled.create_infer_request()
        result = local.request.infer({name: features[name] for name in names})
        return np.array(result[compiled.output(0)], copy=True)

    return run


class ExportedModel:
    """An export run by ONNX Runtime or OpenVINO, read by pairbench's scoring as a library model."""

    def __init__(self, folder, settings, manifest: dict, *, key: str = "?"):
        import torch
        from transformers import AutoTokenizer

        self.folder, self.settings, self.manifest, self.key = Path(folder), settings, manifest, key
        self.backend = settings.backend
        self.device = torch.device("cpu")
        self.tokenizer = AutoTokenizer.from_pretrained(
            str(folder), local_files_only=True, trust_remote_code=settings.trust_remote_code
        )
        if manifest.get("max_seq_length"):
            self.tokenizer.model_max_length = manifest["max_seq_length"]
        self.inputs, self.output = list(manifest["inputs"]), manifest["output"]
        self._run = open_runner(self.folder / manifest["file"], self.backend, threads=torch.get_num_threads())

    @property
    def max_seq_length(self) -> int | None:
        return self.tokenizer.model_max_length

    @max_seq_length.setter
    def max_seq_length(self, value: int | None) -> None:
        self.tokenizer.model_max_length = value

    def eval(self) -> ExportedModel:
        return self

    def preprocess(self, inputs: list) -> dict:
        """The tokenizer's arrays, as the library's preprocess tokenizes (padding, ``longest_first``)."""
        lower = (lambda text: text.lower()) if self.manifest.get("do_lower_case") else (lambda text: text)
        kwargs = dict(padding=True, truncation="longest_first", return_tensors="np")
        if self.max_seq_length:
            kwargs["max_length"] = self.max_seq_length
        if inputs and isinstance(inputs[0], (tuple, list)):
            first, second = [lower(a) for a, _ in inputs], [lower(b) for _, b in inputs]
            encoded = self.tokenizer(first, second, **kwargs)
        else:
            encoded = self.tokenizer([lower(text) for text in inputs], **kwargs)
        return {name: np.asarray(encoded[name], dtype=np.int64) for name in self.inputs}

    def __call__(self, features: dict) -> dict:
        import torch

        return {self.output: torch.from_numpy(np.ascontiguousarray(self._run(features)))}

    def export_metadata(self) -> dict:
        """What the shard records of the export (docs/deployed_forms.md, Shard metadata)."""
        runtime = RUNTIMES[self.backend]
        out = {
            "runtime": f"{runtime} {importlib.metadata.version(runtime)}",
            "export": {
                k: self.manifest.get(k)
                for k in ("form", "file", "exporter", "opset", "source_fingerprint", "fidelity", "export_seconds")
            }
            | {"fused_operators": _fused_operators(self.manifest)},
        }
        if self.manifest.get("quantization"):
            out["onnx_quantization_settings"] = self.manifest["quantization"]
        return out


def _fused_operators(manifest: dict) -> dict:
    """Operators fused into the scored graph: ONNX Runtime's optimiser's, then (float32 ONNX Runtime)
    onnxscript's attention fusion, which replaces the graph's operators with its own count."""
    attention = manifest.get("attention_fusion") or {}
    if attention.get("applied"):
        return dict(attention.get("operators", {}))
    return dict((manifest.get("optimizer") or {}).get("operators", {}))


class ExportedBiEncoder(ExportedModel):
    def get_embedding_dimension(self) -> int | None:
        return self.manifest.get("dimension")

    get_sentence_embedding_dimension = get_embedding_dimension  # the library's older name


class ExportedCrossEncoder(ExportedModel):
    def __init__(self, folder, settings, manifest: dict, *, key: str = "?"):
        super().__init__(folder, settings, manifest, key=key)
        from transformers import AutoConfig

        self.config = AutoConfig.from_pretrained(str(folder), local_files_only=True)
        self.num_labels = int(manifest.get("num_labels") or self.config.num_labels)
        self.activation_fn = _activation(manifest.get("activation_fn"), settings.trust_remote_code)


def _activation(path: str | None, trust_remote_code: bool):
    """The activation the library resolved when the model was exported (its class path), or None."""
    if not path or not (path.startswith("torch.") or trust_remote_code):
        return None
    from sentence_transformers.util import import_from_string

    return import_from_string(path)()


def load_exported(folder, settings, *, key: str = "?") -> ExportedModel:
    """The export in ``folder`` for ``settings`` (kind bi or cross); one line when it does not fit them."""
    manifest = read_export_manifest(folder, key=key)
    wanted, made = settings.onnx_quantization, manifest.get("onnx_quantization")
    if manifest.get("kind") != settings.kind or wanted != made:
        raise PairbenchError(
            f"models.{key}: the export in {folder} is of kind {manifest.get('kind')!r} with onnx_quantization "
            f"{made!r}, not {settings.kind!r} with {wanted!r}; delete {folder} so that rule export_model "
            "exports it again"
        )
    cls = ExportedCrossEncoder if settings.kind == "cross" else ExportedBiEncoder
    model = cls(folder, settings, manifest, key=key)
    if settings.max_length:
        model.max_seq_length = settings.max_length
    return model
