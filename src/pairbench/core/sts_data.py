"""Graded sentence-pair data (STS-B and the like) for the training stages.

A dataset folder (as materialised under ``resources/datasets/{key}``) holds one file per split:

- ``{split}.parquet`` (a hub dataset, e.g. ``sentence-transformers/stsb``: columns
  ``sentence1, sentence2, score``), or
- ``{split}.csv`` / ``{split}.tsv`` with or without a header ``sentence1, sentence2, score``
  (the STS-B CSVs have none). A first row that names columns, whatever the names, is a header
  (:func:`is_header`); a field over the csv limit stops the read at its line.

The label scale is never guessed: callers pass ``score_max`` (1 or 5, from the config) and every
score must lie in ``[0, score_max]``; a ``score_max`` of 5 on data that never exceeds 1 is an error
too (it is almost surely already scaled). Scores come back scaled to [0, 1].
"""

from __future__ import annotations

import csv
import logging
import math
import os
import re
from pathlib import Path

import polars as pl

from pairbench.core.errors import InputProblems, PairbenchError

COLUMNS = ("sentence1", "sentence2", "score")
log = logging.getLogger(__name__)


def split_file(folder: Path, split: str) -> Path:
    """The file of one split in a dataset folder: ``{split}.parquet``, ``.tsv`` or ``.csv``."""
    for ext in ("parquet", "tsv", "csv"):
        candidate = folder / f"{split}.{ext}"
        if candidate.exists():
            return candidate
    found = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
    raise PairbenchError(
        f"{folder}: no file for split {split!r} ({split}.parquet, {split}.tsv or {split}.csv); found {found}"
    )


# A column name: at most three words of letters, digits, "_", "." or "-", no sentence punctuation.
COLUMN_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*( [A-Za-z0-9_.\-]+){0,2}$")


def _number(text) -> bool:
    try:
        float(text)
    except (TypeError, ValueError):
        return False
    return True


def _names(fields) -> bool:
    return len(fields) >= 2 and all(COLUMN_NAME.match(str(f).strip()) for f in fields[:2])


def is_header(first: list[str], second: list[str] | None) -> bool:
    """Whether ``first`` names columns rather than holding a pair (``second``: the next row).

    A header when its score field is not a number while the next row's is, or when its two text
    fields look like column names and the next row's do not (or there is no next row).
    """
    names = [str(f).strip() for f in first]
    if len(names) >= 3 and _number(names[2]):
        return False
    if len(names) >= 3 and second is not None and len(second) >= 3 and _number(second[2]):
        return True
    return _names(names) and (second is None or not _names(second))


def encoding_problem(path: Path, head_only: bool = False) -> str | None:
    """Why a text file is not UTF-8, at its first bad line (UTF-16: at its byte-order mark or NUL
    bytes), or None; ``head_only``: the UTF-16 check of the first 4 KiB alone."""
    with open(path, "rb") as handle:
        data = handle.read(4096 if head_only else -1)
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in data[:4096]:
        return f"{path}: the file is UTF-16 (a byte-order mark or NUL bytes), not UTF-8; save it as UTF-8"
    for number, line in enumerate([] if head_only else data.split(b"\n"), start=1):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as err:
            column = len(line[: err.start].decode("utf-8", "replace")) + 1
            return (
                f"{path}, line {number}: not valid UTF-8 (byte {line[err.start]:#04x} at column {column}; "
                "Latin-1 or Windows-1252?); save the file as UTF-8"
            )
    return None


def read_delimited(path: Path) -> list[tuple[int, list[str]]]:
    """(line number, fields) of a CSV/TSV split file, its header row (if any) dropped."""
    delimiter = "\t" if path.suffix == ".tsv" else ","
    problem = encoding_problem(path, head_only=True)
    if problem:
        raise PairbenchError(problem)
    rows = []
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter=delimiter)
        try:
            for fields in reader:
                rows.append((reader.line_num, fields))
        except csv.Error as err:
            raise PairbenchError(
                f"{path}, line {reader.line_num}: {err}: a field this long is not a sentence (an unclosed "
                "quote or a missing line break?); fix the file"
            ) from None
        except UnicodeDecodeError as err:
            problem = encoding_problem(path) or f"{path}: not valid UTF-8 ({err.reason}); save the file as UTF-8"
            raise PairbenchError(problem) from None
    if rows and is_header(rows[0][1], rows[1][1] if len(rows) > 1 else None):
        log.info("%s: line %d is a header (%s), not a pair: dropped", path, rows[0][0], ", ".join(rows[0][1]))
        rows = rows[1:]
    return rows


def _record(where: str, fields, score_max: float) -> tuple[str, str, float] | str:
    """(sentence1, sentence2, score scaled to [0, 1]) of one row, or what is wrong with it."""
    if len(fields) < 3:
        return f"{where}: expected sentence1, sentence2, score; got {len(fields)} field(s)"
    s1, s2, raw = fields[0], fields[1], fields[2]
    try:
        score = float(raw)
    except (TypeError, ValueError):
        return f"{where}: score {raw!r} is missing or not a number"
    if math.isnan(score) or not 0.0 <= score <= score_max:
        return f"{where}: score {raw!r} is outside [0, {score_max:g}]; check `score_max` for this dataset"
    if not str(s1 or "").strip() or not str(s2 or "").strip():
        return f"{where}: empty sentence"
    return str(s1), str(s2), score / score_max


def load_sts_split(folder: str | os.PathLike, split: str, *, score_max: float) -> pl.DataFrame:
    """Load one split as ``sentence1, sentence2, score`` with scores scaled to [0, 1].

    Errors name the file and line of a missing, non-numeric or out-of-range score: every bad row
    at once, one line each (the first 20 shown).
    """
    if score_max not in (1, 1.0, 5, 5.0):
        raise PairbenchError(f"score_max must be 1 or 5 (the label scale of the data), got {score_max!r}")
    path = split_file(Path(folder), split)
    records: list[tuple[str, str, float]] = []
    if path.suffix == ".parquet":
        frame = pl.read_parquet(path)
        missing = [c for c in COLUMNS if c not in frame.columns]
        if missing:
            raise PairbenchError(f"{path}: missing column(s) {missing}; has {frame.columns}")
        rows = [(i + 2, list(r)) for i, r in enumerate(frame.select(COLUMNS).iter_rows())]
    else:
        rows = read_delimited(path)
    problems = []
    for lineno, fields in rows:
        where = f"{path}, line {lineno}" if path.suffix != ".parquet" else f"{path}, row {lineno - 1}"
        record = _record(where, fields, score_max)
        if isinstance(record, str):
            problems.append(record)
        else:
            records.append(record)
    if problems:  # every bad row at once, one line each
        raise InputProblems(problems)
    if not records:
        raise PairbenchError(f"{path}: no rows")
    if score_max == 5 and max(r[2] for r in records) * 5 <= 1.0:
        raise PairbenchError(
            f"{path}: score_max is 5 but no score exceeds 1: the labels look already scaled to [0, 1]; "
            "set score_max: 1 for this dataset"
        )
    return pl.DataFrame(
        records, schema={"sentence1": pl.String, "sentence2": pl.String, "score": pl.Float64}, orient="row"
    )
