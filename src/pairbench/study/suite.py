"""Pair suites: TSV files of sentence pairs in named categories, validated on load.

Format (UTF-8, tab-separated, one header line)::

    pair_id<TAB>category<TAB>sentence1<TAB>sentence2

Rules checked on every load, each error naming the file and line: the exact header; a unique,
non-empty ``pair_id``; a known ``category``; non-empty sentences; sentence1 != sentence2;
no pair (in either order) twice.
"""

from __future__ import annotations

import csv
import hashlib
import os
from pathlib import Path

import polars as pl

from pairbench.core.errors import SuiteError

HEADER = ("pair_id", "category", "sentence1", "sentence2")
# Optional trailing columns of any suite: the anchor group and the rule that made the pair.
OPTIONAL = ("anchor", "rule")

# The compositional categories. The first six are adversarial: the two sentences differ in
# meaning by one compositional change, so a good similarity model should score them low.
ADVERSARIAL_CATEGORIES = ("negation", "numerical", "entity_swap", "temporal", "quantifier", "hedging")
CONTROL_CATEGORIES = ("positive_control", "negative_control", "near_miss")
CATEGORIES = ADVERSARIAL_CATEGORIES + CONTROL_CATEGORIES
POSITIVE_CONTROL = "positive_control"

_MAX_ERRORS = 20


def suite_sha256(path: str | os.PathLike) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def load_suite(path: str | os.PathLike, categories: tuple[str, ...] = CATEGORIES) -> pl.DataFrame:
    """Read and validate a suite; return a frame with the four string columns, in file order."""
    path = Path(path)
    if not path.exists():
        raise SuiteError(f"{path}: suite file not found. Check `suites:` in the config.")
    errors: list[str] = []
    rows: list[tuple[str, ...]] = []
    header = HEADER
    ids: dict[str, int] = {}
    pairs: dict[tuple[str, str], int] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise SuiteError(f"{path}: not valid UTF-8 ({err}). Save the file as UTF-8.") from err
    reader = csv.reader(text.splitlines(), delimiter="\t", quoting=csv.QUOTE_NONE)
    for lineno, fields in enumerate(reader, start=1):
        if lineno == 1:
            header = tuple(f.strip() for f in fields)
            if header[:4] != HEADER or header[4:] not in ((), OPTIONAL[:1], OPTIONAL):
                raise SuiteError(
                    f"{path}, line 1: header must be {'<TAB>'.join(HEADER)!r} (tab-separated), "
                    f"got {fields!r}"
                )
            continue
        if not fields or all(not f.strip() for f in fields):
            continue  # blank lines are allowed (e.g. a trailing newline)
        where = f"{path}, line {lineno}"
        if len(fields) != len(header):
            errors.append(
                f"{where}: expected {len(header)} tab-separated fields, found {len(fields)} "
                "(a tab inside a sentence, or a missing column?)"
            )
            continue
        pair_id, category, s1, s2, *extra = (f.strip() for f in fields)
        if not pair_id:
            errors.append(f"{where}: empty pair_id")
        elif pair_id in ids:
            errors.append(f"{where}: duplicate pair_id {pair_id!r} (first on line {ids[pair_id]})")
        else:
            ids[pair_id] = lineno
        if category not in categories:
            errors.append(
                f"{where}: unknown category {category!r} (pair {pair_id!r}); known: {', '.join(categories)}"
            )
        if not s1:
            errors.append(f"{where}: empty sentence1 (pair {pair_id!r})")
        if not s2:
            errors.append(f"{where}: empty sentence2 (pair {pair_id!r})")
        if s1 and s1 == s2:
            errors.append(f"{where}: sentence1 and sentence2 are identical (pair {pair_id!r})")
        key = tuple(sorted((s1, s2)))
        if s1 and s2 and s1 != s2:
            if key in pairs:
                errors.append(f"{where}: the same pair already appears on line {pairs[key]} (pair {pair_id!r})")
            else:
                pairs[key] = lineno
        rows.append((pair_id, category, s1, s2, *extra))
        if len(errors) >= _MAX_ERRORS:
            break
    if errors:
        more = " (stopped after the first errors)" if len(errors) >= _MAX_ERRORS else ""
        raise SuiteError(f"{len(errors)} problem(s) in suite {path}{more}:\n  " + "\n  ".join(errors))
    if not rows:
        raise SuiteError(f"{path}: the suite has a header but no pairs")
    return pl.DataFrame(rows, schema={name: pl.String for name in header}, orient="row")
