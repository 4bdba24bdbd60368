"""The audit of a generated suite: a seeded sample per rule to grade, read back into precision per
rule and category (Wilson 95%); rules under ``min_precision`` leave the suite. See docs/generated_suites.md."""

from __future__ import annotations

import csv
import os
import zlib
from collections import defaultdict
from pathlib import Path

import numpy as np

from pairbench.core.errors import PairbenchError
from pairbench.core.io import atomic_write_text
from pairbench.generated_suites.anchors import pick
from pairbench.study.suite import ADVERSARIAL_CATEGORIES, POSITIVE_CONTROL

SAMPLE_COLUMNS = ("pair_id", "category", "rule", "sentence1", "sentence2", "valid", "note")
TABLE_COLUMNS = ("audited", "valid", "precision", "precision_low", "precision_high")
_YES, _NO = {"yes", "y", "1", "true"}, {"no", "n", "0", "false"}
# The sample's own random stream: the suite's seed, offset so it is not the generator's stream.
_SEED_OFFSET = 7919


def audit_settings(block: dict | None) -> dict:
    """``audit`` with the schema's defaults for keys the block leaves out."""
    from pairbench.core.schemas import load_schema

    props = load_schema("generated_suites.schema.yaml")["properties"]["audit"]["properties"]
    return {key: (block or {}).get(key, spec.get("default")) for key, spec in props.items()}


def audit_sample(rows, per_rule: int, seed: int, fallback_rules=frozenset()) -> list[tuple]:
    """``per_rule`` suite rows of every rule (all where fewer), shuffled; seeded. A fallback rule draws
    from its own stream, seeded by its name, so adding one changes no other rule's sample."""
    rng = np.random.default_rng(seed + _SEED_OFFSET)
    by_rule = defaultdict(list)
    for row in rows:
        by_rule[row[5]].append(row)
    picked = [row for rule in sorted(set(by_rule) - set(fallback_rules)) for row in pick(rng, by_rule[rule], per_rule)]
    sample = [picked[i] for i in rng.permutation(len(picked))]
    for rule in sorted(set(by_rule) & set(fallback_rules)):
        own = np.random.default_rng([seed + _SEED_OFFSET, zlib.crc32(rule.encode())])
        for row in pick(own, by_rule[rule], per_rule):
            sample.insert(int(own.integers(len(sample) + 1)), row)
    return sample


def write_audit_sample(sample, path: str | os.PathLike) -> Path:
    lines = ["\t".join(SAMPLE_COLUMNS), *("\t".join((r[0], r[1], r[5], r[2], r[3], "", "")) for r in sample)]
    return atomic_write_text(path, "\n".join(lines) + "\n")


def read_graded(path: str | os.PathLike, sample, sample_path="the audit sample") -> list[tuple[str, str, bool]]:
    """(category, rule, valid) of every graded row of this suite's sample, each pair once, valid yes or no.
    The graded file is TSV as the sample is written, or a spreadsheet's CSV."""
    path = Path(path)
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            header = handle.readline()
            handle.seek(0)
            # a tab (read unquoted, as written), else a spreadsheet's separator: ';' (a decimal comma's) or ','
            delimiter = max(("\t", ";", ","), key=lambda d: (header.count(d), d == "\t"))
            quoting = csv.QUOTE_NONE if delimiter == "\t" else csv.QUOTE_MINIMAL
            reader = csv.DictReader(handle, delimiter=delimiter, quoting=quoting)
            if missing := [c for c in ("pair_id", "valid") if c not in (reader.fieldnames or [])]:
                raise PairbenchError(
                    f"{path}: no column(s) {missing}; grade the suite's audit sample "
                    f"(columns {', '.join(SAMPLE_COLUMNS)})"
                )
            rows = [(reader.line_num, row) for row in reader]
    except (OSError, UnicodeDecodeError, csv.Error) as err:
        raise PairbenchError(f"{path}: cannot read the graded audit file ({err}); check `audit.graded`") from None
    expected = {r[0]: r for r in sample}
    out, seen = [], {}
    for line, row in rows:
        pid = (row.get("pair_id") or "").strip()
        if pid in seen:
            raise PairbenchError(
                f"{path}, line {line}: pair {pid!r} is graded twice (lines {seen[pid]} and {line}); "
                "keep one of the two rows"
            )
        suite_row = expected.get(pid)
        if suite_row is None or any(row.get(f"sentence{k}") not in (None, suite_row[k + 1]) for k in (1, 2)):
            raise PairbenchError(
                f"{path}, line {line}: pair {pid!r} is not in this suite's audit sample (another suite, seed or sample "
                f"size?); grade {sample_path} as this run writes it, or unset `audit.graded`"
            )
        verdict = (row.get("valid") or "").strip().lower()
        if verdict not in _YES | _NO:
            raise PairbenchError(f"{path}, line {line}: valid is {row.get('valid')!r}; write yes or no for every row")
        seen[pid] = line
        out.append((suite_row[1], suite_row[5], verdict in _YES))
    if len(seen) != len(expected):
        raise PairbenchError(
            f"{path}: {len(expected) - len(seen)} of the suite's {len(expected)} audit pairs are not graded "
            f"(another seed or sample size?); grade the whole of {sample_path}"
        )
    return out


def wilson(valid: int, audited: int) -> tuple[float, float]:
    """The Wilson score 95% interval of ``valid / audited`` (scipy.stats.binomtest)."""
    from scipy.stats import binomtest

    ci = binomtest(valid, audited).proportion_ci(confidence_level=0.95, method="wilson")
    return float(ci.low), float(ci.high)


def precision_table(graded, key: int) -> dict[str, dict]:
    """Per rule (``key=1``) or per category (``key=0``): audited, valid, precision and its interval."""
    table = {}
    for name in sorted({item[key] for item in graded}):
        verdicts = [item[2] for item in graded if item[key] == name]
        n, valid = len(verdicts), sum(verdicts)
        table[name] = dict(zip(TABLE_COLUMNS, (n, valid, *(round(v, 4) for v in (valid / n, *wilson(valid, n))))))
    return table


def run_audit(generated, settings, name: str, sample_path) -> dict:
    """Write the sample; with ``audit.graded``, drop rules under ``min_precision``; the card's audit section."""
    audit = audit_settings(settings.audit)
    sample = audit_sample(generated.rows, audit["sample_per_rule"], settings.seed, generated.fallback_rules)
    write_audit_sample(sample, sample_path)
    section = {"sample": str(sample_path), "sample_per_rule": audit["sample_per_rule"], "n_sampled": len(sample)}
    section |= {"graded": audit["graded"], "min_precision": audit["min_precision"]}
    section |= {"per_rule": {}, "per_category": {}, "dropped_rules": []}
    if not audit["graded"]:
        return section
    graded = read_graded(audit["graded"], sample, sample_path)
    per_rule = section["per_rule"] = precision_table(graded, 1)
    section["per_category"] = precision_table(graded, 0)
    floor = audit["min_precision"]
    if floor is None:
        return section
    dropped = section["dropped_rules"] = sorted(r for r, row in per_rule.items() if row["precision_low"] < floor)
    for category in (row[1] for row in generated.rows if row[5] in dropped):
        generated.refuse(category, "check.audit")
    kept = [row for row in generated.rows if row[5] not in dropped]
    # Stop when min_precision leaves the suite without positive controls or adversarial pairs.
    key = f"`generated_suites.{name}.audit.min_precision`"
    for what, categories in (("positive control", {POSITIVE_CONTROL}), ("adversarial pair", ADVERSARIAL_CATEGORIES)):
        if any(r[1] in categories for r in kept) or not any(r[1] in categories for r in generated.rows):
            continue
        rules = sorted({r[5] for r in generated.rows if r[1] in categories})
        low = {rule: per_rule.get(rule, {}).get("precision_low", 0.0) for rule in rules}
        lows = ", ".join(f"{rule} {low[rule]:.2f}" for rule in rules[:10])
        more = f" and {len(rules) - 10} more" if len(rules) > 10 else ""
        raise PairbenchError(
            f"generated suite {name!r}: audit.min_precision {floor:g} drops every rule that makes a {what} "
            f"(precision_low: {lows}{more}), so no {what} is left and no statistic can be computed; check "
            f"the grades, or set {key} to at most {max(low.values()):.2f} (the highest of these) or remove it"
        )
    generated.rows = kept
    return section
