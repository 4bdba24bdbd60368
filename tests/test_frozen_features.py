"""Frozen-feature STS model: losses, autoencoders, training with dev selection, ablation, workflow plan."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import polars as pl
import pytest
import torch

from pairbench.core.config import stage_runs
from pairbench.frozen_features import ablation, autoencoders, train
from pairbench.frozen_features import config as fz_config
from pairbench.frozen_features import model as fz_model
from pairbench.frozen_features.latents import build_latent_cache

REPO = Path(__file__).resolve().parents[1]
GRADED = REPO / "resources" / "smoke" / "graded_sts"


def test_logvar_loss_matches_hand_computation():
    pred = torch.tensor([0.2, 0.5, 0.9, 0.4])
    gold = torch.tensor([0.1, 0.7, 0.4, 0.4])
    diffs = [0.1, -0.2, 0.5, 0.0]
    mean = sum(diffs) / 4
    var = sum((d - mean) ** 2 for d in diffs) / 4  # population variance
    assert fz_model.logvar_loss(pred, gold).item() == pytest.approx(math.log(var + 1e-8), rel=1e-6)
    # Invariant to a constant shift of the predictions; MSE is not.
    assert fz_model.logvar_loss(pred + 0.3, gold).item() == pytest.approx(
        fz_model.logvar_loss(pred, gold).item(), rel=1e-5
    )
    assert fz_model.mse_loss(pred, gold).item() == pytest.approx(sum(d * d for d in diffs) / 4, rel=1e-6)
    with pytest.raises(Exception, match="loss must be"):
        fz_model.loss_function("l1")


def test_bottlenecks_and_layers():
    assert fz_config.default_bottlenecks(24) == [256] * 12 + [512] * 12
    assert fz_config.default_bottlenecks(7) == [256] * 3 + [512] * 4
    assert fz_config.resolve_bottlenecks(128, 3) == [128, 128, 128]
    assert fz_config.resolve_layers([1, -1], 7) == [1, 6]
    with pytest.raises(Exception, match="does not exist"):
        fz_config.resolve_layers([7], 7)
    with pytest.raises(Exception, match="one per layer"):
        fz_config.resolve_bottlenecks([1, 2], 3)


def test_siamese_is_symmetric_and_in_unit_interval():
    encoder_cls, _, siamese_cls = fz_model.modules()
    torch.manual_seed(0)
    model = siamese_cls([encoder_cls(8, 4, 0.0) for _ in range(3)], 3, 5).eval()
    a, b = torch.randn(3, 6, 8), torch.randn(3, 6, 8)
    pa, pb = model(a, b), model(b, a)
    assert pa.shape == (6,) and torch.allclose(pa, pb) and ((pa > 0) & (pa < 1)).all()


@pytest.fixture(scope="module")
def tiny_stage(tmp_path_factory):
    """A tiny decoder's caches of a pretraining set and of a small graded STS set."""
    from pairbench.testing import make_tiny_decoder

    root = tmp_path_factory.mktemp("freeze")
    model_dir = make_tiny_decoder(root / "tiny-gpt2", layers=2)
    data = root / "graded"
    data.mkdir()
    for split, n in (("train", 120), ("dev", 40), ("test", 40)):
        lines = (GRADED / f"{split}.tsv").read_text(encoding="utf-8").splitlines()
        (data / f"{split}.tsv").write_text("\n".join(lines[: n + 1]) + "\n", encoding="utf-8")
    lm = {
        "pooling": "auto",
        "dtype": "float32",
        "cache_dtype": "float16",
        "batch_size": 16,
        "max_length": 64,
        "device": "cpu",
    }
    suite = (REPO / "resources/suites/compositional.tsv").read_text(encoding="utf-8").splitlines()
    (root / "pretrain.txt").write_text("\n".join(line.split("\t")[2] for line in suite[1:151]), encoding="utf-8")
    pre = build_latent_cache(
        model_dir=model_dir,
        lm=lm,
        sentence_set={"files": [str(root / "pretrain.txt")]},
        done_path=root / "latents/tiny/project/done.json",
        threads=1,
    )
    sts = build_latent_cache(
        model_dir=model_dir,
        lm=lm,
        sentence_set={"dataset": "graded", "format": "sts", "splits": ["train", "dev", "test"], "score_max": 5},
        dataset_dir=data,
        done_path=root / "latents/tiny/graded-pairs/done.json",
        threads=1,
    )
    assert pre["pooling"] == "last" and pre["n_layers"] == 3 and sts["n_layers"] == 3
    return {"root": root, "data": data, "pre": root / "latents/tiny/project", "sts": root / "latents/tiny/graded-pairs"}


RUN = {
    "lm": "tiny",
    "pretrain_set": "project",
    "data": "graded",
    "score_max": 5,
    "splits": {"train": "train", "dev": "dev", "test": "test"},
    "layers": None,
    "bottlenecks": [8, 8, 16],
    "dropout": 0.1,
    "autoencoder": {"epochs": 2, "batch_size": 64, "learning_rate": 0.003, "heldout": 0.1},
    "pretrained": True,
    "loss": "logvar",
    "mlp_hidden": 8,
    "epochs": 3,
    "batch_size": 16,
    "learning_rate": 0.003,
    "weight_decay": 0.0,
    "seed": 0,
    "ablation": {"enabled": True, "single_layer_variants": True, "single_layers": None},
    "device": "cpu",
    "keep_checkpoints": True,
    "smoke": False,
}


def _pretrain(stage, root: Path) -> dict:
    outputs = {
        "model": root / "m/autoencoders.pt",
        "history": root / "t/ae_history.csv",
        "table": root / "t/ae.csv",
        "md": root / "t/ae.md",
        "figure": root / "f/ae.png",
    }
    keys = ("lm", "pretrain_set", "layers", "bottlenecks", "dropout", "seed", "autoencoder")
    history = autoencoders.pretrain_from_config(
        ae={k: RUN[k] for k in keys},
        cache_dir=stage["pre"],
        outputs=outputs,
        checkpoint_dir=root / "ckpt/ae",
        threads=1,
        device="cpu",
        keep_checkpoints=RUN["keep_checkpoints"],
    )
    return {"outputs": outputs, "history": history}


def test_pretraining_writes_loss_by_layer(tiny_stage, tmp_path):
    out = _pretrain(tiny_stage, tmp_path)
    assert len(out["history"]) == 3 * 2  # layers x epochs
    table = pl.read_csv(out["outputs"]["table"])
    assert table["layer"].to_list() == [0, 1, 2] and table["bottleneck"].to_list() == [8, 8, 16]
    assert table["heldout_mse_final"].is_finite().all()
    assert Path(out["outputs"]["figure"]).stat().st_size > 0
    aes, bundle = autoencoders.load_autoencoders(out["outputs"]["model"])
    assert len(aes) == 3 and bundle["dim"] == 32
    # A rerun resumes from the finished checkpoint: same weights, no training.
    again = _pretrain(tiny_stage, tmp_path)
    assert again["history"] == out["history"]


def test_train_run_selects_on_dev_and_writes_outputs(tiny_stage, tmp_path):
    ae = _pretrain(tiny_stage, tmp_path)["outputs"]["model"]
    paths = {
        "model_path": tmp_path / "sts_model.pt",
        "metrics_path": tmp_path / "metrics/run.json",
        "predictions_path": tmp_path / "metrics/run.parquet",
    }
    payload = train.train_run(
        run_name="tiny-run",
        run=RUN,
        sts_cache=tiny_stage["sts"],
        dataset_dir=tiny_stage["data"],
        autoencoders_path=ae,
        checkpoint_dir=tmp_path / "ckpt/run",
        threads=1,
        device="cpu",
        **paths,
    )
    metrics = json.loads(paths["metrics_path"].read_text())
    assert metrics["test"]["pearson"] == payload["test"]["pearson"] and "spearman" in metrics["test"]
    assert len(metrics["dev_per_epoch"]) == 3
    best = max(metrics["dev_per_epoch"], key=lambda r: r["dev_pearson"])
    assert metrics["selected_epoch"] == best["epoch"]
    assert metrics["dev"]["pearson"] == pytest.approx(best["dev_pearson"], abs=1e-6)
    preds = pl.read_parquet(paths["predictions_path"])
    assert preds.columns == ["sentence1", "sentence2", "gold", "pred"] and preds.height == 40
    from pairbench.frozen_features.data import correlations

    assert correlations(preds["pred"].to_numpy(), preds["gold"].to_numpy())[0] == pytest.approx(
        metrics["test"]["pearson"], abs=1e-6
    )
    # Deterministic: the same seed gives the same numbers (and a finished checkpoint is reused).
    shutil.rmtree(tmp_path / "ckpt/run")
    again = train.train_run(
        run_name="tiny-run",
        run=RUN,
        sts_cache=tiny_stage["sts"],
        dataset_dir=tiny_stage["data"],
        autoencoders_path=ae,
        checkpoint_dir=tmp_path / "ckpt/run",
        threads=1,
        device="cpu",
        **paths,
    )
    assert again["test"] == payload["test"]


def test_ablation_end_to_end_on_tiny_models(tiny_stage, tmp_path):
    ae = _pretrain(tiny_stage, tmp_path)["outputs"]["model"]
    metrics = tmp_path / "run.json"
    train.train_run(
        run_name="tiny-run",
        run=RUN,
        sts_cache=tiny_stage["sts"],
        dataset_dir=tiny_stage["data"],
        autoencoders_path=ae,
        model_path=tmp_path / "m.pt",
        metrics_path=metrics,
        predictions_path=tmp_path / "p.parquet",
        threads=1,
        device="cpu",
    )
    tables = {name: (tmp_path / f"{name}.csv", tmp_path / f"{name}.md") for name in ("progression", "layer_cosine")}
    figures = {name: tmp_path / f"{name}.png" for name in ("progression", "layer_cosine")}
    ablation.run_ablation(
        run_name="tiny-run",
        run=RUN,
        sts_cache=tiny_stage["sts"],
        dataset_dir=tiny_stage["data"],
        autoencoders_path=ae,
        run_metrics_path=metrics,
        out_tables=tables,
        out_figures=figures,
        checkpoint_dir=tmp_path / "ckpt/ablation",
        threads=1,
        device="cpu",
    )
    layer = pl.read_csv(tables["layer_cosine"][0])
    assert layer.columns == ["layer", "dev_pearson", "dev_spearman", "test_pearson", "test_spearman"]
    assert layer["layer"].to_list() == [0, 1, 2]
    prog = pl.read_csv(tables["progression"][0])
    assert prog.columns == [
        "variant",
        "encoders",
        "loss",
        "layers",
        "selected_epoch",
        "dev_pearson",
        "test_pearson",
        "test_spearman",
    ]
    assert prog["variant"].to_list() == [
        "raw cosine, last layer (2)",
        f"raw cosine, best dev layer ({layer.sort('dev_pearson', descending=True)['layer'][0]})",
        "mlp-raw-cosines",
        "siamese-fresh",
        "siamese-pretrained",
        "siamese-pretrained-logvar (= run)",
        "single-layer-0",
        "single-layer-1",
        "single-layer-2",
    ]
    run = json.loads(metrics.read_text())
    full = prog.filter(pl.col("variant") == "siamese-pretrained-logvar (= run)").row(0, named=True)
    assert full["test_pearson"] == pytest.approx(run["test"]["pearson"], abs=1e-6)
    assert prog["test_pearson"].is_finite().all() and prog["test_spearman"].is_finite().all()
    raw_last = prog.row(0, named=True)
    assert raw_last["test_pearson"] == pytest.approx(layer.filter(pl.col("layer") == 2)["test_pearson"][0], abs=1e-6)
    assert "| variant" in tables["progression"][1].read_text() and all(p.stat().st_size > 0 for p in figures.values())


def test_schema_defaults_and_default_config():
    import yaml
    from snakemake.utils import validate

    config = yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))
    block = config["training"]["frozen_features"]
    validate(block, str(REPO / "workflow/schemas/frozen_features.schema.yaml"))
    run = next(iter(stage_runs(block).values()))
    assert run["loss"] == "logvar" and run["bottlenecks"] is None and run["splits"]["dev"] == "dev"
    assert run["data"] in config["datasets"]
    study = yaml.safe_load((REPO / "config/freeze-study.yaml").read_text(encoding="utf-8"))
    validate(study["training"]["frozen_features"], str(REPO / "workflow/schemas/frozen_features.schema.yaml"))
    assert study["training"]["frozen_features"]["lms"]["gpt2-medium"]["pooling"] == "last"


def freeze_workflow(work: Path, freeze_update: dict | None = None, name: str = "config.yaml") -> dict:
    """A copy of the workflow whose config holds the default config's frozen_features stage (updated).

    The stage block is written with its schema defaults filled in, as the workflow fills them.
    """
    import yaml
    from snakemake.utils import validate

    from conftest import copy_workflow, write_config
    from pairbench.core.config import deep_merge

    if not (work / "Snakefile").exists():
        copy_workflow(work)
    config = yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))
    block = deep_merge(config["training"]["frozen_features"], freeze_update or {})
    validate(block, str(work / "workflow/schemas/frozen_features.schema.yaml"))
    config["training"] = {"frozen_features": block}
    write_config(work, config, name)
    return config


def test_dry_run_plans_one_cache_per_lm_and_set(tmp_path):
    """Two runs on the same (lm, sets) share the caches: adding a run adds no latents job."""
    from conftest import planned_jobs

    work = tmp_path / "wf"
    config = freeze_workflow(work)
    runs = config["training"]["frozen_features"]["runs"]
    first = next(iter(runs))
    freeze_workflow(work, {"runs": {"second-run": {**runs[first], "loss": "mse", "seed": 1}}})
    jobs = planned_jobs(work)
    latents_jobs = [out for rule, out in jobs if rule == "frozen_features_latents"]
    lm = runs[first]["lm"]
    assert sorted(latents_jobs) == sorted(
        [
            f"results/latents/{lm}/{runs[first]['pretrain_set']}/done.json",
            f"results/latents/{lm}/{runs[first]['data']}-pairs/done.json",
        ]
    )
    for rule in ("frozen_features_pretrain", "frozen_features_train", "frozen_features_ablation"):
        assert sum(r == rule for r, _ in jobs) == 2, rule


def test_plan_adds_the_sts_set_and_names_bad_keys():
    block = {
        "lms": {"m": {"source": "pkg:x/y"}},
        "sentence_sets": {"p": {"files": ["a.txt"]}},
        "run_defaults": {"splits": {"train": "train", "dev": "dev", "test": "test"}, "ablation": {"enabled": True}},
        "runs": {
            "r1": {"lm": "m", "pretrain_set": "p", "data": "d", "score_max": 5, "splits": {"dev": "validation"}},
            "r2": {"lm": "m", "pretrain_set": "p", "data": "d", "score_max": 5, "ablation": {"enabled": False}},
        },
    }
    plan = fz_config.plan_stage(block, {"d": {"source": "path:x"}})
    assert plan["sets"]["d-pairs"]["splits"] == ["dev", "test", "train", "validation"]
    assert plan["latents"]["r1"] == {
        "pretrain": "results/latents/m/p/done.json",
        "sts": "results/latents/m/d-pairs/done.json",
    }
    assert plan["set_inputs"] == {"p": ["a.txt"], "d-pairs": ["resources/datasets/d"]}
    assert plan["ablation_runs"] == ["r1"]
    with pytest.raises(Exception, match=r"runs\.r1\.lm"):
        fz_config.plan_stage({**block, "runs": {"r1": {**block["runs"]["r1"], "lm": "nope"}}}, {"d": {}})
    with pytest.raises(Exception, match=r"runs\.r1\.data"):
        fz_config.plan_stage(block, {})


# ---------------------------------------------------------------------------------------------
# Real Snakemake jobs killed with SIGKILL: the rerun resumes and gives the uninterrupted result
# ---------------------------------------------------------------------------------------------


def start_snakemake(work: Path, *args: str):
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "snakemake", "--workflow-profile", "none", "--cores", "2", *args]
    return subprocess.Popen(cmd, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def kill_when(proc, condition, timeout: float = 120.0) -> None:
    """SIGKILL the whole Snakemake process group as soon as ``condition()`` holds."""
    import os
    import signal
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert proc.poll() is None, "the job finished before it could be killed"
        assert time.monotonic() < deadline, "the job never reached the point to kill it at"
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def tiny_stage_update(model_dir: Path, sentences: Path, *, lm: dict, run: dict) -> dict:
    return {
        # One thread: tiny matrix products on 2 threads of a loaded machine are many times slower.
        "resources": {"latents": {"threads": 1}},
        "lms": {"tiny": {"source": f"path:{model_dir}", "dtype": "float32", "device": "cpu", **lm}},
        "sentence_sets": {"many": {"files": [str(sentences)], "format": "text"}},
        "runs": {
            "minilm-graded": {"enabled": False},
            "tiny-run": {
                "lm": "tiny",
                "pretrain_set": "many",
                "data": "graded-smoke",
                "score_max": 5,
                "device": "cpu",
                "bottlenecks": 8,
                "mlp_hidden": 8,
                "autoencoder": {"epochs": 1, "batch_size": 64},
                "ablation": {"enabled": False},
                **run,
            },
        },
    }


@pytest.mark.e2e
def test_killed_latents_job_resumes_to_the_same_cache(tmp_path):
    from conftest import snakemake
    from pairbench.testing import make_tiny_bert_backbone

    model_dir = make_tiny_bert_backbone(tmp_path / "tiny-bert")
    words = ["river", "market", "violin", "garden", "engine", "letter", "window", "forest"]
    lines = [
        f"Sentence {i} mentions the {words[i % 8]} and the {words[(i * 3) % 8]}{' again' * (i % 4)}."
        for i in range(2000)
    ]
    (tmp_path / "many.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    work = tmp_path / "wf"
    freeze_workflow(
        work, tiny_stage_update(model_dir, tmp_path / "many.txt", lm={"batch_size": 1, "max_length": 32}, run={})
    )
    target = "results/latents/tiny/many/done.json"
    snakemake(work, "--cores", "2", target)
    reference = (work / "results/latents/tiny/many/layers.npy").read_bytes()

    proc = start_snakemake(
        work, target, "--forcerun", "frozen_features_latents"
    )  # --forcerun takes every name after it
    progress = work / "results/checkpoints/frozen_features/latents/tiny/many/progress.json"
    kill_when(proc, progress.exists)
    assert not (work / target).exists()
    rows_done = json.loads(progress.read_text())["rows_done"]
    assert 0 < rows_done < len(lines)
    snakemake(work, "--unlock")
    snakemake(work, "--cores", "2", target)
    meta = json.loads((work / "results/latents/tiny/many/meta.json").read_text())
    assert meta["resumed_at_row"] >= rows_done
    assert (work / "results/latents/tiny/many/layers.npy").read_bytes() == reference
    assert not progress.parent.exists()


@pytest.mark.e2e
def test_killed_training_job_resumes_to_the_same_metrics(tmp_path):
    from conftest import snakemake
    from pairbench.testing import make_tiny_bert_backbone

    model_dir = make_tiny_bert_backbone(tmp_path / "tiny-bert")
    (tmp_path / "few.txt").write_text(
        "\n".join(f"Short sentence number {i}." for i in range(60)) + "\n", encoding="utf-8"
    )
    work = tmp_path / "wf"
    freeze_workflow(
        work,
        tiny_stage_update(model_dir, tmp_path / "few.txt", lm={"batch_size": 16}, run={"epochs": 12, "batch_size": 2}),
    )
    target = "results/metrics/frozen_features/tiny-run.json"
    snakemake(work, "--cores", "2", target)
    reference = json.loads((work / target).read_text())
    checkpoints = work / "results/checkpoints/frozen_features/tiny-run"
    assert not (checkpoints / "run").exists() and not (checkpoints / "autoencoders").exists()

    proc = start_snakemake(work, target, "--forcerun", "frozen_features_train")
    kill_when(proc, (checkpoints / "run/last.pt").exists)
    assert not (work / target).exists()
    snakemake(work, "--unlock")
    snakemake(work, "--cores", "2", target)
    assert "resuming after epoch" in (work / "results/logs/frozen_features_train/tiny-run.log").read_text()
    again = json.loads((work / target).read_text())
    for key in ("dev_per_epoch", "selected_epoch", "dev", "test", "layers", "n_pairs"):
        assert again[key] == reference[key], key
    assert not (checkpoints / "run").exists()


def test_damaged_cache_names_the_command_that_rebuilds_it(tiny_stage, tmp_path):
    from pairbench.core.errors import PairbenchError
    from pairbench.frozen_features.latents import LatentCache

    damaged = tmp_path / "results/latents/tiny/project"
    shutil.copytree(tiny_stage["pre"], damaged)
    (damaged / "layers.npy").unlink()
    with pytest.raises(PairbenchError) as err:
        LatentCache(damaged)
    message = str(err.value)
    assert "\n" not in message and "layers.npy" in message
    assert f"snakemake --cores 2 {damaged / 'done.json'} --forcerun frozen_features_latents" in message


def test_smoke_runs_say_so_in_their_tables(tiny_stage, tmp_path):
    out = tmp_path / "t"
    for smoke in (False, True):
        outputs = {
            "model": out / f"{smoke}.pt",
            "history": out / f"{smoke}_h.csv",
            "table": out / f"{smoke}.csv",
            "md": out / f"{smoke}.md",
            "figure": out / f"{smoke}.png",
        }
        keys = ("lm", "pretrain_set", "layers", "bottlenecks", "dropout", "seed", "autoencoder")
        autoencoders.pretrain_from_config(
            ae={k: RUN[k] for k in keys}, cache_dir=tiny_stage["pre"], outputs=outputs, device="cpu", smoke=smoke
        )
    assert "smoke run" in (out / "True.md").read_text().lower()
    assert "smoke" not in (out / "False.md").read_text().lower()
    assert (out / "True.csv").read_text() == (out / "False.csv").read_text()
