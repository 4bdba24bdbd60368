"""Anchors: (A, P) paraphrase pairs read from a dataset folder (TSV/CSV/Parquet, as the graded STS sets:
:mod:`pairbench.generated_suites.source`), kept by ``min_score`` on ``score_max`` and sampled by seed."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import polars as pl

from pairbench.core.errors import InputProblems, PairbenchError
from pairbench.core.sts_data import read_delimited, split_file


def _row_problem(where: str, fields, min_score, score_max) -> str | None:
    """What is wrong with one source row, in one line naming it, or None."""
    if len(fields) < (2 if min_score is None else 3):
        what = "sentence1, sentence2" if min_score is None else "sentence1, sentence2, score (min_score is set)"
        return f"{where}: expected {what}; got {len(fields)} field(s)"
    if not str(fields[0] or "").strip() or not str(fields[1] or "").strip():
        return f"{where}: empty sentence"
    if min_score is None:
        return None
    try:
        score = float(fields[2])
    except (TypeError, ValueError):
        return f"{where}: score {fields[2]!r} is not a number"
    if math.isnan(score) or not 0 <= score <= score_max:
        return f"{where}: score {fields[2]!r} is outside [0, {score_max:g}]; check `score_max`"
    return None


def read_pairs(
    folder: str | os.PathLike, splits, *, min_score=None, score_max=None, allow_none=False
) -> list[tuple[str, str]]:
    """The (A, P) pairs of the splits, in file order, kept by ``min_score``; every bad row named at once."""
    pairs, problems, total = [], [], 0
    for split in splits:
        path = split_file(Path(folder), split)
        if path.suffix == ".parquet":
            frame = pl.read_parquet(path)
            if missing := [c for c in ("sentence1", "sentence2") if c not in frame.columns]:
                raise PairbenchError(f"{path}: missing column(s) {missing}; has {frame.columns}")
            cols = ["sentence1", "sentence2", *(["score"] if "score" in frame.columns else [])]
            rows = [(f"{path}, row {i + 1}", list(r)) for i, r in enumerate(frame.select(cols).iter_rows())]
        else:
            rows = [(f"{path}, line {n}", fields) for n, fields in read_delimited(path)]
        if not rows:
            raise PairbenchError(f"{path}: no rows; point `data`/`split` at a file with sentence pairs")
        total += len(rows)
        for where, fields in rows:
            if problem := _row_problem(where, fields, min_score, score_max):
                problems.append(problem)
            elif min_score is None or float(fields[2]) >= min_score:
                pairs.append(tuple(str(f or "").strip() for f in fields[:2]))
    if problems:
        raise InputProblems(problems)
    if not pairs and not allow_none:
        raise PairbenchError(
            f"{folder}: no pair of split(s) {list(splits)} has a score >= {min_score} ({total} rows read); "
            "lower `min_score` or check `score_max`"
        )
    return pairs


def pick(rng, items: list, k: int) -> list:
    """``k`` of ``items`` drawn by ``rng`` without replacement (all where fewer), in their order."""
    return [items[i] for i in sorted(rng.choice(len(items), size=min(k, len(items)), replace=False))]


def select_anchors(pairs, *, max_anchors=None, seed=0) -> list[tuple[str, str]]:
    """Distinct anchors (each sentence1's first pair, A != P, none kept in the other order), then a seeded sample."""
    seen, kept = set(), []  # the anchors kept and their pairs in sorted order; the pairs
    for a, p in pairs:
        key = tuple(sorted((a, p)))
        if a in seen or a.lower() == p.lower() or key in seen:
            continue
        seen |= {a, key}
        kept.append((a, p))
    if max_anchors is not None and len(kept) > max_anchors:
        kept = pick(np.random.default_rng(seed), kept, max_anchors)
    return kept
