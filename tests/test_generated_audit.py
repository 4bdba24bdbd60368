"""The audit of a generated suite: the seeded sample, the graded file read back into precision
with Wilson intervals, rules dropped under min_precision, mismatching graded files, captions."""

from __future__ import annotations

import csv
import json
from collections import Counter

import pytest

from conftest import REPO
from pairbench.core.errors import PairbenchError
from pairbench.core.sources import locate_local, parse_source
from pairbench.generated_suites.audit import (
    SAMPLE_COLUMNS,
    audit_sample,
    audit_settings,
    wilson,
)
from pairbench.generated_suites.card import card_markdown, card_payload
from pairbench.generated_suites.config import DEFAULT_PARSER, SuiteSettings
from pairbench.generated_suites.generate import build_suite
from pairbench.study.aggregate import audit_caption, suite_audit_note
from pairbench.study.suite import load_suite

SMOKE = REPO / "resources" / "smoke" / "graded_sts"


def _settings(**audit):
    block = {
        "data": "graded-smoke",
        "split": ["train", "dev", "test"],
        "score_max": 5,
        "min_score": 4.0,
        "seed": 0,
        "audit": audit,
    }
    return SuiteSettings.from_block(block, "s")


def _build(tmp_path, name="s", **audit):
    path = tmp_path / f"{name}.tsv"
    generated, nlp = build_suite(name, SMOKE, locate_local(parse_source(DEFAULT_PARSER)), _settings(**audit), path)
    return path, generated, nlp


def _read(path):
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def _grade(sample_path, out_path, verdict):
    rows = _read(sample_path)
    for row in rows:
        row["valid"] = verdict(row)
    with open(out_path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, SAMPLE_COLUMNS, delimiter="\t", quoting=csv.QUOTE_NONE, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return rows


def test_wilson_interval_hand_worked():
    # 27 of 30, z = 1.959964: centre (0.9 + z^2/60) / (1 + z^2/30) = 0.854594,
    # half-width z * sqrt(0.9 * 0.1 / 30 + z^2 / 3600) / (1 + z^2/30) = 0.110806
    low, high = wilson(27, 30)
    assert low == pytest.approx(0.743788, abs=1e-5) and high == pytest.approx(0.965400, abs=1e-5)
    assert wilson(30, 30)[1] == pytest.approx(1.0) and wilson(30, 30)[0] == pytest.approx(0.886495, abs=1e-5)


def test_audit_defaults_come_from_the_schema():
    assert audit_settings({}) == {"sample_per_rule": 30, "graded": None, "min_precision": None}


def test_sample_is_seeded_capped_per_rule_and_shuffled(tmp_path):
    path, generated, _ = _build(tmp_path, sample_per_rule=3)
    sample = _read(path.with_suffix(".audit-sample.tsv"))
    assert list(sample[0]) == list(SAMPLE_COLUMNS)
    per_rule = Counter(r["rule"] for r in sample)
    in_suite = Counter(r[5] for r in generated.rows)
    assert per_rule == {rule: min(3, n) for rule, n in in_suite.items()}
    assert all(r["valid"] == "" and r["note"] == "" for r in sample)
    suite = {r["pair_id"]: r for r in load_suite(path).iter_rows(named=True)}
    assert all(
        suite[r["pair_id"]]["sentence2"] == r["sentence2"] and suite[r["pair_id"]]["rule"] == r["rule"] for r in sample
    )
    # shuffled: not grouped by rule
    assert [r["rule"] for r in sample] != sorted(r["rule"] for r in sample)
    (tmp_path / "again").mkdir()
    again, _, _ = _build(tmp_path / "again", sample_per_rule=3)
    assert again.with_suffix(".audit-sample.tsv").read_bytes() == path.with_suffix(".audit-sample.tsv").read_bytes()


def test_a_fallback_rule_leaves_the_other_rules_sample_as_it_was():
    rows = [
        (f"p{r}{i}", r.split(":")[0], "a", f"b{i}", f"a{i}", r)
        for r in ("negation:x", "numerical:x", "quantifier:x")
        for i in range(40)
    ]
    extra = [(f"q{i}", "numerical", "a", f"c{i}", f"a{i}", "numerical:fallback") for i in range(12)]
    other = [(f"r{i}", "near_miss", "a", f"d{i}", f"a{i}", "near_miss:fallback") for i in range(50)]
    before = audit_sample(rows, 30, 0)
    after = audit_sample(rows + extra, 30, 0, {"numerical:fallback"})
    both = audit_sample(rows + extra + other, 30, 0, {"numerical:fallback", "near_miss:fallback"})
    assert [r for r in after if r[5] != "numerical:fallback"] == before  # same rows, same order
    assert Counter(r[5] for r in after)["numerical:fallback"] == 12
    assert [r for r in both if r[5] in {r[5] for r in rows}] == before
    assert sorted(r for r in both if r[5] == "numerical:fallback") == sorted(
        r for r in after if r[5] == "numerical:fallback"
    )
    assert Counter(r[5] for r in both)["near_miss:fallback"] == 30
    assert after[-12:] != extra  # inserted at seeded places, not appended
    # without the fallback set the new rule takes the shared stream: the others' sample changes
    assert [r for r in audit_sample(rows + extra, 30, 0) if r[5] != "numerical:fallback"] != before


def test_graded_file_gives_precision_and_drops_a_rule(tmp_path):
    path, generated, nlp = _build(tmp_path, sample_per_rule=4)
    sample_path = path.with_suffix(".audit-sample.tsv")
    # every hedging pair graded invalid, every other pair valid; min_precision 0.15 keeps a rule
    # with one valid pair of one (Wilson low 0.21) and drops those with none valid (low 0)
    rows = _grade(sample_path, tmp_path / "graded.tsv", lambda r: "no" if r["category"] == "hedging" else "yes")
    hedging_rules = sorted({r["rule"] for r in rows if r["category"] == "hedging"})
    n_hedging = sum(r["category"] == "hedging" for r in rows)
    graded_dir = tmp_path / "graded"
    graded_dir.mkdir()
    path2, generated2, _ = _build(
        graded_dir, sample_per_rule=4, graded=str(tmp_path / "graded.tsv"), min_precision=0.15
    )
    audit = generated2.audit
    assert audit["per_category"]["hedging"]["audited"] == n_hedging and audit["per_category"]["hedging"]["valid"] == 0
    negation = audit["per_category"]["negation"]
    low, _ = wilson(negation["valid"], negation["audited"])
    assert negation["precision"] == 1.0 and negation["precision_low"] == pytest.approx(low, abs=1e-4)
    assert audit["dropped_rules"] == hedging_rules
    suite = load_suite(path2)
    assert "hedging" not in set(suite["category"])
    dropped_pairs = sum(r[1] == "hedging" for r in generated.rows)
    assert generated2.refusals["hedging"]["check.audit"] == dropped_pairs
    card = card_payload("s", generated2, _settings(), source={}, nlp=nlp)
    md = card_markdown(card)
    assert "## Audit" in md and "| hedging | " in md and "precision_low" in md
    card_path = tmp_path / "card.json"
    card_path.write_text(json.dumps(card), encoding="utf-8")
    note = suite_audit_note(str(card_path))
    assert note.startswith("Audited suite:") and "hedging 0.00" in note and ", ".join(hedging_rules) in note
    assert audit_caption(generated.audit) == "" and suite_audit_note([]) == ""


@pytest.mark.parametrize("change", ["unknown_id", "other_seed", "bad_verdict"])
def test_a_graded_file_that_does_not_match_is_one_line(tmp_path, change):
    path, _, _ = _build(tmp_path, sample_per_rule=2)
    graded = tmp_path / "graded.tsv"
    rows = _grade(path.with_suffix(".audit-sample.tsv"), graded, lambda r: "yes")
    if change == "unknown_id":
        text = graded.read_text(encoding="utf-8").replace(rows[0]["pair_id"], "s-a99999-negation", 1)
        graded.write_text(text, encoding="utf-8")
        expect = "is not in this suite's audit sample"
    elif change == "other_seed":
        graded.write_text("\n".join(graded.read_text(encoding="utf-8").splitlines()[:-3]) + "\n", encoding="utf-8")
        expect = "are not graded"
    else:
        text = graded.read_text(encoding="utf-8").replace("\tyes\t", "\tmaybe\t", 1)
        graded.write_text(text, encoding="utf-8")
        expect = "write yes or no"
    (tmp_path / "b").mkdir()
    with pytest.raises(PairbenchError) as err:
        _build(tmp_path / "b", sample_per_rule=2, graded=str(graded))
    message = str(err.value)
    assert str(graded) in message and expect in message and "\n" not in message


def test_audit_report_from_a_graded_blind_file(tmp_path):
    """bench/audit_report.py: blind file without the rule, key, then the table and the graded
    sample that `audit.graded` reads back."""
    import subprocess
    import sys

    path, _, _ = _build(tmp_path, sample_per_rule=2)
    sample = path.with_suffix(".audit-sample.tsv")
    script = REPO / "bench" / "audit_report.py"
    blind, key = tmp_path / "blind.tsv", tmp_path / "key.tsv"
    subprocess.run([sys.executable, script, "blind", sample, "--blind", blind, "--key", key, "--seed", "1"], check=True)
    rows = _read(blind)
    assert list(rows[0]) == ["item", "category", "sentence1", "sentence2", "valid", "note"]
    keys = {r["item"]: r for r in _read(key)}
    # the grader finds every negation pair invalid
    text = ["\t".join(["item", "category", "sentence1", "sentence2", "valid", "note"])]
    text += [
        "\t".join(
            [
                r["item"],
                r["category"],
                r["sentence1"],
                r["sentence2"],
                "no" if r["category"] == "negation" else "yes",
                "",
            ]
        )
        for r in rows
    ]
    (tmp_path / "graded-blind.tsv").write_text("\n".join(text) + "\n", encoding="utf-8")
    out = subprocess.run(
        [
            sys.executable,
            script,
            "report",
            tmp_path / "graded-blind.tsv",
            key,
            "--sample",
            sample,
            "--graded-out",
            tmp_path / "graded.tsv",
            "--csv",
            tmp_path / "t.csv",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    n_neg = sum(keys[r["item"]]["rule"].startswith("negation") for r in rows)
    low, high = wilson(0, n_neg)
    assert f"| negation | {n_neg} | 0 | 0.000 | {low:.3f} | {high:.3f} |" in out
    # the graded sample is this suite's: read back by the generator
    (tmp_path / "again").mkdir()
    _, again, _ = _build(tmp_path / "again", sample_per_rule=2, graded=str(tmp_path / "graded.tsv"))
    assert again.audit["per_category"]["negation"] == {
        "audited": n_neg,
        "valid": 0,
        "precision": 0.0,
        "precision_low": 0.0,
        "precision_high": round(high, 4),
    }
    # --within: only the graded pairs a later suite still holds (here: the negation pairs refused)
    lines = path.read_text(encoding="utf-8").splitlines()
    later = tmp_path / "later.tsv"
    later.write_text("\n".join(line for line in lines if "\tnegation\t" not in line) + "\n", encoding="utf-8")
    restricted = subprocess.run(
        [sys.executable, script, "report", tmp_path / "graded-blind.tsv", key, "--sample", sample, "--within", later],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert "| negation |" not in restricted
    n_pos = sum(keys[r["item"]]["rule"].startswith("positive_control") for r in rows)
    low, high = wilson(n_pos, n_pos)
    assert f"| positive_control | {n_pos} | {n_pos} | 1.000 | {low:.3f} | {high:.3f} |" in restricted


def test_audit_report_pools_the_readings_of_several_rounds(tmp_path):
    """`pool`: every reading of a pair the suite still holds, across rounds; a pair read twice is
    valid only when both readings say yes, and pairs the suite no longer holds are left out."""
    import subprocess
    import sys

    columns = ["pair_id", "category", "sentence1", "sentence2", "anchor", "rule"]
    suite = tmp_path / "suite.tsv"
    pairs = [
        ("p1", "negation", "A man runs.", "A man does not run.", "a1", "negation:do_support"),
        ("p2", "negation", "A dog barks.", "A dog does not bark.", "a2", "negation:do_support"),
        ("p3", "hedging", "A man runs.", "A man may run.", "a1", "hedging:add_may"),
    ]
    suite.write_text("\n".join("\t".join(r) for r in [columns, *pairs]) + "\n", encoding="utf-8")
    head = "item\treader\tcategory\tsentence1\tsentence2\tvalid\tnote"
    one = [
        head,
        "s1\ta\tnegation\tA man runs.\tA man does not run.\tyes\t",
        "s2\ta\thedging\tA man runs.\tA man may run.\tno\tx",
    ]
    two = [
        head,
        "s1\tb\tnegation\tA man runs.\tA man does not run.\tno\ty",
        "s2\tb\tnegation\tA dog barks.\tA dog does not bark.\tyes\t",
        "s3\tb\tnegation\tA cat sits.\tA cat does not sit.\tno\tgone from the suite",
    ]
    (tmp_path / "r1.tsv").write_text("\n".join(one) + "\n", encoding="utf-8")
    (tmp_path / "r2.tsv").write_text("\n".join(two) + "\n", encoding="utf-8")
    script = REPO / "bench" / "audit_report.py"
    out = subprocess.run(
        [sys.executable, script, "pool", suite, tmp_path / "r1.tsv", tmp_path / "r2.tsv", "--csv", tmp_path / "p.csv"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    low, high = wilson(1, 2)
    assert f"| negation | 2 | 1 | 0.500 | {low:.3f} | {high:.3f} |" in out
    assert f"| hedging | 1 | 0 | 0.000 | {wilson(0, 1)[0]:.3f} | {wilson(0, 1)[1]:.3f} |" in out
    rows = {(r["level"], r["name"]): r for r in csv.DictReader(open(tmp_path / "p.csv"), delimiter="\t")}
    assert rows[("rule", "negation:do_support")]["audited"] == "2"
