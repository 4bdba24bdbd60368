"""The project's blind audit of generated suites (docs/generated_suites.md#audit).

Two steps, each one command (a step 0, `sample`, draws a fresh sample of a suite with another
seed than the generation job's, for a later round of grading):

  # 0. a new sample of 30 pairs per rule from a written suite, drawn with seed 1
  python bench/audit_report.py sample results/suites/generated-stsb.tsv \
      --out bench/audit/stsb-r2-sample.tsv --per-rule 30 --seed 1

  # 1. from an audit sample as the generation job writes it, the grader's blind file (rule hidden,
  #    rows shuffled again, numbered items) and the key that maps items back to pairs and rules
  python bench/audit_report.py blind bench/audit/stsb-sample.tsv \
      --blind bench/audit/stsb-blind.tsv --key bench/audit/stsb-key.tsv --seed 1

  # 2. from the blind file with `valid` filled (yes/no) and the key: audited, valid, precision and
  #    its Wilson 95% interval per rule and per category (Markdown on stdout, CSV with --csv), and
  #    optionally the graded sample in the audit-sample format, for `audit.graded`
  python bench/audit_report.py report bench/audit/stsb-blind-graded.tsv bench/audit/stsb-key.tsv \
      --sample bench/audit/stsb-sample.tsv --graded-out bench/audit/stsb-graded.tsv \
      --csv bench/results/audit-stsb.csv

  # 3. the same restricted to the graded pairs a suite written later still holds: where later
  #    rules only refuse, the sample's surviving pairs are a random sample of that suite per rule
  python bench/audit_report.py report bench/audit/stsb-r2-blind-graded.tsv bench/audit/stsb-r2-key.tsv \
      --sample bench/audit/stsb-r2-sample.tsv --within results/suites/generated-stsb.tsv \
      --csv bench/results/audit-stsb-r2-surviving.csv

  # 4. precision of a written suite from every round's readings of the pairs it still holds (a pair
  #    read more than once is valid when every reading says yes)
  python bench/audit_report.py pool results/suites/generated-stsb.tsv bench/audit/r12-readings.tsv \
      bench/audit/r13-readings.tsv --csv bench/results/audit-stsb-pooled.csv

The blind file's columns: item, category, sentence1, sentence2, valid, note (the grader fills
valid with yes or no and may write a note); the key's: item, pair_id, rule.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import numpy as np

from pairbench.core.errors import PairbenchError
from pairbench.generated_suites.audit import (
    SAMPLE_COLUMNS,
    TABLE_COLUMNS,
    audit_sample,
    precision_table,
    write_audit_sample,
)

BLIND_COLUMNS = ("item", "category", "sentence1", "sentence2", "valid", "note")
KEY_COLUMNS = ("item", "pair_id", "rule")


def _read(path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def _write(path, columns, rows) -> None:
    """Tab-separated, unquoted (sentences hold no tabs or newlines), like the suites."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    lines = ["\t".join(columns)] + ["\t".join(str(row.get(c, "")) for c in columns) for row in rows]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def sample(suite_path, out_path, per_rule: int, seed: int) -> int:
    """An audit sample of a written suite, as the generation job draws it but with ``seed``."""
    rows = [
        (r["pair_id"], r["category"], r["sentence1"], r["sentence2"], r["anchor"], r["rule"]) for r in _read(suite_path)
    ]
    picked = audit_sample(rows, per_rule, seed)
    write_audit_sample(picked, out_path)
    return len(picked)


def blind(sample_path, blind_path, key_path, seed: int) -> int:
    rows = _read(sample_path)
    order = np.random.default_rng(seed).permutation(len(rows))
    blind_rows, key_rows = [], []
    for n, i in enumerate(order, start=1):
        row, item = rows[i], f"i{n:04d}"
        blind_rows.append(
            {
                "item": item,
                "category": row["category"],
                "sentence1": row["sentence1"],
                "sentence2": row["sentence2"],
                "valid": "",
                "note": "",
            }
        )
        key_rows.append({"item": item, "pair_id": row["pair_id"], "rule": row["rule"]})
    _write(blind_path, BLIND_COLUMNS, blind_rows)
    _write(key_path, KEY_COLUMNS, key_rows)
    return len(rows)


def graded_items(graded_path, key_path) -> list[tuple[str, str, bool, dict, dict]]:
    """(category, rule, valid, blind row, key row) of every item; one-line errors."""
    key = {r["item"]: r for r in _read(key_path)}
    out = []
    for line, row in enumerate(_read(graded_path), start=2):
        k = key.pop(row.get("item", ""), None)
        if k is None:
            raise PairbenchError(f"{graded_path}, line {line}: item {row.get('item')!r} is not in {key_path}")
        verdict = (row.get("valid") or "").strip().lower()
        if verdict not in ("yes", "no"):
            raise PairbenchError(f"{graded_path}, line {line}: valid is {row.get('valid')!r}; write yes or no")
        out.append((row["category"], k["rule"], verdict == "yes", row, k))
    if key:
        raise PairbenchError(f"{graded_path}: {len(key)} item(s) of {key_path} are not graded, e.g. {min(key)}")
    return out


def markdown(table: dict, title: str) -> str:
    lines = [f"| {title} | " + " | ".join(TABLE_COLUMNS) + " |", "|---" * (len(TABLE_COLUMNS) + 1) + "|"]
    for name, r in table.items():
        lines.append(
            f"| {name} | {r['audited']} | {r['valid']} | {r['precision']:.3f} | {r['precision_low']:.3f} | {r['precision_high']:.3f} |"
        )
    return "\n".join(lines)


def within(items, sample_path, suite_path) -> list:
    """The graded items whose sampled pair (category, sentence1, sentence2) a written suite still holds."""
    kept = {(r["category"], r["sentence1"], r["sentence2"]) for r in _read(suite_path)}
    pairs = {r["pair_id"]: (r["category"], r["sentence1"], r["sentence2"]) for r in _read(sample_path)}
    return [item for item in items if pairs[item[4]["pair_id"]] in kept]


def report(graded_path, key_path, sample_path=None, graded_out=None, csv_out=None, suite=None) -> str:
    items = graded_items(graded_path, key_path)
    if suite:
        items = within(items, sample_path, suite)
    per_category, per_rule = precision_table(items, 0), precision_table(items, 1)
    if csv_out:
        rows = [{"level": "category", "name": n, **r} for n, r in per_category.items()]
        rows += [{"level": "rule", "name": n, **r} for n, r in per_rule.items()]
        _write(csv_out, ("level", "name", *TABLE_COLUMNS), rows)
    if graded_out:
        verdicts = {k["pair_id"]: ("yes" if valid else "no", row.get("note", "")) for _, _, valid, row, k in items}
        sample = _read(sample_path)
        for row in sample:
            row["valid"], row["note"] = verdicts[row["pair_id"]]
        _write(graded_out, SAMPLE_COLUMNS, sample)
    return markdown(per_category, "category") + "\n\n" + markdown(per_rule, "rule") + "\n"


def pool(suite_path, readings, csv_out=None) -> str:
    """Precision of a written suite from every reading of its pairs across rounds: each file of
    ``readings`` has the columns category, sentence1, sentence2 and valid (a graded blind file, or
    one row per reading); a pair of the suite that some file read counts once, valid when every
    reading of it says yes. Pairs the suite no longer holds are left out."""
    suite = {(r["category"], r["sentence1"], r["sentence2"]): r["rule"] for r in _read(suite_path)}
    verdicts: dict = {}
    for path in readings:
        for line, row in enumerate(_read(path), start=2):
            verdict = (row.get("valid") or "").strip().lower()
            if verdict not in ("yes", "no"):
                raise PairbenchError(f"{path}, line {line}: valid is {row.get('valid')!r}; write yes or no")
            pair = (row["category"], row["sentence1"], row["sentence2"])
            if pair in suite:
                verdicts[pair] = verdicts.get(pair, True) and verdict == "yes"
    items = [(pair[0], suite[pair], valid) for pair, valid in verdicts.items()]
    per_category, per_rule = precision_table(items, 0), precision_table(items, 1)
    if csv_out:
        rows = [{"level": "category", "name": n, **r} for n, r in per_category.items()]
        rows += [{"level": "rule", "name": n, **r} for n, r in per_rule.items()]
        _write(csv_out, ("level", "name", *TABLE_COLUMNS), rows)
    return markdown(per_category, "category") + "\n\n" + markdown(per_rule, "rule") + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sample", help="a new audit sample of a written suite with another seed")
    s.add_argument("suite")
    s.add_argument("--out", required=True)
    s.add_argument("--per-rule", type=int, default=30)
    s.add_argument("--seed", type=int, default=1)
    b = sub.add_parser("blind", help="blind file and key from an audit sample")
    b.add_argument("sample")
    b.add_argument("--blind", required=True)
    b.add_argument("--key", required=True)
    b.add_argument("--seed", type=int, default=1)
    r = sub.add_parser("report", help="precision per rule and category from a graded blind file and its key")
    r.add_argument("graded")
    r.add_argument("key")
    r.add_argument("--sample", help="the audit sample the blind file came from (needed with --graded-out)")
    r.add_argument("--graded-out", help="write the graded sample in the audit-sample format (for audit.graded)")
    r.add_argument("--csv", help="write the two tables as one CSV")
    r.add_argument(
        "--within", help="count only the graded pairs this written suite still holds (rules that only refuse)"
    )
    o = sub.add_parser("pool", help="precision of a written suite from the readings of several rounds")
    o.add_argument("suite")
    o.add_argument("readings", nargs="+")
    o.add_argument("--csv", help="write the two tables as one CSV")
    args = parser.parse_args(argv)
    try:
        if args.command == "sample":
            n = sample(args.suite, args.out, args.per_rule, args.seed)
            print(f"{n} pairs -> {args.out}")
        elif args.command == "blind":
            n = blind(args.sample, args.blind, args.key, args.seed)
            print(f"{n} items -> {args.blind} (for the grader), {args.key} (kept from the grader)")
        elif args.command == "pool":
            print(pool(args.suite, args.readings, args.csv), end="")
        else:
            if (args.graded_out or args.within) and not args.sample:
                parser.error("--graded-out and --within need --sample")
            print(report(args.graded, args.key, args.sample, args.graded_out, args.csv, args.within), end="")
    except PairbenchError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
