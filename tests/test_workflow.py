"""The Snakemake workflow end to end, offline, on tiny random models; incremental reruns; lint; format."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys

import polars as pl
import pytest

from conftest import REPO, copy_workflow, planned_jobs, snakemake, write_config
from pairbench.study.aggregate import TABLE_NAMES
from pairbench.study.shards import SHARD_SCHEMA, read_shard_metadata

pytestmark = pytest.mark.e2e

STUDY_TABLES = TABLE_NAMES  # the registry's order is the rule outputs' order


def tiny_config(tiny_models) -> dict:
    return {
        "models": {
            "tiny-bi": {"kind": "bi", "source": f"path:{tiny_models['bi']}", "batch_size": 16},
            "tiny-cross": {"kind": "cross", "source": f"path:{tiny_models['cross']}", "batch_size": 16},
        },
        "suites": {"compositional": "resources/suites/compositional.tsv"},
        "training": {},
    }


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def study_run(tmp_path_factory, tiny_models):
    """One full run of the study with a tiny bi-encoder and a tiny cross-encoder."""
    workdir = copy_workflow(tmp_path_factory.mktemp("study"))
    write_config(workdir, tiny_config(tiny_models))
    snakemake(workdir, "--cores", "2")
    return workdir


def test_shards_have_the_contract_schema(study_run):
    for model, kind in (("tiny-bi", "bi"), ("tiny-cross", "cross")):
        path = study_run / f"results/scores/compositional/{model}.parquet"
        frame = pl.read_parquet(path)
        assert frame.columns == [f.name for f in SHARD_SCHEMA]
        assert frame.schema["raw"] == pl.Float64 and frame.schema["pair_id"] == pl.String
        assert frame.height >= 336 and frame["pair_id"].n_unique() == frame.height
        meta = read_shard_metadata(path)
        assert meta["kind"] == kind and meta["model"] == model
        assert meta["revision"].startswith("sha256-names-sizes-mtimes:")
        if kind == "cross":
            assert meta["normalisation"] == "sigmoid"
            assert frame["score"].is_between(0, 1).all()
        else:
            assert (frame["raw"] == frame["score"]).all()
            assert frame["score"].is_between(-1 - 1e-6, 1 + 1e-6).all()


def test_tables_cover_every_model_and_category(study_run):
    tables = study_run / "results/tables/compositional"
    for name in STUDY_TABLES:
        text = (tables / f"{name}.md").read_text()
        # A table that holds NaN opens with a note saying where and why.
        assert text.startswith("|") or (text.startswith("NaN in ") and "\n|" in text)
    stats = pl.read_csv(tables / "category_stats.csv")
    assert stats.columns == ["model", "kind", "category", "n", "mean", "sd", "min", "max", "mean_low", "mean_high"]
    assert stats.height == 2 * 9
    assert set(stats["model"]) == {"tiny-bi", "tiny-cross"}
    failure = pl.read_csv(tables / "failure_rates.csv")
    assert sorted(failure["threshold"].unique().to_list()) == [0.5, 0.8]
    versus = pl.read_csv(tables / "bi_vs_cross.csv")
    assert versus["category"].to_list() == ["negation", "numerical", "entity_swap", "temporal", "quantifier", "hedging"]
    assert versus["n_cross"].min() > 0 and versus["n_bi"].min() > 0
    separation = pl.read_csv(tables / "separation.csv")
    assert separation.height == 2 * 6 and separation["auc"].is_between(0, 1).all()
    # Values agree with the shards.
    shard = pl.read_parquet(study_run / "results/scores/compositional/tiny-bi.parquet")
    negation = stats.filter((pl.col("model") == "tiny-bi") & (pl.col("category") == "negation"))
    expected = shard.filter(pl.col("category") == "negation")["score"].mean()
    assert negation["mean"].item() == pytest.approx(expected, abs=1e-6)


def rule_blocks() -> dict[str, str]:
    """Every rule of every rule file: name -> the text of its block."""
    blocks = {}
    for path in sorted((REPO / "workflow" / "rules").glob("*.smk")):
        for match in re.finditer(r"^( *)rule (\w+):\n((?:\1 .*\n|\n)*)", path.read_text(), re.M):
            blocks[match.group(2)] = match.group(3)
    return blocks


def test_every_rule_has_log_benchmark_and_registry_resources():
    blocks = rule_blocks()
    assert len(blocks) >= 20 and "score_suite" in blocks and "celi_rerank" in blocks
    for name, block in blocks.items():
        assert re.search(r"^ +log:", block, re.M), f"rule {name} has no log:"
        assert re.search(r"^ +benchmark:", block, re.M), f"rule {name} has no benchmark:"
        if "threads:" in block:
            assert re.search(r'threads: stage_threads\("\w+", "\w+"\)', block), f"rule {name}: threads by hand"
            assert re.search(r'\*\*stage_resources\("\w+", "\w+"\)', block), f"rule {name}: resources by hand"
        assert "gpus(" not in block, f"rule {name} asks for GPUs by hand"


def test_every_job_of_the_run_wrote_its_log_and_benchmark(study_run):
    logs = {
        p.relative_to(study_run / "results/logs").with_suffix("") for p in (study_run / "results/logs").rglob("*.log")
    }
    benches = {
        p.relative_to(study_run / "results/benchmarks").with_suffix("")
        for p in (study_run / "results/benchmarks").rglob("*.tsv")
    }
    expected = {
        "score_suite/compositional/tiny-bi",
        "score_suite/compositional/tiny-cross",
        "tables/compositional",
        "table_pages/compositional",
        "figures/compositional",
        "fetch_model/tiny-bi",
        "fetch_model/tiny-cross",
    }
    assert {str(p) for p in logs} >= expected
    assert {str(p) for p in benches} == {str(p) for p in logs}


def test_report_builds_and_shows_figures(study_run):
    snakemake(study_run, "--cores", "1", "--report", "report.html")
    html = (study_run / "report.html").read_text(errors="replace")
    assert "score_distributions.png" in html and "category_means.png" in html
    assert "Compositional study" in html


def test_adding_a_model_reruns_only_that_model(study_run, tiny_models):
    before = {
        p.name: (digest(p), p.stat().st_mtime_ns)
        for p in (study_run / "results/scores/compositional").glob("*.parquet")
    }
    extra = write_config(
        study_run, {"models": {"tiny-bi-2": {"kind": "bi", "source": f"path:{tiny_models['bi2']}"}}}, "extra.yaml"
    )
    jobs = planned_jobs(study_run, "--configfile", str(extra))
    assert jobs == sorted(
        [
            ("all", ""),
            ("cost_figure", "results/figures/compositional/cost.png"),
            ("fetch_model", "resources/models/tiny-bi-2"),
            (
                "figures",
                "results/figures/compositional/forest.png, results/figures/compositional/score_distributions.png, results/figures/compositional/category_means.png",
            ),
            ("table_pages", ", ".join(f"results/report/compositional/{t}" for t in STUDY_TABLES)),
            ("score_suite", "results/scores/compositional/tiny-bi-2.parquet"),
            ("tables", ", ".join(f"results/tables/compositional/{t}.{e}" for t in STUDY_TABLES for e in ("csv", "md"))),
        ]
    )
    snakemake(study_run, "--cores", "2", "--configfile", str(extra))
    after = {
        p.name: (digest(p), p.stat().st_mtime_ns)
        for p in (study_run / "results/scores/compositional").glob("*.parquet")
    }
    assert set(after) == set(before) | {"tiny-bi-2.parquet"}
    for name, value in before.items():
        assert after[name] == value, f"{name} was rewritten"
    assert "tiny-bi-2" in pl.read_csv(study_run / "results/tables/compositional/category_stats.csv")["model"].to_list()


def test_changing_one_models_settings_reruns_only_its_shard(study_run, tiny_models):
    extra = write_config(
        study_run,
        {"models": {"tiny-cross": {"kind": "cross", "source": f"path:{tiny_models['cross']}", "batch_size": 5}}},
        "settings.yaml",
    )
    rules = [rule for rule, out in planned_jobs(study_run, "--configfile", str(extra))]
    outputs = [out for rule, out in planned_jobs(study_run, "--configfile", str(extra)) if rule == "score_suite"]
    assert sorted(rules) == ["all", "cost_figure", "figures", "score_suite", "table_pages", "tables"]
    assert outputs == ["results/scores/compositional/tiny-cross.parquet"]


def test_adding_a_suite_by_configfile(study_run):
    suite = study_run / "resources/suites/mini.tsv"
    suite.write_text(
        "pair_id\tcategory\tsentence1\tsentence2\nm-1\tnegation\tIt rains.\tIt does not rain.\nm-2\tpositive_control\tHe left.\tHe went away.\n"
    )
    extra = write_config(study_run, {"suites": {"mini": "resources/suites/mini.tsv"}}, "suite.yaml")
    jobs = planned_jobs(study_run, "--configfile", str(extra))
    assert sorted({rule for rule, _ in jobs}) == [
        "all",
        "cost_figure",
        "figures",
        "score_suite",
        "table_pages",
        "tables",
    ]
    assert sorted(out for rule, out in jobs if rule == "score_suite") == [
        "results/scores/mini/tiny-bi.parquet",
        "results/scores/mini/tiny-cross.parquet",
    ]
    # The new suite gets its own tables, figures and pages (other tests of this module change the
    # compositional suite's set of models, so its tables may be planned again too).
    for rule in ("tables", "figures", "table_pages", "cost_figure"):
        assert any("/mini/" in out for r, out in jobs if r == rule), rule


def test_malformed_suite_fails_with_file_and_line(tmp_path, tiny_models):
    workdir = copy_workflow(tmp_path / "bad")
    (workdir / "resources/suites/bad.tsv").write_text(
        "pair_id\tcategory\tsentence1\tsentence2\nb-1\tnegation\tIt rains.\t\n"
    )
    config = tiny_config(tiny_models)
    config["suites"] = {"bad": "resources/suites/bad.tsv"}
    del config["models"]["tiny-cross"]
    write_config(workdir, config)
    proc = snakemake(workdir, "--cores", "1", check=False)
    assert proc.returncode != 0
    assert "resources/suites/bad.tsv, line 2: empty sentence2" in proc.stderr + proc.stdout
    assert not (workdir / "results/scores/bad/tiny-bi.parquet").exists()


@pytest.mark.parametrize(
    ("models", "message"),
    [
        ({"m": {"kind": "poly", "source": "path:x"}}, "'poly' is not one of"),
        (
            {"m": {"kind": "bi", "source": "BAAI/bge"}},
            "config.yaml:4: models.m.source: 'BAAI/bge' is not a source: a source is hf:ORG/NAME",
        ),
        ({"m": {"kind": "bi", "source": "path:x", "batchsize": 3}}, "config.yaml:5: models.m.batchsize: unknown key"),
        (
            {"bad/key": {"kind": "bi", "source": "path:x"}},
            "config.yaml:2: models.bad/key: the key 'bad/key' is not allowed",
        ),
    ],
)
def test_config_errors_before_any_job(tmp_path, models, message):
    workdir = copy_workflow(tmp_path / "cfg")
    write_config(workdir, {"models": models, "suites": {"compositional": "resources/suites/compositional.tsv"}})
    proc = snakemake(workdir, "-n", "--cores", "1", check=False)
    assert proc.returncode != 0
    assert message in proc.stderr + proc.stdout
    assert not (workdir / "results").exists()


def test_unreachable_hub_model_fails_with_key_source_and_remedy(tmp_path, monkeypatch):
    workdir = copy_workflow(tmp_path / "hub")
    write_config(
        workdir,
        {
            "models": {"bge": {"kind": "bi", "source": "hf:BAAI/bge-large-en-v1.5"}},
            "suites": {"compositional": "resources/suites/compositional.tsv"},
            "training": {},
        },
    )
    monkeypatch.setenv("HF_HOME", str(tmp_path / "empty-hf-home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    proc = snakemake(workdir, "--cores", "1", "resources/models/bge", check=False)
    output = proc.stderr + proc.stdout
    assert proc.returncode != 0
    assert "'bge'" in output and "hf:BAAI/bge-large-en-v1.5" in output and "snakemake prefetch" in output
    assert not (workdir / "resources/models/bge").exists()


def test_study_config_plans_every_published_model(tmp_path, monkeypatch):
    # Planned as on a machine with hub access: offline, a dry run stops on the uncached sources.
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    workdir = copy_workflow(tmp_path / "plan")
    jobs = planned_jobs(workdir, "--configfile", "config/study.yaml")
    published = {
        "all-MiniLM-L6-v2",
        "bge-large-en-v1.5",
        "nomic-embed-text-v1.5",
        "mxbai-embed-large-v1",
        "gte-large",
        "stsb-roberta-large",
        "ms-marco-MiniLM-L12-v2",
        "bge-reranker-large",
        "quora-roberta-large",
        "nli-roberta-large",
        "qwen3-embedding-0.6b",
        "splade-v3",
        "gte-moderncolbert-v1",
        "qwen3-reranker-0.6b",
    }
    fetched = {out.removeprefix("resources/models/") for rule, out in jobs if rule == "fetch_model"}
    scored = {out.split("/")[-1].removesuffix(".parquet") for rule, out in jobs if rule == "score_suite"}
    assert fetched == published
    assert published <= scored
    assert (
        "tables",
        ", ".join(f"results/tables/compositional/{t}.{e}" for t in STUDY_TABLES for e in ("csv", "md")),
    ) in jobs


def test_snakemake_lint_is_clean(tmp_path):
    workdir = copy_workflow(tmp_path / "lint")
    proc = snakemake(workdir, "--lint", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_snakefmt_check_is_clean():
    proc = subprocess.run(
        [sys.executable, "-m", "snakefmt", "--check", "Snakefile", "workflow"], cwd=REPO, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def reversed_includes(snakefile: str) -> str:
    """The Snakefile with its rule files included in reverse order (common.smk stays first: it
    holds the config lookups that every rule file reads)."""
    from pairbench.stages import STAGES

    start = snakefile.index("for _stage in STAGES.values():")
    study = re.findall(r'^include: "(workflow/rules/(?!common)\w+\.smk)"$', snakefile, re.MULTILINE)
    end = snakefile.index(f'include: "{study[-1]}"') + len(f'include: "{study[-1]}"')
    files = [*(stage.rule_file for stage in STAGES.values()), *study]
    assert len(files) == len(set(files)) > 2
    return snakefile[:start] + "\n".join(f'include: "{f}"' for f in reversed(files)) + snakefile[end:]


def test_rule_files_included_in_reverse_plan_the_same_jobs(tmp_path):
    """The default config's dry run: the same jobs whatever the order of the includes."""
    workdir = copy_workflow(tmp_path / "reversed")
    forward = planned_jobs(workdir)
    snakefile = workdir / "Snakefile"
    snakefile.write_text(reversed_includes(snakefile.read_text()))
    assert planned_jobs(workdir) == forward
    rules = {rule for rule, _ in forward}
    # every registered stage with a block in the default config plans jobs
    assert {"train_cross_encoder", "generate_suite", "score_suite", "tables"} <= rules


def test_an_old_key_in_a_configfile_is_told_by_the_renamed_keys_check(tmp_path):
    """A user's --configfile from before a rename: the dry run stops at load, naming the new key."""
    workdir = copy_workflow(tmp_path / "renamed")
    (workdir / "old.yaml").write_text("training:\n  freeze:\n    enabled: false\n")
    proc = snakemake(workdir, "-n", "--cores", "1", "--configfile", "old.yaml", check=False)
    assert proc.returncode != 0
    assert "old.yaml:2: training.freeze was renamed: write training.frozen_features" in proc.stderr + proc.stdout
    assert "Traceback" not in proc.stderr + proc.stdout
