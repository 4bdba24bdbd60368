"""backend onnx / openvino (pairbench.study.onnx_export, onnx_runtime): the export equals the torch
model in float32, int8 keeps the ranking, and the manifest and the shard's metadata say how."""

import json

import numpy as np
import polars as pl
import pytest
import torch
from scipy.stats import spearmanr

from conftest import REPO, copy_workflow, snakemake, write_config
from pairbench.core.errors import ConfigError, PairbenchError
from pairbench.core.io import folder_fingerprint
from pairbench.study import forms
from pairbench.study.kinds import ScoringSettings, check_model_settings
from pairbench.study.onnx_export import FP32_TOLERANCE, INT8_SETTINGS
from pairbench.study.onnx_runtime import load_exported
from pairbench.study.score_suite import score_suite_to_shard
from pairbench.study.scoring import cross_logits, encode_sentences, load_bi_encoder, load_cross_encoder, score_cross
from pairbench.study.shards import read_shard_metadata
from pairbench.study.suite import load_suite
from pairbench.testing import packaged_minilm_dir

SUITE = REPO / "resources/suites/compositional.tsv"
INT8 = {"backend": "onnx", "onnx_quantization": "dynamic-int8"}


def sentences():
    suite = load_suite(SUITE)
    return suite["sentence1"].to_list(), suite["sentence2"].to_list()


def export(tmp_path_factory, model_dir, kind, **form):
    out = tmp_path_factory.mktemp("exports") / f"{kind}-{form.get('onnx_quantization') or 'fp32'}"
    forms.export_model(model_dir, out, {"kind": kind, "backend": "onnx", "onnx_quantization": None, **form})
    return out


@pytest.fixture(scope="module")
def tiny_exports(tiny_models, tmp_path_factory):
    return {
        "bi": export(tmp_path_factory, tiny_models["bi"], "bi"),
        "bi-int8": export(tmp_path_factory, tiny_models["bi"], "bi", onnx_quantization="dynamic-int8"),
        "cross": export(tmp_path_factory, tiny_models["cross"], "cross"),
        "nli": export(tmp_path_factory, tiny_models["nli"], "cross"),
    }


@pytest.fixture(scope="module")
def minilm_exports(tmp_path_factory):
    """The packaged all-MiniLM-L6-v2 exported once per module (about 10 s each)."""
    return {
        "fp32": export(tmp_path_factory, packaged_minilm_dir(), "bi"),
        "int8": export(tmp_path_factory, packaged_minilm_dir(), "bi", onnx_quantization="dynamic-int8"),
    }


def library_encode(model_dir, texts):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(model_dir), device="cpu").encode(texts, batch_size=16)


def onnx_encode(folder, texts, **form):
    settings = ScoringSettings(kind="bi", batch_size=16, **{"backend": "onnx", **form})
    return encode_sentences(load_bi_encoder(folder, settings, "cpu"), texts, batch_size=16)


def cosine(a, b):
    return (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)


def shard(tmp_path, folder, name, kind="bi", **form):
    out = tmp_path / f"{name}.parquet"
    config = {"kind": kind, "source": f"path:{folder}", "batch_size": 8, **form}
    score_suite_to_shard(SUITE, folder, name, config, out, suite_name="compositional", threads=2)
    return pl.read_parquet(out), read_shard_metadata(out)


def test_onnx_fp32_embeddings_equal_the_library_encode_on_a_tiny_model_and_on_minilm(
    tiny_models, tiny_exports, minilm_exports
):
    s1, s2 = sentences()
    texts = list(dict.fromkeys(s1 + s2))
    for source, folder, n in (
        (tiny_models["bi"], tiny_exports["bi"], None),
        (packaged_minilm_dir(), minilm_exports["fp32"], 300),
    ):
        ours, theirs = onnx_encode(folder, texts[:n]), library_encode(source, texts[:n])
        assert ours.shape == theirs.shape
        assert np.abs(ours - theirs).max() <= FP32_TOLERANCE


def test_onnx_fp32_cross_encoder_logits_and_scores_equal_torch(tiny_models, tiny_exports):
    s1, s2 = sentences()
    for name, form in (("cross", {}), ("nli", {"label": "entailment"})):
        torch_model = load_cross_encoder(tiny_models[name], ScoringSettings(kind="cross", dtype="float32"), "cpu")
        settings = ScoringSettings(kind="cross", backend="onnx", **form)
        onnx_model = load_cross_encoder(tiny_exports[name], settings, "cpu")
        ours, theirs = cross_logits(onnx_model, s1, s2, batch_size=8), cross_logits(torch_model, s1, s2, batch_size=8)
        assert ours.shape == theirs.shape == (len(s1), 1 if name == "cross" else 3)
        assert np.abs(ours - theirs).max() <= FP32_TOLERANCE
        raw, score, how = score_cross(onnx_model, s1, s2, settings)
        raw_t, score_t, how_t = score_cross(torch_model, s1, s2, ScoringSettings(kind="cross", **form))
        assert how == how_t == ("sigmoid" if name == "cross" else "softmax[entailment]")
        np.testing.assert_allclose(score, score_t, rtol=0, atol=FP32_TOLERANCE)
        assert 0 < score.min() and score.max() < 1  # the activation really applied


def test_onnx_int8_keeps_the_ranking_of_minilm_and_really_quantises(minilm_exports):
    s1, s2 = sentences()
    texts = list(dict.fromkeys(s1 + s2))
    fp32 = onnx_encode(minilm_exports["fp32"], texts)
    int8 = onnx_encode(minilm_exports["int8"], texts, onnx_quantization="dynamic-int8")
    per_sentence = cosine(int8, fp32)
    assert per_sentence.mean() >= 0.98 and per_sentence.min() >= 0.95
    assert np.abs(int8 - fp32).max() > 1e-3  # int8 weights, not the float32 graph again
    index = {text: i for i, text in enumerate(texts)}
    rows1, rows2 = [index[t] for t in s1], [index[t] for t in s2]
    rho = spearmanr(cosine(int8[rows1], int8[rows2]), cosine(fp32[rows1], fp32[rows2]))[0]
    assert rho >= 0.98


def test_the_manifest_and_the_shard_record_the_export_and_its_int8_settings(tmp_path, tiny_models, tiny_exports):
    manifest = json.loads((tiny_exports["bi-int8"] / forms.EXPORT_MANIFEST).read_text())
    assert manifest["backend"] == "onnx" and manifest["onnx_quantization"] == "dynamic-int8"
    assert manifest["form"] == "onnx dynamic-int8" and manifest["file"] == forms.INT8_FILE
    assert manifest["source_fingerprint"] == folder_fingerprint(tiny_models["bi"])
    assert manifest["from"] == str(tiny_models["bi"]) and manifest["opset"] >= 18
    quantization = manifest["quantization"]
    assert (quantization["per_channel"], quantization["op_types_to_quantize"], quantization["weight_type"]) == (
        True,
        ["MatMul"],
        "QInt8",
    )
    assert quantization["reduce_range"] is False
    assert manifest["fidelity"]["fp32_max_abs_difference"] <= FP32_TOLERANCE
    assert {"torch", "onnx", "onnxruntime"} <= {k for k, v in manifest["versions"].items() if v}
    assert manifest["optimizer"]["applied"] in (True, False) and "operators" in manifest["optimizer"]
    assert (tiny_exports["bi-int8"] / forms.INT8_FILE).stat().st_size == manifest["files"][forms.INT8_FILE]
    assert not list(tiny_exports["bi-int8"].glob("*.safetensors"))  # the graph holds the weights
    frame, meta = shard(tmp_path, tiny_exports["bi-int8"], "int8", **INT8)
    assert meta["backend"] == "onnx" and meta["onnx_quantization"] == "dynamic-int8"
    assert json.loads(meta["onnx_quantization_settings"]) == INT8_SETTINGS
    assert meta["runtime"].startswith("onnxruntime ")
    recorded = json.loads(meta["export"])
    assert recorded["file"] == forms.INT8_FILE and recorded["source_fingerprint"] == manifest["source_fingerprint"]
    assert frame.height == len(load_suite(SUITE)) and frame["score"].is_finite().all()


def test_fp32_exports_fuse_attention_and_the_shard_says_what_fused(tiny_exports):
    for name in ("bi", "cross"):
        fusion = json.loads((tiny_exports[name] / forms.EXPORT_MANIFEST).read_text())["attention_fusion"]
        assert fusion["applied"] is True and fusion["max_abs_difference"] <= FP32_TOLERANCE
        assert fusion["operators"]["Attention"] == fusion["rewrites"]["attention"] == 2  # one per layer
        assert fusion["operators"]["SkipLayerNormalization"] >= 2
    settings = ScoringSettings(kind="cross", backend="onnx")
    recorded = load_cross_encoder(tiny_exports["cross"], settings, "cpu").export_metadata()["export"]
    assert recorded["fused_operators"]["Attention"] == 2
    int8 = json.loads((tiny_exports["bi-int8"] / forms.EXPORT_MANIFEST).read_text())
    assert "attention_fusion" not in int8  # int8 is quantised from the graph before it (MatMul per channel)


def test_a_shard_scored_with_backend_onnx_equals_the_torch_shard(tmp_path, tiny_models, tiny_exports):
    ours, meta = shard(tmp_path, tiny_exports["bi"], "onnx", backend="onnx")
    theirs, _ = shard(tmp_path, tiny_models["bi"], "torch", dtype="float32")
    np.testing.assert_allclose(ours["score"].to_numpy(), theirs["score"].to_numpy(), rtol=0, atol=FP32_TOLERANCE)
    assert meta["backend"] == "onnx" and "onnx_quantization" not in meta and "onnx_quantization_settings" not in meta
    cross, cross_meta = shard(tmp_path, tiny_exports["cross"], "cross-onnx", kind="cross", backend="onnx")
    torch_cross, _ = shard(tmp_path, tiny_models["cross"], "cross-torch", kind="cross", dtype="float32")
    np.testing.assert_allclose(cross["raw"].to_numpy(), torch_cross["raw"].to_numpy(), rtol=0, atol=FP32_TOLERANCE)
    assert cross_meta["normalisation"] == "sigmoid" and cross_meta["runtime"].startswith("onnxruntime ")


def test_openvino_runs_the_onnx_export_as_torch_does(tiny_models, tiny_exports):
    s1, _ = sentences()
    texts = list(dict.fromkeys(s1))
    ours = onnx_encode(tiny_exports["bi"], texts, backend="openvino")
    assert np.abs(ours - library_encode(tiny_models["bi"], texts)).max() <= FP32_TOLERANCE
    int8 = onnx_encode(tiny_exports["bi-int8"], texts, backend="openvino", onnx_quantization="dynamic-int8")
    np.testing.assert_allclose(
        int8, onnx_encode(tiny_exports["bi-int8"], texts, onnx_quantization="dynamic-int8"), rtol=0, atol=1e-3
    )


def test_an_export_that_does_not_fit_the_settings_is_refused_in_one_line(tiny_models, tiny_exports):
    with pytest.raises(PairbenchError) as err:
        load_exported(tiny_exports["bi"], ScoringSettings(kind="bi", **INT8), key="m")
    assert str(err.value) == (
        f"models.m: the export in {tiny_exports['bi']} is of kind 'bi' with onnx_quantization None, not 'bi' "
        f"with 'dynamic-int8'; delete {tiny_exports['bi']} so that rule export_model exports it again"
    )
    with pytest.raises(PairbenchError, match=r"^models\.m: .* holds no pairbench_export\.json, so it is not an export"):
        load_bi_encoder(tiny_models["bi"], ScoringSettings(kind="bi", backend="onnx"), "cpu", key="m")


def test_backend_settings_that_cannot_work_stop_at_load_in_one_line(monkeypatch):
    def check(block):
        with pytest.raises(ConfigError) as err:
            check_model_settings({"source": "pkg:x/y", **block}, key="m")
        assert "\n" not in str(err.value)
        return str(err.value)

    assert check({"kind": "bi", "onnx_quantization": "dynamic-int8"}).startswith(
        "models.m.onnx_quantization: 'dynamic-int8' needs `backend: onnx` (or openvino)"
    )
    assert check({"kind": "bi", "backend": "onnx", "dtype": "bfloat16"}).startswith(
        "models.m.dtype: 'bfloat16' applies to the torch backend only"
    )
    assert check({"kind": "bi", "backend": "onnx", "device": "cuda"}) == (
        "models.m.device: 'cuda': backend 'onnx' runs on the CPU; set `device: cpu` (or auto) or `backend: torch`"
    )
    causal = {"template": "{query} {document}"}
    assert check({"kind": "cross", "backend": "onnx", "causal_lm": causal}).startswith(
        "models.m.backend: 'onnx' exports sequence-classification cross-encoders, not a causal-LM reranker"
    )
    check_model_settings({"kind": "cross", "source": "pkg:x/y", **INT8}, key="m")  # installed: no error
    real = forms.importlib.util.find_spec
    monkeypatch.setattr(forms.importlib.util, "find_spec", lambda name: None if name == "onnxruntime" else real(name))
    assert check({"kind": "bi", "backend": "onnx"}) == (
        "models.m.backend: 'onnx' needs the Python packages onnxruntime, which are not installed; install "
        "pairbench with its dependencies (`pip install -e .` in its checkout) or `pip install onnxruntime onnx "
        "onnxscript`, or remove the setting (backend: torch)"
    )


@pytest.mark.e2e
def test_the_export_rule_exports_once_and_again_when_the_form_changes(tmp_path, tiny_models):
    workdir = copy_workflow(tmp_path / "wf")
    block = {"kind": "bi", "source": f"path:{tiny_models['bi']}", "backend": "onnx"}
    off = {"cross_encoder": {"enabled": False}, "frozen_features": {"enabled": False}, "celi": {"enabled": False}}
    write_config(workdir, {"models": {"tiny-onnx": block}, "training": off}, "onnx.yaml")
    target = "resources/exports/tiny-onnx"
    snakemake(workdir, target, "--cores", "1", "--configfile", "onnx.yaml")
    manifest = json.loads((workdir / target / forms.EXPORT_MANIFEST).read_text())
    assert manifest["form"] == "onnx fp32" and (workdir / target / "onnx/model.onnx").exists()
    assert manifest["source_fingerprint"] == folder_fingerprint(workdir / "resources/models/tiny-onnx")
    assert "rule export_model" not in snakemake(workdir, target, "-n", "--configfile", "onnx.yaml").stdout
    write_config(workdir, {"models": {"tiny-onnx": {**block, **INT8}}, "training": off}, "onnx.yaml")
    plan = snakemake(workdir, target, "-n", "--configfile", "onnx.yaml").stdout
    assert "rule export_model:" in plan and "rule fetch_model:" not in plan


@pytest.fixture(autouse=True)
def _two_threads():
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)
