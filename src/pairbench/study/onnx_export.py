"""Rule export_model for ``backend: onnx | openvino``: the model as one ONNX graph, without optimum.

The model is loaded in float32 on the CPU as sentence-transformers loads it (``SentenceTransformer``
for kind ``bi``, ``CrossEncoder`` for kind ``cross``) and its whole module chain is exported by
``torch.onnx.export(..., dynamo=True)`` with the batch and the sequence dynamic: a bi-encoder's
graph holds the transformer, pooling, any Dense and Normalize modules and outputs
``sentence_embedding``, exactly the library's embedding; a cross-encoder's graph outputs
``scores``, the logits before any activation (the activation is applied as the torch path does).
Then:

1. ONNX Runtime's transformer optimiser (``optimize_model``, model type ``bert``, Python fusions
   only, so the file stays portable) fuses what it recognises in the graph; the manifest records
   its ``get_fused_operator_statistics()``. It is kept only if the fused graph still equals the
   torch model within :data:`FP32_TOLERANCE` on the probe sentences.
2. The export is checked against the torch model on :data:`PROBE_SENTENCES` (float32: at most
   :data:`FP32_TOLERANCE` apart, or the rule stops); the manifest records the difference.
3. ``onnx_quantization: dynamic-int8``: ``onnxruntime.quantization.quantize_dynamic`` with
   :data:`INT8_SETTINGS` (per channel, MatMul only, int8 weights), saved as ``onnx/model_qint8.onnx``.
4. Otherwise, for ``backend: onnx``, onnxscript's ONNX Runtime fusions (:func:`_fuse_attention`) fuse
   each layer's attention into one ``com.microsoft.Attention``, which ONNX Runtime's optimiser does
   not recognise in the dynamo graph; kept only within :data:`FP32_TOLERANCE` of torch.

The folder also holds the model's tokenizer (saved with its ``model_max_length`` set to the
model's ``max_seq_length``), its small configuration files (no weights) and ``pairbench_export.json``
(:data:`pairbench.study.onnx_runtime.EXPORT_MANIFEST`): what was exported from what, how, and how close
it is. :mod:`pairbench.study.onnx_runtime` loads it. Nothing here runs at import.
"""

from __future__ import annotations

import json
import logging
import shutil
import time
from pathlib import Path

import numpy as np

from pairbench.core.errors import PairbenchError
from pairbench.study.onnx_runtime import EXPORT_MANIFEST, INT8_FILE, ONNX_FILE, open_runner

log = logging.getLogger(__name__)

FP32_TOLERANCE = 1e-5
# Dynamic int8 as measured best on all-MiniLM-L6-v2 (docs/deployed_forms.md): per-channel weight
# scales on the MatMuls keep a mean cosine of 0.994 to the float32 embedding; one scale per tensor
# (ONNX Runtime's default) keeps 0.967.
INT8_SETTINGS = {
    "method": "onnxruntime.quantization.quantize_dynamic",
    "per_channel": True,
    "op_types_to_quantize": ["MatMul"],
    "weight_type": "QInt8",
    "activations": "uint8, scale per batch at run time",
    "reduce_range": False,
}
EXPORTER = "torch.onnx.export(dynamo=True), batch and sequence dynamic"
OUTPUTS = {"bi": "sentence_embedding", "cross": "scores"}
OPTIMIZER = "bert, opt_level 0; fp32 onnx: onnxscript ort_fusions (Attention)"
# Weights are not copied from the source folder: the graph holds them.
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".h5", ".msgpack", ".ot", ".onnx", ".xml", ".ckpt")
PROBE_SENTENCES = (
    "A man is playing a guitar on the stage.",
    "The company did not report a loss in the third quarter of 2021.",
    "Nobody",
    "Three children were reading books in the library while their parents waited outside.",
    "It might rain tomorrow, but the forecast is uncertain.",
    "Paris is the capital of France.",
    "The patient responded well to the first round of treatment after several weeks of rest.",
    "No.",
)


def export_recipe(block: dict) -> dict:
    """What an export of ``block`` depends on besides the model folder (the rule's params: a change
    exports again)."""
    recipe = {"exporter": EXPORTER, "output": OUTPUTS.get(block.get("kind"), "?"), "optimizer": OPTIMIZER}
    if block.get("onnx_quantization") == "dynamic-int8":
        recipe["quantization"] = INT8_SETTINGS
    return recipe


def export_onnx(model_dir, out_dir, block: dict, *, key: str = "?") -> dict:
    """Export the model in ``model_dir`` into ``out_dir`` (written as ``out_dir.partial`` first);
    return the manifest. ``block``: the model's ``kind``, ``backend`` and ``onnx_quantization``."""
    import torch

    started = time.perf_counter()
    model_dir, out_dir = Path(model_dir), Path(out_dir)
    tmp = Path(str(out_dir) + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "onnx").mkdir(parents=True)
    kind, backend = block["kind"], block["backend"]
    model = _load_torch_model(model_dir, kind)
    names, sample = _input_names(model)
    with torch.inference_mode(False), torch.no_grad():
        opset = _export_graph(_graph(model, names, OUTPUTS[kind]), sample, names, OUTPUTS[kind], tmp / ONNX_FILE)
    probe = _probe_features(model, kind, names)
    expected = _torch_outputs(model, probe, OUTPUTS[kind])
    fused = _optimise(tmp / ONNX_FILE, probe, expected, backend)
    fp32_difference = _max_difference(_run(tmp / ONNX_FILE, probe, backend), expected)
    if fp32_difference > fp32_limit(expected):
        raise PairbenchError(
            f"models.{key}: the ONNX export of {model_dir} differs from the torch model by {fp32_difference:.2e} "
            f"(over {fp32_limit(expected):.2g}) on the probe sentences; score this model with `backend: torch`"
        )
    manifest = _manifest(model, model_dir, block, names, opset, fused, fp32_difference)
    if block.get("onnx_quantization") == "dynamic-int8":
        _quantise(tmp / ONNX_FILE, tmp / INT8_FILE)
        manifest.update(file=INT8_FILE, quantization=INT8_SETTINGS)
        manifest["fidelity"]["int8"] = _int8_fidelity(_run(tmp / INT8_FILE, probe, backend), expected, kind)
    elif backend == "onnx":
        manifest["attention_fusion"] = _fuse_attention(tmp / ONNX_FILE, probe, expected)
        if manifest["attention_fusion"]["applied"]:
            manifest["fidelity"]["fp32_max_abs_difference"] = manifest["attention_fusion"]["max_abs_difference"]
    _save_folder_files(model, model_dir, tmp)
    manifest["files"] = {name: (tmp / name).stat().st_size for name in (ONNX_FILE, manifest["file"])}
    manifest["export_seconds"] = round(time.perf_counter() - started, 2)
    (tmp / EXPORT_MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    shutil.rmtree(out_dir, ignore_errors=True)
    tmp.rename(out_dir)
    log.info("exported %s (%s) in %.1fs: %s", model_dir, backend, manifest["export_seconds"], manifest["files"])
    return manifest


def _load_torch_model(model_dir: Path, kind: str):
    from sentence_transformers import CrossEncoder, SentenceTransformer

    # The folder was checked against its kind by its fetch job (hub) or at load (local).
    cls = CrossEncoder if kind == "cross" else SentenceTransformer
    model = cls(str(model_dir), device="cpu", local_files_only=True, model_kwargs={"dtype": "float32"})
    return model.eval()


def _graph_class():
    import torch

    class Graph(torch.nn.Module):
        """The library model's forward pass on named tensors, one output."""

        def __init__(self, model, names: list[str], output: str):
            super().__init__()
            self.model, self.names, self.output = model, names, output

        def forward(self, *inputs):
            return self.model(dict(zip(self.names, inputs)))[self.output]

    return Graph


def _graph(model, names, output):
    """The torch module that is exported (its class is made here: torch is imported lazily)."""
    return _graph_class()(model, names, output).eval()


def _input_names(model) -> tuple[list[str], dict]:
    """The tensors the model's own preprocessing gives (input_ids, attention_mask, token_type_ids...)."""
    import torch

    sample = model.preprocess(_probe_inputs(model, 2))
    names = [name for name, value in sample.items() if isinstance(value, torch.Tensor)]
    return names, sample


def _probe_inputs(model, n: int | None = None) -> list:
    texts = list(PROBE_SENTENCES[:n] if n else PROBE_SENTENCES)
    if type(model).__name__ == "CrossEncoder":
        return [(a, b) for a, b in zip(texts, texts[1:] + texts[:1])]
    return texts


def _export_graph(graph, sample: dict, names: list[str], output: str, path: Path) -> int:
    import torch

    batch, sequence = torch.export.Dim("batch"), torch.export.Dim("sequence")
    program = torch.onnx.export(
        graph,
        tuple(sample[name] for name in names),
        dynamo=True,
        dynamic_shapes={"inputs": tuple({0: batch, 1: sequence} for _ in names)},
        input_names=names,
        output_names=[output],
        external_data=False,
        verbose=False,
    )
    program.save(str(path), external_data=False)
    return int(next(o.version for o in program.model_proto.opset_import if o.domain in ("", "ai.onnx")))


def _probe_features(model, kind: str, names: list[str]) -> dict:
    features = model.preprocess(_probe_inputs(model))
    return {name: features[name].numpy().astype(np.int64) for name in names}


def _torch_outputs(model, features: dict, output: str) -> np.ndarray:
    import torch

    with torch.inference_mode():
        return model({k: torch.from_numpy(v) for k, v in features.items()})[output].float().numpy()


def _run(path: Path, features: dict, backend: str) -> np.ndarray:
    return open_runner(path, backend, threads=1)(features)


def _max_difference(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a.astype(np.float64) - b.astype(np.float64)).max())


def fp32_limit(expected) -> float:
    """The largest difference to torch an fp32 export may have: :data:`FP32_TOLERANCE` of the
    output's scale (absolute for outputs within [-1, 1], such as normalised embeddings; for a
    cross-encoder's logits, relative to the largest), as float32 rounding scales with the values."""
    return FP32_TOLERANCE * max(1.0, float(np.abs(np.asarray(expected, dtype=np.float64)).max()))


def _optimise(path: Path, probe: dict, expected: np.ndarray, backend: str) -> dict:
    """ONNX Runtime's transformer fusions, kept if the fused graph is as close as the plain one."""
    from onnxruntime.transformers.optimizer import optimize_model

    fused_path = path.with_name("model_fused.onnx")
    try:
        optimised = optimize_model(str(path), model_type="bert", num_heads=0, hidden_size=0, opt_level=0)
        statistics = {op: int(n) for op, n in optimised.get_fused_operator_statistics().items() if n}
        optimised.save_model_to_file(str(fused_path))
    except Exception as err:  # the optimiser is an extra: the plain export stands without it
        log.warning("ONNX Runtime's optimiser failed (%s: %s); the plain export is kept", type(err).__name__, err)
        return {"applied": False, "why": f"{type(err).__name__}: {err}"}
    difference = _max_difference(_run(fused_path, probe, backend), expected)
    if difference > fp32_limit(expected):
        fused_path.unlink()
        return {"applied": False, "operators": statistics, "why": f"max difference {difference:.2e} to torch"}
    fused_path.replace(path)
    return {"applied": True, "operators": statistics}


def _fuse_attention(path: Path, probe: dict, expected: np.ndarray) -> dict:
    """onnxscript's ONNX Runtime fusions (``ort_fusions.optimize_for_ort``): attention into
    ``com.microsoft.Attention``, SkipLayerNormalization, BiasGelu. Float32 ONNX Runtime only (the int8
    graph is quantised before, OpenVINO reads the plain graph); kept if still within
    :data:`FP32_TOLERANCE` of torch."""
    from collections import Counter

    import onnx_ir as ir
    from onnxscript.rewriter.ort_fusions import optimize_for_ort

    fused_path = path.with_name("model_attention.onnx")
    try:
        graph, rewrites = optimize_for_ort(ir.load(str(path)))
        ir.save(graph, str(fused_path))
        difference = _max_difference(_run(fused_path, probe, "onnx"), expected)
    except Exception as err:  # the fusion is an extra: the graph before it stands without it
        log.warning("onnxscript's ONNX Runtime fusions failed (%s: %s); the graph is kept", type(err).__name__, err)
        fused_path.unlink(missing_ok=True)
        return {"applied": False, "why": f"{type(err).__name__}: {err}"}
    ops = Counter(node.op_type for node in graph.graph if node.domain == "com.microsoft")
    out = {"rewrites": {k: int(n) for k, n in rewrites.items() if n}, "operators": dict(sorted(ops.items()))}
    if difference > fp32_limit(expected):
        fused_path.unlink()
        return {"applied": False, **out, "why": f"max difference {difference:.2e} to torch"}
    fused_path.replace(path)
    return {"applied": True, **out, "max_abs_difference": difference}


def _quantise(source: Path, target: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(
        source,
        target,
        per_channel=INT8_SETTINGS["per_channel"],
        op_types_to_quantize=list(INT8_SETTINGS["op_types_to_quantize"]),
        weight_type=getattr(QuantType, INT8_SETTINGS["weight_type"]),
        reduce_range=INT8_SETTINGS["reduce_range"],
    )


def _int8_fidelity(int8: np.ndarray, expected: np.ndarray, kind: str) -> dict:
    out = {"max_abs_difference": round(_max_difference(int8, expected), 6)}
    if kind == "bi":
        cos = (int8 * expected).sum(1) / np.linalg.norm(int8, axis=1) / np.linalg.norm(expected, axis=1)
        out.update(mean_cosine_to_fp32=round(float(cos.mean()), 6), min_cosine_to_fp32=round(float(cos.min()), 6))
    return out


def _manifest(model, model_dir: Path, block: dict, names, opset: int, fused: dict, difference: float) -> dict:
    import importlib.metadata

    from pairbench.core.io import folder_fingerprint
    from pairbench.core.sources import read_manifest

    versions = {}
    for package in ("torch", "onnx", "onnxscript", "onnxruntime", "openvino", "sentence-transformers"):
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = None
    manifest = {
        "backend": block["backend"],
        "kind": block["kind"],
        "from": str(model_dir),
        "source": read_manifest(model_dir),
        "source_fingerprint": folder_fingerprint(model_dir),
        "form": "onnx " + (block.get("onnx_quantization") or "fp32"),
        "onnx_quantization": block.get("onnx_quantization"),
        "exporter": EXPORTER,
        "opset": opset,
        "optimizer": fused,
        "inputs": list(names),
        "output": OUTPUTS[block["kind"]],
        "file": ONNX_FILE,
        "max_seq_length": model.max_seq_length,
        "versions": versions,
        "fidelity": {"probe_sentences": len(PROBE_SENTENCES), "fp32_max_abs_difference": difference},
    }
    return manifest | _kind_facts(model, block["kind"])


def _kind_facts(model, kind: str) -> dict:
    if kind == "cross":
        activation = getattr(model, "activation_fn", None)
        path = f"{type(activation).__module__}.{type(activation).__qualname__}" if activation is not None else None
        return {"num_labels": model.num_labels, "activation_fn": path}
    width = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    return {"dimension": width(), "do_lower_case": _do_lower_case(model)}


def _do_lower_case(model) -> bool:
    return bool(getattr(model[0], "do_lower_case", False))


def _save_folder_files(model, model_dir: Path, tmp: Path) -> None:
    """The source's small files (configs, tokenizer, pairbench_source.json; no weights), then the
    tokenizer as the library loaded it (its model_max_length is the model's max_seq_length)."""
    for path in sorted(model_dir.rglob("*")):
        relative = path.relative_to(model_dir)
        if not path.is_file() or path.suffix in WEIGHT_SUFFIXES or relative.parts[0] in ("onnx", "openvino", ".git"):
            continue
        if relative.name == EXPORT_MANIFEST:
            continue
        (tmp / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, tmp / relative)
    model.tokenizer.save_pretrained(str(tmp))
