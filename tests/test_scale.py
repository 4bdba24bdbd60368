"""Scoring at scale: streamed shards, part jobs gathered into one shard, the cost table, flat memory."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest

from conftest import REPO, copy_workflow, planned_jobs, snakemake, write_config
from pairbench.study import stats
from pairbench.study.cost import COST_COLUMNS, cost, cost_points
from pairbench.study.score_suite import gather_parts, score_suite_to_shard, suite_pair_count
from pairbench.study.scoring import ScoringSettings, load_bi_encoder, score_bi
from pairbench.study.shards import COST_KEYS, METADATA_KEYS, read_shard_metadata, write_shard
from pairbench.study.suite import CATEGORIES, load_suite

SUITE = REPO / "resources/suites/compositional.tsv"


def repeating_suite(path, n_pairs: int, n_sentences: int):
    """n_pairs pairs over n_sentences distinct sentences, so a sentence comes back in later chunks."""
    lines = ["pair_id\tcategory\tsentence1\tsentence2"]
    seen = set()
    starts = [*range(0, n_sentences, 2), *range(1, n_sentences, 2)]
    candidates = ((a, (a + k) % n_sentences) for k in range(1, n_sentences) for a in starts)
    for a, b in candidates:
        if len(lines) > n_pairs:
            break
        if (min(a, b), max(a, b)) in seen:
            continue
        seen.add((min(a, b), max(a, b)))
        cat = CATEGORIES[len(lines) % len(CATEGORIES)]
        lines.append(f"p{len(lines)}\t{cat}\tThe cat number {a} sat down.\tThe cat number {b} sat down.")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_streamed_shard_matches_one_pass_and_encodes_each_sentence_once(tmp_path, tiny_models):
    suite = repeating_suite(tmp_path / "rep.tsv", 300, 120)
    config = {"kind": "bi", "source": f"path:{tiny_models['bi']}", "batch_size": 8}
    meta = score_suite_to_shard(
        suite, tiny_models["bi"], "tiny", config, tmp_path / "s.parquet", threads=1, chunk_pairs=37
    )
    frame = load_suite(suite)
    settings = ScoringSettings(kind="bi", batch_size=8)
    expected, _ = score_bi(
        load_bi_encoder(tiny_models["bi"], settings, "cpu"),
        frame["sentence1"].to_list(),
        frame["sentence2"].to_list(),
        settings,
    )
    shard = pl.read_parquet(tmp_path / "s.parquet")
    assert shard["pair_id"].to_list() == frame["pair_id"].to_list()
    np.testing.assert_allclose(shard["score"].to_numpy(), expected, atol=1e-5)
    assert meta["pairs"] == 300 and meta["sentences_encoded"] == 120  # each distinct sentence once
    stored = read_shard_metadata(tmp_path / "s.parquet")
    assert set(METADATA_KEYS) | set(COST_KEYS) <= set(stored)
    assert stored["device"] == "cpu" and stored["batch_size"] == "8" and stored["threads"] == "1"
    assert float(stored["scoring_seconds"]) > 0 and float(stored["loading_seconds"]) > 0
    assert pq.ParquetFile(tmp_path / "s.parquet").metadata.num_row_groups == 9  # ceil(300 / 37)


def test_a_suite_with_anchor_and_rule_columns_is_scored_like_any_suite(tmp_path, tiny_models):
    plain = load_suite(REPO / "resources/suites/compositional.tsv").head(40)
    with_groups = plain.with_columns(pl.lit("a1").alias("anchor"), pl.lit("r").alias("rule"))
    suite = tmp_path / "anchored.tsv"
    with_groups.write_csv(suite, separator="\t", quote_style="never")
    config = {"kind": "bi", "source": f"path:{tiny_models['bi']}", "batch_size": 8}
    score_suite_to_shard(suite, tiny_models["bi"], "tiny", config, tmp_path / "s.parquet", threads=1, chunk_pairs=16)
    shard = pl.read_parquet(tmp_path / "s.parquet")
    assert shard.select("pair_id", "category", "sentence1", "sentence2").equals(plain)


def test_parts_gather_into_the_one_job_shard(tmp_path, tiny_models):
    config = {"kind": "cross", "source": f"path:{tiny_models['cross']}", "batch_size": 8}
    whole = score_suite_to_shard(SUITE, tiny_models["cross"], "tc", config, tmp_path / "whole.parquet", threads=1)
    n = suite_pair_count(SUITE)
    assert n == load_suite(SUITE).height
    parts = []
    for part in range(-(-n // 100)):
        parts.append(tmp_path / f"parts/{part}.parquet")
        score_suite_to_shard(
            SUITE, tiny_models["cross"], "tc", config, parts[-1], threads=1, part=part, pairs_per_job=100
        )
    gathered = gather_parts(list(reversed(parts)), tmp_path / "gathered.parquet")  # sorted by part number
    a, b = pl.read_parquet(tmp_path / "whole.parquet"), pl.read_parquet(tmp_path / "gathered.parquet")
    assert a.select("pair_id", "category", "sentence1", "sentence2").equals(
        b.select("pair_id", "category", "sentence1", "sentence2")
    )
    np.testing.assert_allclose(b["score"].to_numpy(), a["score"].to_numpy(), atol=1e-5)
    assert set(gathered) == {k for k in whole if k != "part"}
    assert int(gathered["pairs"]) == n == int(gathered["sentences_encoded"])
    assert "part" not in read_shard_metadata(tmp_path / "gathered.parquet")


def test_cost_table_values_by_hand(tmp_path):
    frame = pl.DataFrame(
        {
            "pair_id": ["a", "b"],
            "category": ["negation", "positive_control"],
            "sentence1": ["x", "y"],
            "sentence2": ["z", "w"],
            "raw": [0.2, 0.9],
            "score": [0.2, 0.9],
        }
    )
    base = dict.fromkeys(METADATA_KEYS, "x")
    write_shard(
        frame,
        tmp_path / "fast.parquet",
        {
            **base,
            "model": "fast",
            "kind": "bi",
            "device": "cpu",
            "dtype": "float32",
            "batch_size": 32,
            "threads": 2,
            "pairs": 2000,
            "sentences_encoded": 3000,
            "scoring_seconds": 4.0,
            "loading_seconds": 1.5,
        },
    )
    write_shard(frame, tmp_path / "old.parquet", {**base, "model": "old", "kind": "cross"})  # no timings recorded
    table = cost([tmp_path / "old.parquet", tmp_path / "fast.parquet"])
    assert list(table.columns) == list(COST_COLUMNS)
    fast = table.row(0, named=True)
    assert fast == {
        "model": "fast",
        "kind": "bi",
        "device": "cpu",
        "dtype": "float32",
        "batch_size": 32,
        "threads": 2,
        "n_pairs": 2000,
        "seconds": 4.0,
        "pairs_per_second": 500.0,
        "load_seconds": 1.5,
        "truncate_dim": None,
        "quantize": None,
        "backend": None,
        "onnx_quantization": None,
        "peak_gpu_mb": None,  # scored off CUDA
    }
    old = table.row(1, named=True)
    assert old["n_pairs"] == 2 and old["seconds"] is None and old["pairs_per_second"] is None
    separation = pl.DataFrame({"model": ["fast", "fast", "old"], "auc": [0.6, 0.8, 0.9]})
    points = cost_points(table, separation)
    assert points.rows() == [("fast", "bi", 500.0, pytest.approx(0.7))]


def test_large_samples_use_the_normal_interval():
    x = np.random.default_rng(0).normal(0.3, 0.1, stats.BOOTSTRAP_MAX_N + 1)
    low, high = stats.bootstrap_mean_interval(x)
    half = 1.959963984540054 * x.std(ddof=1) / np.sqrt(len(x))
    assert low == pytest.approx(x.mean() - half, abs=1e-12) and high == pytest.approx(x.mean() + half, abs=1e-12)


@pytest.fixture(scope="module")
def part_run(tmp_path_factory, tiny_models):
    """The study's cost table and figure with every (suite, model) split into part jobs of 100 pairs."""
    workdir = copy_workflow(tmp_path_factory.mktemp("parts"))
    write_config(
        workdir,
        {
            "models": {
                "tiny-bi": {"kind": "bi", "source": f"path:{tiny_models['bi']}", "batch_size": 16},
                "tiny-cross": {"kind": "cross", "source": f"path:{tiny_models['cross']}", "batch_size": 16},
            },
            "suites": {"compositional": "resources/suites/compositional.tsv"},
            "scoring": {"threads": 1, "pairs_per_job": 100, "chunk_pairs": 40},
            "training": {},
        },
    )
    snakemake(
        workdir, "--cores", "2", "results/tables/compositional/cost.csv", "results/figures/compositional/cost.png"
    )
    return workdir


@pytest.mark.e2e
def test_part_jobs_each_have_a_benchmark_and_gather_to_the_one_job_shard(part_run, tiny_models, tmp_path):
    n = suite_pair_count(SUITE)
    parts = -(-n // 100)
    assert json.loads((part_run / "results/scores/compositional/pairs.json").read_text())["pairs"] == n
    for model in ("tiny-bi", "tiny-cross"):
        for part in range(parts):
            bench = pl.read_csv(
                part_run / f"results/benchmarks/score_part/compositional/{model}/{part}.tsv", separator="\t"
            )
            assert bench["max_rss"][0] > 0
        assert not (part_run / f"results/scores/compositional/parts/{model}/0.parquet").exists()  # temp()
    config = {"kind": "bi", "source": f"path:{tiny_models['bi']}", "batch_size": 16}
    one = score_suite_to_shard(
        SUITE, tiny_models["bi"], "tiny-bi", config, tmp_path / "one.parquet", suite_name="compositional", threads=1
    )
    gathered = part_run / "results/scores/compositional/tiny-bi.parquet"
    a, b = pl.read_parquet(tmp_path / "one.parquet"), pl.read_parquet(gathered)
    assert b["pair_id"].to_list() == a["pair_id"].to_list()
    np.testing.assert_allclose(b["score"].to_numpy(), a["score"].to_numpy(), atol=1e-5)
    meta = read_shard_metadata(gathered)
    assert set(meta) == {k for k in one if k != "part"}
    for key in (
        "model",
        "source",
        "kind",
        "normalisation",
        "suite",
        "suite_sha256",
        "dtype",
        "device",
        "batch_size",
        "threads",
    ):
        assert meta[key] == str(one[key]), key
    assert int(meta["pairs"]) == n
    table = pl.read_csv(part_run / "results/tables/compositional/cost.csv")
    assert table.columns == list(COST_COLUMNS)
    assert table["model"].to_list() == ["tiny-bi", "tiny-cross"] and table["n_pairs"].to_list() == [n, n]
    np.testing.assert_allclose(table["pairs_per_second"].to_numpy(), n / table["seconds"].to_numpy(), rtol=1e-4)
    assert (part_run / "results/figures/compositional/cost.png").stat().st_size > 1000


@pytest.mark.e2e
def test_adding_a_model_plans_only_its_part_jobs(part_run, tiny_models):
    extra = write_config(
        part_run, {"models": {"tiny-bi-2": {"kind": "bi", "source": f"path:{tiny_models['bi2']}"}}}, "extra.yaml"
    )
    jobs = planned_jobs(part_run, "results/tables/compositional/cost.csv", "--configfile", str(extra))
    scored = {out.split("/")[-2] for rule, out in jobs if rule == "score_part"}
    assert scored == {"tiny-bi-2"}
    assert sorted({rule for rule, _ in jobs}) == ["fetch_model", "gather_scores", "score_part", "tables"]
    assert len([1 for rule, _ in jobs if rule == "score_part"]) == -(-suite_pair_count(SUITE) // 100)


@pytest.mark.e2e
def test_memory_stays_flat_when_the_suite_grows_tenfold(tmp_path, tiny_models):
    """Peak RSS (Snakemake benchmark max_rss) of one scoring job at 600 and at 6,000 pairs."""
    workdir = copy_workflow(tmp_path / "mem")
    repeating_suite(workdir / "resources/suites/small.tsv", 600, 1200)
    repeating_suite(workdir / "resources/suites/large.tsv", 6000, 12000)
    write_config(
        workdir,
        {
            "models": {"tiny-bi": {"kind": "bi", "source": f"path:{tiny_models['bi']}", "batch_size": 32}},
            "suites": {"small": "resources/suites/small.tsv", "large": "resources/suites/large.tsv"},
            "scoring": {"threads": 1, "chunk_pairs": 500},
            "training": {},
        },
    )
    snakemake(workdir, "--cores", "1", "results/scores/small/tiny-bi.parquet", "results/scores/large/tiny-bi.parquet")
    rss = {
        s: pl.read_csv(workdir / f"results/benchmarks/score_suite/{s}/tiny-bi.tsv", separator="\t")["max_rss"][0]
        for s in ("small", "large")
    }
    assert read_shard_metadata(workdir / "results/scores/large/tiny-bi.parquet")["sentences_encoded"] == "12000"
    assert rss["large"] - rss["small"] < 40, rss  # MB; holding 12,000 sentences' tokens and embeddings costs ~90


def test_a_kind_loaded_inside_its_scorer_records_no_loading_seconds(tmp_path, tiny_models, monkeypatch):
    """A CELI model is loaded by its scorer: its seconds include loading, and its cost row says nothing of loading."""
    from pairbench.celi import scoring as celi_scoring
    from pairbench.study.cost import cost_row

    suite = repeating_suite(tmp_path / "rep.tsv", 50, 30)
    monkeypatch.setattr(
        celi_scoring,
        "score_pairs",
        lambda model_dir, settings, s1, s2, device, key: (np.zeros(len(s1)), np.full(len(s1), 0.5), "sigmoid"),
    )
    config = {"kind": "celi", "source": f"path:{tiny_models['cross']}"}
    score_suite_to_shard(suite, tiny_models["cross"], "celi-x", config, tmp_path / "c.parquet", threads=1)
    stored = read_shard_metadata(tmp_path / "c.parquet")
    assert "loading_seconds" not in stored and "model loading included" in stored["scoring_seconds_note"]
    row = cost_row(tmp_path / "c.parquet")
    assert row["load_seconds"] is None and row["n_pairs"] == 50 and row["seconds"] > 0
    assert row["pairs_per_second"] == pytest.approx(50 / row["seconds"])
