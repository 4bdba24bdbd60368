"""Reading the workflow stays cheap: no heavy library imported to parse it, suites checked once
and remembered by fingerprint."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from pairbench import input_check
from pairbench.study import suite as suite_module

# What parsing the workflow imports: common.smk's imports and every stage's plan module.
PARSE_IMPORTS = """
import importlib, json, sys
import pairbench.input_check, pairbench.core.sources, pairbench.stages
import pairbench.study.aggregate, pairbench.study.kinds
import pairbench.frozen_features.config, pairbench.celi.config
for stage in pairbench.stages.STAGES.values():
    importlib.import_module(stage.plan.split(":")[0])
print(json.dumps(sorted(sys.modules)))
"""
HEAVY = ("scipy", "torch", "sentence_transformers", "transformers", "spacy", "matplotlib", "sklearn")


def test_parsing_the_workflow_imports_no_heavy_library():
    proc = subprocess.run(
        [sys.executable, "-c", PARSE_IMPORTS], capture_output=True, text=True, check=True, env={**os.environ}
    )
    loaded = set(json.loads(proc.stdout))
    assert {m for m in loaded if m.split(".")[0] in HEAVY} == set()


SUITE = "pair_id\tcategory\tsentence1\tsentence2\n" + "".join(
    f"p{i}\t{c}\tA sentence {i}.\tAnother sentence {i}.\n"
    for i, c in enumerate(["positive_control"] * 4 + ["negation"] * 4)
)


@pytest.fixture
def counted(monkeypatch):
    calls = []
    real = suite_module.check_suite

    def check_suite(path):
        calls.append(path)
        return real(path)

    monkeypatch.setattr(suite_module, "check_suite", check_suite)
    return calls


def test_a_suite_that_passed_is_not_read_again_until_it_changes(tmp_path, counted):
    path = tmp_path / "s.tsv"
    path.write_text(SUITE)
    cache = tmp_path / "cache"
    for _ in range(2):
        input_check.check_suite_once(path, cache)
    assert counted == [path]
    remembered = json.loads((cache / "checked_suites.json").read_text())
    assert remembered[str(path.resolve())]["fingerprint"][:1] == [path.stat().st_size]
    assert remembered[str(path.resolve())]["summary"] == {
        "pairs": 8,
        "long": 0,
        "first_long": None,
        "categories": {"positive_control": 4, "negation": 4},
    }

    path.write_text(SUITE + "p9\tnegation\tOne more.\tAnd another.\n")
    input_check.check_suite_once(path, cache)
    assert counted == [path, path]
    # without a cache folder every call checks
    input_check.check_suite_once(path)
    assert len(counted) == 3


def test_a_suite_that_fails_is_checked_every_time(tmp_path, counted):
    path = tmp_path / "bad.tsv"
    path.write_text("pair_id\tcategory\n")
    for _ in range(2):
        with pytest.raises(Exception, match="bad.tsv"):
            input_check.check_suite_once(path, tmp_path / "cache")
    assert len(counted) == 2
    assert not (tmp_path / "cache" / "checked_suites.json").exists()


def test_jobs_reading_the_workflow_skip_the_suite_check(tmp_path):
    """check_inputs(suites=False), as common.smk calls it outside the main process: the config is
    validated, the suites are not read."""
    import yaml

    from conftest import REPO

    bad = tmp_path / "bad.tsv"
    bad.write_text("pair_id\tcategory\n")

    def config():
        loaded = yaml.safe_load((REPO / "config.yaml").read_text())
        loaded["suites"] = {"bad": str(bad)}
        loaded.pop("generated_suites", None)
        return loaded

    validated = input_check.check_inputs(config(), REPO / "workflow" / "schemas", suites=False)
    assert validated["scoring"]["chunk_pairs"] > 0  # defaults filled in
    with pytest.raises(Exception, match="bad.tsv"):
        input_check.check_inputs(config(), REPO / "workflow" / "schemas")
