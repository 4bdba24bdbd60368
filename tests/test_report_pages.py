"""What a newcomer reads: smoke runs marked in every table and figure, every stage table a page in
the report, and the general-quality figure's suite chosen by name, never moved without a word."""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest
import yaml

from conftest import REPO, copy_workflow, planned_jobs, snakemake
from pairbench.stages import STAGES, plan_stages, validate_config
from pairbench.study import figures
from pairbench.study import general_quality as gq
from pairbench.study.aggregate import write_suite_tables
from pairbench.study.marks import mark_smoke, model_label, smoke_trained
from pairbench.study.report_tables import (
    STAGE_CATEGORIES,
    markdown_preamble,
    stage_table_pages,
    write_stage_table_page,
)
from pairbench.study.shards import METADATA_KEYS, write_shard

MODELS = (("minilm", "bi", 0.1), ("ce-real", "cross", -0.3), ("ce-smoke", "cross", -0.4))


def write_suite_shards(folder) -> list:
    """Three models on the same 8 positive controls, 10 negation pairs and 4 near misses."""
    paths = []
    for seed, (model, kind, shift) in enumerate(MODELS):
        rng = np.random.default_rng(seed)
        rows = [
            (f"{c}-{i}", c, f"a {c} {i}", f"b {c} {i}", float(v), float(v))
            for c, n, centre in (("positive_control", 8, 0.8), ("negation", 10, 0.6 + shift), ("near_miss", 4, 0.7))
            for i, v in enumerate(rng.normal(centre, 0.1, n))
        ]
        frame = pl.DataFrame(
            rows, schema=["pair_id", "category", "sentence1", "sentence2", "raw", "score"], orient="row"
        )
        path = folder / f"{model}.parquet"
        write_shard(frame, path, {**dict.fromkeys(METADATA_KEYS, "x"), "model": model, "kind": kind})
        paths.append(path)
    return paths


def test_smoke_runs_are_marked_in_every_table_that_names_them(tmp_path):
    shards = write_suite_shards(tmp_path)
    # a smoke run of another suite counts nowhere here
    write_suite_tables(shards, tmp_path / "marked", [0.5], smoke_models=["ce-smoke", "elsewhere"])
    out = tmp_path / "marked"
    separation = pl.read_csv(out / "separation.csv")
    assert separation.columns[:3] == ["model", "kind", "smoke"]
    assert dict(separation.select("model", "smoke").unique().iter_rows()) == {
        "minilm": False,
        "ce-real": False,
        "ce-smoke": True,
    }
    for name in ("category_stats", "failure_rates", "cost"):
        table = pl.read_csv(out / f"{name}.csv")
        assert table.filter(pl.col("smoke"))["model"].unique().to_list() == ["ce-smoke"], name
    comparison = pl.read_csv(out / "model_comparison.csv")
    assert comparison.columns[1:5] == ["model_a", "model_b", "smoke_a", "smoke_b"]
    assert all(
        (a == "ce-smoke") == sa and (b == "ce-smoke") == sb
        for a, b, sa, sb in comparison.select("model_a", "model_b", "smoke_a", "smoke_b").iter_rows()
    )
    note = "Smoke runs (ce-smoke): trained a few steps on the project's offline smoke data"
    for name in ("separation", "category_stats", "model_comparison", "bi_vs_cross", "cost"):
        assert note in (out / f"{name}.md").read_text(), name
    # the pooled comparison names no model, but pools the smoke run with the others
    assert "elsewhere" not in (out / "bi_vs_cross.md").read_text()
    # without a smoke run the tables are as before
    write_suite_tables(shards, tmp_path / "plain", [0.5])
    plain = pl.read_csv(tmp_path / "plain" / "separation.csv")
    assert "smoke" not in plain.columns and "Smoke runs" not in (tmp_path / "plain" / "separation.md").read_text()


def test_mark_smoke_leaves_a_table_without_smoke_runs_alone():
    frame = pl.DataFrame({"model": ["a"], "kind": ["bi"], "auc": [0.7]})
    assert mark_smoke(frame, ["b"]) == (frame, None)
    marked, note = mark_smoke(frame, ["a"])
    assert marked.columns == ["model", "kind", "smoke", "auc"] and frame.columns == ["model", "kind", "auc"]
    assert note.startswith("Smoke runs (a):")


def test_smoke_runs_come_from_the_stage_plans():
    config = validate_config(
        yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8")), REPO / "workflow/schemas"
    )
    config["training"]["cross_encoder"]["runs"]["ce-real"] = {"smoke": False}
    plans = plan_stages(config)
    smoke = smoke_trained(plans)
    assert "ce-minilm-smoke-rawlabels" in smoke and "minilm-graded" in smoke and "ce-real" not in smoke
    assert set(smoke) <= {m for plan in plans.values() for m in plan.study_models}


def captured_figures(monkeypatch) -> list:
    shown = []
    monkeypatch.setattr(figures.plt, "close", shown.append)
    return shown


def separation_with_smoke(tmp_path):
    write_suite_tables(write_suite_shards(tmp_path), tmp_path, [0.5], smoke_models=["ce-smoke"])
    return tmp_path / "separation.csv"


def test_figures_label_smoke_runs(tmp_path, monkeypatch):
    shown = captured_figures(monkeypatch)
    separation_csv = separation_with_smoke(tmp_path)
    shards = sorted(tmp_path.glob("*.parquet"))
    pngs = [tmp_path / f"{n}.png" for n in ("distributions", "means", "forest")]
    figures.write_suite_figures(shards, separation_csv, *pngs, suite="s")
    assert all(p.stat().st_size > 0 for p in pngs)
    forest, distributions, means = shown  # in the order they are drawn
    forest_labels = {t.get_text() for t in forest.axes[0].get_yticklabels()}
    assert forest_labels == {"ce-smoke (cross, smoke run)", "ce-real (cross)", "minilm (bi)"}
    assert {t.get_text() for t in means.axes[0].get_yticklabels()} == forest_labels
    assert "ce-smoke (cross, smoke run)" in {ax.get_title(loc="left") for ax in distributions.axes}
    for fig in shown:
        assert any("smoke run: trained a few steps" in t.get_text() for t in fig.texts)
    assert model_label("ce-real", "cross", {"ce-smoke"}) == "ce-real (cross)"


def test_general_quality_marks_smoke_runs_and_names_the_suite(tmp_path, monkeypatch):
    shown = captured_figures(monkeypatch)
    separation_csv = separation_with_smoke(tmp_path)
    paths = []
    for model, kind, _ in MODELS:
        path = tmp_path / f"gq-{model}.parquet"
        gold = np.linspace(0, 5, 12)
        pl.DataFrame(
            {"model": model, "kind": kind, "gold": gold, "score": gold / 5 + 0.01 * np.arange(12)}
        ).write_parquet(path)
        paths.append(path)
    out = tmp_path / "gq"
    out.mkdir()
    gq.write_general_quality(
        paths, separation_csv, out / "general_quality.csv", out / "gq.png", out / "page", data="d", suite="mine"
    )
    table = pl.read_csv(out / "general_quality.csv")
    assert table.filter(pl.col("smoke"))["model"].to_list() == ["ce-smoke"]
    assert "Smoke runs (ce-smoke)" in (out / "general_quality.md").read_text()
    page = (out / "page" / "index.html").read_text()
    assert "Smoke runs (ce-smoke)" in page and "suite mine" in page
    (fig,) = shown
    labels = {t.get_text() for t in fig.axes[0].texts}
    assert labels == {"minilm", "ce-real", "ce-smoke (smoke run)"}
    assert fig.axes[0].get_title().endswith("vs robustness (mine)")


# ---------------------------------------------------------------------------------------------
# Every stage table is a page in the report
# ---------------------------------------------------------------------------------------------


def test_a_stage_table_page_carries_its_markdown_title_and_note(tmp_path):
    csv, md = tmp_path / "runs.csv", tmp_path / "runs.md"
    pl.DataFrame({"run": ["a"], "test_spearman": [0.81234567], "learning_rate": [5e-05]}).write_csv(csv)
    md.write_text("# Runs (smoke run)\n\nSmoke run: tiny budgets.\n\n| run | test_spearman |\n|---|---|\n| a | 0.8 |\n")
    assert markdown_preamble(md) == ("Runs (smoke run)", "Smoke run: tiny budgets.")
    write_stage_table_page(csv, md, tmp_path / "page")
    page = (tmp_path / "page" / "index.html").read_text()
    assert "<h2>Runs (smoke run)</h2>" in page and "Smoke run: tiny budgets." in page
    # numbers in significant digits: a small learning rate is not 0.0000
    assert re.search(r"<td>a *</td><td>0.8123 *</td><td>5e-05 *</td>", page)


def test_every_stage_table_has_a_report_page(tmp_path):
    """Each table a registered stage ends with (a results/tables/**.csv target of its plan) is
    planned as a page by the rule that registers it in the report, in its stage's category."""
    config = validate_config(
        yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8")), REPO / "workflow/schemas"
    )
    plans = plan_stages(config)
    tables = {
        (stage, t) for stage, plan in plans.items() for t in plan.targets if re.match(r"results/tables/.*\.csv$", t)
    }
    # the default config runs every stage that writes tables
    assert {stage for stage, _ in tables} == {s for s in STAGES if s != "generated_suites"}
    pages = stage_table_pages(plans)
    assert {(p.stage, p.csv) for p in pages.values()} == tables
    assert all(p.category == STAGE_CATEGORIES[p.stage] for p in pages.values())
    workdir = copy_workflow(tmp_path / "wf")
    planned = {output for rule, output in planned_jobs(workdir) if rule == "stage_table_page"}
    assert planned == {p.folder for p in pages.values()}
    rule = (REPO / "workflow/rules/aggregate.smk").read_text().split("rule stage_table_page:")[1]
    assert (
        'report(\n            directory("results/report/stages/{table}"),\n            htmlindex="index.html"' in rule
    )


# ---------------------------------------------------------------------------------------------
# The general-quality suite
# ---------------------------------------------------------------------------------------------


def general_quality_input(workdir, *args) -> tuple[str, str]:
    """The separation table the general_quality job reads in a dry run, and the run's stderr."""
    proc = snakemake(workdir, "-n", "--cores", "1", "results/tables/general_quality.csv", *args)
    block = re.search(r"^(?:local)?rule general_quality:\n((?:    .*\n)+)", proc.stdout, re.MULTILINE).group(1)
    return re.search(r"results/tables/([^/]+)/separation\.csv", block).group(1), proc.stderr


@pytest.fixture
def study_only(tmp_path):
    workdir = copy_workflow(tmp_path / "wf")
    config = yaml.safe_load((workdir / "config.yaml").read_text(encoding="utf-8"))
    config["training"], config["generated_suites"] = {}, None
    (workdir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return workdir


def test_a_suite_added_by_configfile_does_not_move_the_general_quality_axis(study_only):
    (study_only / "more.yaml").write_text("suites:\n  extra: resources/suites/compositional.tsv\n")
    suite, stderr = general_quality_input(study_only, "--configfile", "more.yaml")
    assert suite == "compositional" and "general_quality.suite" not in stderr
    (study_only / "named.yaml").write_text(
        "suites:\n  extra: resources/suites/compositional.tsv\ngeneral_quality:\n  suite: extra\n"
    )
    assert general_quality_input(study_only, "--configfile", "named.yaml")[0] == "extra"


def test_without_compositional_the_first_suite_is_taken_with_a_word(study_only):
    config = yaml.safe_load((study_only / "config.yaml").read_text(encoding="utf-8"))
    config["suites"] = {"first": "resources/suites/compositional.tsv", "second": "resources/suites/compositional.tsv"}
    (study_only / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    suite, stderr = general_quality_input(study_only)
    assert suite == "first"
    assert (
        "pairbench: warning: general_quality.suite is not set and there is no suite `compositional`; "
        "the general-quality figure shows suite 'first'. Set general_quality.suite to choose one."
    ) in stderr


def test_the_reports_first_page_shows_the_forest_plot(tmp_path, monkeypatch):
    """workflow.rst, rendered as Snakemake renders it, embeds every suite's forest plot."""
    from types import SimpleNamespace

    import jinja2
    from docutils.core import publish_parts

    from pairbench.study.report_tables import enable_report_figures

    monkeypatch.chdir(tmp_path)
    forest = tmp_path / "results/figures/mine/forest.png"
    forest.parent.mkdir(parents=True)
    forest.write_bytes(b"\x89PNG\r\n\x1a\n" + b"0" * 16)
    files = [
        SimpleNamespace(target="forest.png", path=forest.relative_to(tmp_path)),
        SimpleNamespace(target="cost.png", path="results/figures/mine/cost.png"),
    ]
    enable_report_figures()
    text = (REPO / "workflow/report/workflow.rst").read_text(encoding="utf-8")
    rst = (
        jinja2.Environment()
        .from_string(text)
        .render(snakemake=SimpleNamespace(config={"training": {}}), categories={}, files=files)
    )
    html = publish_parts(rst, writer="html")["html_body"]
    assert html.count('src="data:image/png;base64,') == 1
    assert "Forest plot, suite <tt" in html and "mine" in html and "System Message" not in html
