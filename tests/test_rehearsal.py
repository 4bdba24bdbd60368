"""The published studies, rehearsed end to end through the real hub code path (pytest -m rehearsal).

Each study configuration runs with Snakemake in a copy of the workflow, offline
(``HF_HUB_OFFLINE=1``), against a stand-in hub cache (``pairbench.testing.hub_cache``) holding every
hub source under its real repository id: ``prefetch`` first (materialising each source through
``pairbench.core.sources``), then the run, then ``--report``. The overlays in ``tests/rehearsal/``
shrink sizes only (steps, epochs, samples, top-k, batch sizes, max length); ids, configs, columns,
labels and heads are the study's own.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import polars as pl
import pytest
import yaml
from conftest import REPO, copy_workflow, planned_jobs, snakemake

from pairbench.testing.hub_cache import STUDY_CONFIGS, fill_hub_cache

pytestmark = pytest.mark.rehearsal
OVERLAYS = REPO / "tests" / "rehearsal"


@pytest.fixture(scope="module")
def hf_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("hf-standins")
    fill_hub_cache(home, [REPO / path for path in STUDY_CONFIGS])
    return home


def rehearse(tmp_path, monkeypatch, hf_home, study: str) -> tuple:
    """prefetch, run, report: one study config plus its overlay; returns (workdir, args, jobs)."""
    monkeypatch.setenv("HF_HOME", str(hf_home))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    workdir = copy_workflow(tmp_path / study)
    shutil.copytree(OVERLAYS, workdir / "rehearsal")
    args = ["--configfile", f"config/{study}.yaml", f"rehearsal/{study}.yaml"]
    snakemake(workdir, "prefetch", "--cores", "2", *args)
    jobs = planned_jobs(workdir, *args)
    snakemake(workdir, "--cores", "2", *args, timeout=1500)
    snakemake(workdir, "--report", "results/report.zip", *args)
    assert (workdir / "results" / "report.zip").stat().st_size > 0
    return workdir, args, jobs


def assert_every_job_ran(workdir, args, jobs) -> None:
    """Every planned job left its outputs and a benchmark; a second dry run plans nothing."""
    for rule, output in jobs:
        for path in output.split(", ") if output else []:
            assert (workdir / path).exists(), (rule, path)
    assert planned_jobs(workdir, *args) == [], "jobs left to run after the rehearsal"


def assert_shards_complete(workdir) -> dict[str, pl.DataFrame]:
    """One row per pair of the suite in every shard, with finite raw output and score."""
    from pairbench.study.suite import load_suite

    config = yaml.safe_load((workdir / "config.yaml").read_text())
    shards = {}
    for suite, path in config["suites"].items():
        pair_ids = set(load_suite(workdir / path)["pair_id"].to_list())
        for shard in sorted((workdir / "results" / "scores" / suite).glob("*.parquet")):
            frame = pl.read_parquet(shard)
            assert frame.height == len(pair_ids) and set(frame["pair_id"].to_list()) == pair_ids, shard
            assert np.isfinite(frame["score"].to_numpy()).all() and np.isfinite(frame["raw"].to_numpy()).all(), shard
            shards[shard.stem] = frame
    return shards


def assert_label_probability(workdir, frame, model: str, label: str) -> None:
    """The multi-label model's score is the softmax probability of its `label` (recomputed here)."""
    import torch

    from pairbench.study.scoring import ScoringSettings, cross_logits, load_cross_encoder
    from pairbench.study.shards import read_shard_metadata

    folder = workdir / "resources" / "models" / model
    cross = load_cross_encoder(folder, ScoringSettings(kind="cross"), "cpu")
    index = {v: int(k) for k, v in cross.config.id2label.items()}[label]
    head = frame.head(8)
    logits = cross_logits(cross, head["sentence1"].to_list(), head["sentence2"].to_list())
    expected = torch.softmax(torch.from_numpy(logits), dim=1)[:, index].numpy()
    assert np.allclose(head["score"].to_numpy(), expected, atol=1e-5)
    assert np.allclose(head["raw"].to_numpy(), logits[:, index], atol=1e-5)
    meta = read_shard_metadata(workdir / "results" / "scores" / "compositional" / f"{model}.parquet")
    assert meta["normalisation"] == f"softmax[{label}]"


def test_study(tmp_path, monkeypatch, hf_home):
    workdir, args, jobs = rehearse(tmp_path, monkeypatch, hf_home, "study")
    assert_every_job_ran(workdir, args, jobs)
    shards = assert_shards_complete(workdir)
    study = yaml.safe_load((REPO / "config" / "study.yaml").read_text())["models"]
    overlay = yaml.safe_load((OVERLAYS / "study.yaml").read_text())["models"]
    enabled = {k for k in study if overlay.get(k, {}).get("enabled", True)}
    assert enabled <= set(shards)
    assert_label_probability(workdir, shards["nli-roberta-large"], "nli-roberta-large", "entailment")
    for key in enabled:
        manifest = json.loads((workdir / "resources" / "models" / key / "pairbench_source.json").read_text())
        assert manifest["source"] == study[key]["source"] and manifest["scheme"] == "hf"


def assert_last_real_token(workdir, lm: str, sentence_set: str) -> None:
    """The cached vectors of a decoder are its hidden states at each sentence's last real token.

    Recomputed one sentence at a time (no padding at all), so a vector taken at a pad position of
    a right-padded batch, or at the first token, would not match.
    """
    import torch
    from transformers import AutoModel, AutoTokenizer

    from pairbench.frozen_features.latents import LatentCache

    cache = LatentCache(workdir / "results" / "latents" / lm / sentence_set)
    assert cache.meta["pooling"] == "last" and cache.meta["model_type"] == "gpt2"
    folder = workdir / cache.meta["model_dir"]
    tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    assert tokenizer.pad_token is None  # the real gpt2-medium has none: the stage must cope
    model = AutoModel.from_pretrained(str(folder), local_files_only=True).eval()
    lengths = {s: len(tokenizer(s)["input_ids"]) for s in cache.sentences}
    probe = sorted(cache.sentences, key=lengths.get)[:2] + sorted(cache.sentences, key=lengths.get)[-1:]
    stored = cache.vectors(probe).astype(np.float32)
    for j, sentence in enumerate(probe):
        ids = tokenizer(sentence, return_tensors="pt", truncation=True, max_length=cache.meta["max_length"])
        with torch.inference_mode():
            hidden = model(**ids, output_hidden_states=True).hidden_states
        expected = np.stack([h[0, -1].float().numpy() for h in hidden])
        assert np.allclose(stored[:, j], expected, atol=2e-2, rtol=2e-2), sentence


def test_freeze_study(tmp_path, monkeypatch, hf_home):
    workdir, args, jobs = rehearse(tmp_path, monkeypatch, hf_home, "freeze-study")
    assert_every_job_ran(workdir, args, jobs)
    assert_shards_complete(workdir)
    study = yaml.safe_load((REPO / "config" / "freeze-study.yaml").read_text())["training"]["freeze"]
    (set_name, spec), = study["sentence_sets"].items()
    (lm, _), = study["lms"].items()
    # GenericsKB's generic_sentence column, and only it, fed the pretraining cache.
    from pairbench.frozen_features.latents import LatentCache

    table = pl.read_parquet(workdir / "resources" / "datasets" / spec["dataset"] / "train.parquet")
    assert spec["columns"] == ["generic_sentence"] and "generic_sentence" in table.columns
    cached = LatentCache(workdir / "results" / "latents" / lm / set_name).sentences
    overlay = yaml.safe_load((OVERLAYS / "freeze-study.yaml").read_text())["training"]["freeze"]
    assert len(cached) == overlay["sentence_sets"][set_name]["sample"]
    assert set(cached) <= set(table["generic_sentence"].to_list())
    assert not set(cached) & set(table["term"].to_list())
    assert_last_real_token(workdir, lm, set_name)
    (run, block), = study["runs"].items()
    assert (workdir / "results" / "models" / "freeze" / run).is_dir()
