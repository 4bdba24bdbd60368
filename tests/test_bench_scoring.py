"""bench/bench_scoring.py: every form's row is timed against sentence-transformers' fp32 call in
the same alternation (``vs_st_fp32``), ONNX forms are exported before timing, have no library
side, and are checked against fp32 (equal within 1e-5, or int8 fidelity reported)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.append(str(REPO / "bench"))

import bench_scoring  # noqa: E402
import scoring_forms  # noqa: E402

from pairbench.study import forms  # noqa: E402
from pairbench.testing import tiny_models  # noqa: E402

PAIRS = [
    ("A dog chases a cat.", "A cat chases a dog."),
    ("The man is not happy.", "The man is happy."),
    ("She bought a red car.", "She bought a blue car."),
    ("Two children play in the park.", "Two children play in the garden near the river."),
    ("The train left before noon.", "The train left after noon."),
    ("He rarely eats meat.", "He often eats meat."),
]


def onnx_missing() -> str | None:
    try:
        forms.check_form({"kind": "bi", "backend": "onnx"}, key="bench")
    except Exception as err:  # noqa: BLE001 - the reason is the skip's message
        return str(err)
    return None


def test_alternate_times_the_calls_in_turn_and_reports_each_median(monkeypatch):
    order, clock = [], iter(range(100))
    monkeypatch.setattr(scoring_forms.time, "perf_counter", lambda: next(clock))
    calls = [lambda name=name: order.append(name) for name in "abc"]
    # Each call takes one tick of the fake clock.
    assert scoring_forms.alternate(calls, 3) == [1, 1, 1]
    assert order == list("abcabcabc")


def test_a_form_without_library_side_is_compared_with_st_fp32_only(monkeypatch):
    runs = [[2.0, 1.0, 3.0], [0.5, 0.25, 0.75]]  # reference, pairbench
    monkeypatch.setattr(scoring_forms, "alternate_times", lambda calls, repeats: runs[: len(calls)])
    reference, ours = (lambda: None), (lambda: None)
    row = scoring_forms.timed_row(100, 3, reference, ours, None)
    assert row["library"].startswith("n/a: sentence-transformers' ONNX and OpenVINO backends need optimum")
    assert row["st_pairs_per_s"] is None and row["speedup"] is None
    assert row["st_fp32_pairs_per_s"] == 50.0 and row["pairbench_pairs_per_s"] == 200.0
    assert row["vs_st_fp32"] == 4.0 and row["vs_st_fp32_fastest_runs"] == 4.0


def test_a_torch_form_reports_both_ratios_and_fp32_times_the_reference_once(monkeypatch):
    seen = []

    def fake(calls, repeats):
        seen.append(len(calls))
        return [[2.0], [1.0], [0.5]] if len(calls) == 3 else [[2.0], [0.5]]

    monkeypatch.setattr(scoring_forms, "alternate_times", fake)
    reference, theirs, ours = (lambda: None), (lambda: None), (lambda: None)
    row = scoring_forms.timed_row(100, 3, reference, ours, theirs)
    assert (row["speedup"], row["vs_st_fp32"], row["st_pairs_per_s"]) == (2.0, 4.0, 100.0)
    row = scoring_forms.timed_row(100, 3, reference, ours, reference)  # fp32: the library call is the reference
    assert (row["speedup"], row["vs_st_fp32"]) == (4.0, 4.0)
    assert seen == [3, 2]


def test_onnx_fp32_must_equal_st_fp32_and_int8_reports_its_fidelity():
    fp32 = np.array([0.1, 0.5, 0.9, 0.3])
    ok = scoring_forms.against_fp32({"backend": "onnx"}, fp32 + 4e-6, fp32, "bi onnx")
    assert ok["max_abs_difference_to_st_fp32"] == pytest.approx(4e-6)
    with pytest.raises(SystemExit, match=r"bi onnx: ONNX fp32 differs .* by up to 2\.00e-05, over 1e-05"):
        scoring_forms.against_fp32({"backend": "onnx"}, fp32 + 2e-5, fp32, "bi onnx")
    # Logits beyond [-1, 1]: 1e-5 of the largest (float32 rounding grows with the values).
    logits = np.array([-6.0, 1.5, 8.0])
    assert scoring_forms.against_fp32({"backend": "onnx"}, logits + 7e-5, logits, "c")["tolerance"] == pytest.approx(
        8e-5
    )
    with pytest.raises(SystemExit, match=r"c: ONNX fp32 differs .* by up to 9\.00e-05, over 8e-05"):
        scoring_forms.against_fp32({"backend": "onnx"}, logits + 9e-5, logits, "c")
    int8 = {"backend": "onnx", "onnx_quantization": "dynamic-int8"}
    fidelity = scoring_forms.against_fp32(int8, np.array([0.12, 0.48, 0.95, 0.2]), fp32, "x")["fidelity_to_st_fp32"]
    assert fidelity["spearman"] == pytest.approx(1.0)
    assert fidelity["mean_abs_difference"] == pytest.approx((0.02 + 0.02 + 0.05 + 0.1) / 4)
    assert fidelity["max_abs_difference"] == pytest.approx(0.1)


def test_unknown_kinds_are_refused_by_name(capsys):
    with pytest.raises(SystemExit):
        bench_scoring.parse_args(["--kinds", "bi,crosss"])
    assert "--kinds: unknown crosss; use some of bi, cross, sparse" in capsys.readouterr().err


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("bench")
    pairs = root / "pairs.tsv"
    pairs.write_text("sentence1\tsentence2\n" + "".join(f"{a}\t{b}\n" for a, b in PAIRS), encoding="utf-8")
    return {
        "bi": tiny_models.make_tiny_bi_encoder(root / "bi"),
        "cross": tiny_models.make_tiny_cross_encoder(root / "cross"),
        "pairs": pairs,
        "root": root,
    }


def run_bench(tiny, forms_: str) -> dict:
    out = tiny["root"] / f"{forms_}.json"
    argv = ["--kinds", "bi,cross", "--forms", forms_, "--pairs-file", str(tiny["pairs"]), "--threads", "1"]
    argv += ["--repeats", "1", "--bi-model", str(tiny["bi"]), "--cross-model", str(tiny["cross"]), "--out", str(out)]
    bench_scoring.main(argv)
    return json.loads(out.read_text())


def test_every_row_is_timed_against_st_fp32_even_without_fp32_in_forms(tiny):
    results = run_bench(tiny, "int8")
    assert results["threads"] == 1 and results["n_pairs"] == len(PAIRS) and "cores" in results["device"]
    row = results["bi"]["int8"]
    assert row["vs_st_fp32"] == pytest.approx(row["pairbench_pairs_per_s"] / row["st_fp32_pairs_per_s"])
    assert row["speedup"] == pytest.approx(row["pairbench_pairs_per_s"] / row["st_pairs_per_s"])
    assert row["max_abs_difference"] < 5e-3
    assert set(results["bi"]) == {"model", "tokenization", "int8"}
    assert set(results["cross"]) == {"model", "tokenization"}  # no int8 form for cross-encoders


@pytest.mark.skipif(bool(onnx_missing()), reason=f"ONNX backend not available: {onnx_missing()}")
def test_onnx_forms_are_exported_once_and_checked_against_st_fp32(tiny):
    results = run_bench(tiny, "fp32,onnx,onnx-int8")
    for kind in ("bi", "cross"):
        fp32, onnx, int8 = (results[kind][name] for name in ("fp32", "onnx", "onnx-int8"))
        assert fp32["vs_st_fp32"] == pytest.approx(fp32["speedup"])
        for row in (onnx, int8):
            assert row["library"].startswith("n/a") and row["speedup"] is None
            assert row["vs_st_fp32"] == pytest.approx(row["pairbench_pairs_per_s"] / row["st_fp32_pairs_per_s"])
            assert row["export"]["seconds"] > 0 and row["export"]["manifest"]["backend"] == "onnx"
        assert onnx["max_abs_difference_to_st_fp32"] <= 1e-5
        assert int8["export"]["manifest"]["onnx_quantization"] == "dynamic-int8"
        fidelity = int8["fidelity_to_st_fp32"]
        assert 0 < fidelity["mean_abs_difference"] <= fidelity["max_abs_difference"] < 1e-2
    # The tiny cross-encoder's random head gives six logits closer together than int8's noise, so
    # only the bi-encoder's ranks are compared.
    assert results["bi"]["onnx-int8"]["fidelity_to_st_fp32"]["spearman"] > 0.9
