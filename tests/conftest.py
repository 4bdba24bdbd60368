"""Shared fixtures: tiny random models, a copy of the workflow in a temporary directory, Snakemake runners."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
SHARED_STSB = REPO.parent / "shared" / "data" / "stsb-en"

# The hub is never reachable in tests: any accidental download fails fast instead of hanging.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="package")  # made once for the whole tests folder
def _scontrol_stub(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("no-slurm-controller")
    stub = folder / "scontrol"
    stub.write_text("#!/bin/sh\necho 'scontrol: no SLURM controller in the tests' >&2\nexit 1\n", encoding="utf-8")
    stub.chmod(0o755)
    return folder


@pytest.fixture(autouse=True)
def _no_slurm_controller(request, monkeypatch):
    """Where SLURM's client is installed but no controller runs, snakemake-executor-plugin-slurm runs
    `scontrol show config` when Snakemake starts and waits 9 s for an answer. Every test but the SLURM
    tier's sees an `scontrol` that answers at once that there is none (the plugin then goes on)."""
    if request.node.get_closest_marker("slurm") is None and shutil.which("scontrol") is not None:
        stub = request.getfixturevalue("_scontrol_stub")
        monkeypatch.setenv("PATH", f"{stub}{os.pathsep}{os.environ['PATH']}")


@pytest.fixture(scope="package")  # built once for the whole tests folder
def tiny_models(tmp_path_factory) -> dict[str, Path]:
    from pairbench.testing import make_tiny_bi_encoder, make_tiny_cross_encoder

    root = tmp_path_factory.mktemp("tiny-models")
    return {
        "bi": make_tiny_bi_encoder(root / "tiny-bi"),
        "cross": make_tiny_cross_encoder(root / "tiny-cross"),
        "bi2": make_tiny_bi_encoder(root / "tiny-bi-2", seed=1),
        "nli": make_tiny_cross_encoder(root / "tiny-nli", num_labels=3),
    }


def copy_workflow(dest: Path) -> Path:
    """The pipeline as a user checks it out: Snakefile, workflow/, envs/, profiles/, configs, suites."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("Snakefile", "config.yaml"):
        shutil.copy2(REPO / name, dest / name)
    for name in ("workflow", "envs", "profiles", "config", "bench/configs"):
        if (REPO / name).exists():
            shutil.copytree(REPO / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("resources/suites", "resources/smoke"):
        if (REPO / name).exists():
            shutil.copytree(REPO / name, dest / name)
    return dest


def write_config(workdir: Path, config: dict, name: str = "config.yaml") -> Path:
    path = workdir / name
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def snakemake(workdir: Path, *args: str, check: bool = True, timeout: int = 900) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "snakemake", "--workflow-profile", "none", *args]
    proc = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(
            f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-6000:]}"
        )
    return proc


_JOB_RE = re.compile(r"^(?:local)?rule (\w+):\n((?:    .*\n)+)", re.MULTILINE)


def planned_jobs(workdir: Path, *args: str) -> list[tuple[str, str]]:
    """(rule, output) for every job a dry run plans, sorted; rule `all` has output ''."""
    proc = snakemake(workdir, "-n", "--cores", "2", *args)
    jobs = []
    for match in _JOB_RE.finditer(proc.stdout + "\n"):
        out = re.search(r"^    output: (.*)$", match.group(2), re.MULTILINE)
        jobs.append((match.group(1), out.group(1) if out else ""))
    return sorted(jobs)


@pytest.fixture(scope="module")
def nlp():
    """The generated suites' default parser (en_core_web_sm from its PyPI package), loaded once per test module."""
    from pairbench.core.sources import locate_local, parse_source
    from pairbench.generated_suites.config import DEFAULT_PARSER
    from pairbench.generated_suites.generate import load_parser

    return load_parser(locate_local(parse_source(DEFAULT_PARSER)))
