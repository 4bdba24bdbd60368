"""The package installed as a wheel, outside the repository, plans the default run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from conftest import REPO, copy_workflow

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A wheel built from a copy of the sources, installed with pip --target into a fresh folder."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source / name)
    # copytree follows src/pairbench/schemas (a link to workflow/schemas): the copy holds the files
    shutil.copytree(REPO / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    run = dict(capture_output=True, text=True, timeout=300)
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(source),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(root / "dist"),
        ],
        **run,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    wheel = next((root / "dist").glob("pairbench-*.whl"))
    site = root / "site"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)], **run
    )
    assert done.returncode == 0, done.stderr[-3000:]
    # Only the wheel's copy of pairbench is importable: no checkout on the path.
    env = {**os.environ, "PYTHONPATH": str(site), "PYTHONNOUSERSITE": "1"}
    return site, env


def test_wheel_ships_the_schemas_and_needs_no_checkout(installed, tmp_path):
    site, env = installed
    assert sorted(p.name for p in (site / "pairbench" / "schemas").iterdir()) == sorted(
        p.name for p in (REPO / "workflow" / "schemas").glob("*.yaml")
    )
    for data in ("generated_suites/*.md", "generated_suites/registry/*.yaml", "generated_suites/lexicon/*.yaml"):
        shipped = sorted(p.relative_to(site) for p in (site / "pairbench").glob(data))
        assert shipped and shipped == sorted(p.relative_to(REPO / "src") for p in (REPO / "src/pairbench").glob(data))
    probe = (
        "import pairbench, json\n"
        "from pairbench.cross_encoder.config import complete_run\n"
        "from pairbench.study.kinds import ScoringSettings\n"
        "run = complete_run({'data': 'graded', 'score_max': 5})\n"
        "print(json.dumps([pairbench.__file__, run['epochs'], ScoringSettings(kind='bi').batch_size]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-3000:]
    file, epochs, batch_size = __import__("json").loads(out.stdout)
    assert file.startswith(str(site))
    assert (epochs, batch_size) == (2, 32)  # the schemas' defaults


def planned_counts(workdir, env) -> dict[str, int]:
    """Jobs per rule of the default run's dry run (``--quiet rules``), with ``total``."""
    cmd = [sys.executable, "-m", "snakemake", "--workflow-profile", "none", "-n", "--quiet", "rules", "--cores", "2"]
    proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    rows = [line.split() for line in proc.stdout.splitlines()]
    return {row[0]: int(row[1]) for row in rows if len(row) == 2 and row[1].isdigit()}


def test_wheel_plans_the_default_run(installed, tmp_path):
    """The wheel plans the same jobs as the checkout; text-scored models x suites scoring jobs."""
    import yaml

    from pairbench.stages import plan_stages, study_models, suites, validate_config
    from pairbench.study.kinds import text_scored

    site, env = installed
    counts = planned_counts(copy_workflow(tmp_path / "work"), env)
    checkout = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    assert counts == planned_counts(copy_workflow(tmp_path / "checkout"), checkout)
    config = validate_config(yaml.safe_load((REPO / "config.yaml").read_text()), REPO / "workflow" / "schemas")
    plans = plan_stages(config)
    models = {**config["models"], **study_models(plans, config)}
    scored = [m for m, block in models.items() if text_scored(block["kind"])]
    assert counts["score_suite"] == len(suites(plans, config)) * len(scored) > 0
    assert counts["total"] == sum(n for rule, n in counts.items() if rule != "total")
