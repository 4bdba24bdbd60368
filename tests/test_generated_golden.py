"""The bench's generated suites against their golden files (tests/golden/, bench/golden.py): the
mixed-prose and tuning-styles suites always, STS-B train + dev where ../shared has it; a moved pair
is named."""

from __future__ import annotations

import importlib.util
from collections import Counter

import pytest

from conftest import REPO, SHARED_STSB
from pairbench.generated_suites.registry import by_reason

spec = importlib.util.spec_from_file_location("golden", REPO / "bench" / "golden.py")
golden = importlib.util.module_from_spec(spec)
spec.loader.exec_module(golden)


@pytest.fixture(scope="module")
def mixed_prose(tmp_path_factory):
    return golden.regenerate("generated-mixed-prose", tmp_path_factory.mktemp("golden"))


def test_the_mixed_prose_suite_is_its_golden_one(mixed_prose):
    stored = golden.read_golden("generated-mixed-prose")
    lines = golden.compare(stored, mixed_prose)
    assert not lines, golden.report("generated-mixed-prose", lines)
    # the stored figures are the suite's own, not only equal digests
    summary, fingerprints, rows = mixed_prose
    assert summary["n_anchors"] == 289 and summary["pairs"] == len(rows) == len(fingerprints) == 1416
    assert sum(summary["categories"].values()) == summary["pairs"]
    assert [f[:3] for f in stored[1]] == [(r[4], r[1], r[5]) for r in rows]


def test_the_tuning_styles_suite_is_its_golden_one(tmp_path):
    stored = golden.read_golden("generated-tuning-styles")
    fresh = golden.regenerate("generated-tuning-styles", tmp_path)
    lines = golden.compare(stored, fresh)
    assert not lines, golden.report("generated-tuning-styles", lines)
    summary, _, rows = fresh
    assert summary["n_anchors"] == 300 and summary["pairs"] == len(rows)
    # positive controls only from the pairs written as true paraphrases (score 5: 288 of 300)
    assert 0 < summary["categories"]["positive_control"] <= 288


@pytest.mark.shared_data
@pytest.mark.skipif(not SHARED_STSB.exists(), reason=f"reads the English STS-B at {SHARED_STSB}: not there")
def test_the_stsb_suite_is_its_golden_one(tmp_path):
    stored = golden.read_golden("generated-stsb")
    _, data_dir = golden.suite_setup("generated-stsb")
    here = golden.source_files(data_dir, ["train", "dev"])
    if here != stored[0]["source"]:
        pytest.skip(f"the STS-B at {data_dir} is not the copy tests/golden/generated-stsb.json was made from")
    fresh = golden.regenerate("generated-stsb", tmp_path)
    lines = golden.compare(stored, fresh)
    assert not lines, golden.report("generated-stsb", lines)
    assert fresh[0]["n_anchors"] == 1605 and fresh[0]["categories"]["positive_control"] == 167


def _id(reason: str) -> str:
    """The registry id of a refusal reason (the reason itself where none has it)."""
    return by_reason().get(reason, reason)


def _moved(fresh):
    """The fresh suite with one pair's second sentence changed, one dropped, one rule renamed, one
    refusal count raised and a refusal id renamed."""
    summary, fingerprints, rows = fresh
    rows = [list(r) for r in rows]
    rows[0][3] = "A sentence the rule never wrote."
    dropped = rows.pop(5)
    rows[1][5] = "negation:renamed"
    refusals = {c: dict(r) for c, r in summary["refusals"].items()}
    refusals["numerical"][_id("no number")] += 1
    renamed = _id("argument is not a noun phrase")
    refusals["entity_swap"]["entity_swap.renamed_in_the_test"] = refusals["entity_swap"].pop(renamed)
    prints = [(r[4], r[1], r[5], golden.sentences_sha1(r[2], r[3])) for r in rows]
    categories = dict(Counter(r[1] for r in rows))
    summary = {**summary, "categories": categories, "refusals": refusals, "suite_sha256": "0" * 64}
    return summary, prints, [tuple(r) for r in rows], dropped


def test_a_moved_pair_is_named_with_its_text(mixed_prose):
    stored = golden.read_golden("generated-mixed-prose")
    *fresh, dropped = _moved(mixed_prose)
    rows = fresh[2]
    lines = golden.compare(stored, fresh)
    message = golden.report("generated-mixed-prose", lines)
    assert message.splitlines()[0] == (
        "generated-mixed-prose: the regenerated suite differs from tests/golden/generated-mixed-prose.json and "
        "tests/golden/generated-mixed-prose.pairs.tsv; if the change is intended, run "
        "`python bench/golden.py generated-mixed-prose` and commit tests/golden/"
    )
    assert "3 pair(s) moved (first 3):" in lines
    a, c = rows[0][4], rows[0][1]
    assert f'  changed {a} {c} [{rows[0][5]}]: "{rows[0][2]}" -> "A sentence the rule never wrote."' in lines
    old_rule = mixed_prose[2][1][5]
    assert (
        f'  renamed {rows[1][4]} {rows[1][1]} [{old_rule} -> negation:renamed]: "{rows[1][2]}" -> "{rows[1][3]}"'
        in lines
    )
    assert f'  removed {dropped[4]} {dropped[1]} [{dropped[5]}] (anchor still there: "{dropped[2]}")' in lines
    assert (
        f"pairs in {dropped[1]}: {stored[0]['categories'][dropped[1]]} -> {stored[0]['categories'][dropped[1]] - 1}"
        in lines
    )
    old = {c: golden.by_id(r, mixed_prose[0]["refusals"].get(c, {})) for c, r in stored[0]["refusals"].items()}
    n = old["numerical"][_id("no number")]
    assert f"refusals numerical / {_id('no number')}: {n} -> {n + 1}" in lines
    # an id renamed with its count unchanged is said to be a rename, both names shown
    assert "refusals entity_swap: the same counts under other ids (renamed ids?)" in lines
    k, renamed = old["entity_swap"][_id("argument is not a noun phrase")], _id("argument is not a noun phrase")
    assert f"refusals entity_swap / {renamed}: {k} -> 0" in lines
    assert f"refusals entity_swap / entity_swap.renamed_in_the_test: 0 -> {k}" in lines
    assert f"suite_sha256: {stored[0]['suite_sha256']} -> {'0' * 64}" in lines


def test_only_the_first_30_moved_pairs_are_shown(mixed_prose):
    summary, fingerprints, rows = mixed_prose
    changed = [(r[4], r[1], r[5], "0" * 16) for r in rows[:40]] + list(fingerprints[40:])
    lines = golden.compare(golden.read_golden("generated-mixed-prose"), (summary, changed, rows))
    assert lines[0] == "40 pair(s) moved (first 30):"
    assert sum(line.startswith("  changed ") for line in lines) == 30


def test_other_library_versions_are_named_only_beside_a_moved_pair(mixed_prose):
    summary, fingerprints, rows = mixed_prose
    stored = golden.read_golden("generated-mixed-prose")
    other = {**summary, "versions": {**summary["versions"], "spacy": "3.8.99"}}
    assert golden.compare(stored, (other, fingerprints, rows)) == []
    moved = [(r[4], r[1], r[5], "0" * 16) for r in rows[:1]] + list(fingerprints[1:])
    lines = golden.compare(stored, (other, moved, rows))
    assert lines[-1] == f"versions differ from the golden's: {summary['versions']} -> {other['versions']}"


def test_the_script_rewrites_and_checks_golden_files(mixed_prose, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(golden, "GOLDEN", tmp_path)
    monkeypatch.setattr(golden, "regenerate", lambda name, folder: mixed_prose)
    assert golden.main(["generated-mixed-prose"]) == 0
    assert (tmp_path / "generated-mixed-prose.pairs.tsv").read_text(encoding="utf-8").splitlines()[0] == (
        "anchor\tcategory\trule\tsha1"
    )
    assert golden.read_golden("generated-mixed-prose", tmp_path) == golden.read_golden("generated-mixed-prose")
    assert golden.main(["--check", "generated-mixed-prose"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "generated-mixed-prose: as its golden files (1416 pairs)"
    with pytest.raises(SystemExit):
        golden.main(["generated-nothing"])
