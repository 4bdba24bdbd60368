"""Sentence sets: the distinct sentences a latent cache holds (``training.frozen_features.sentence_sets``)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from pairbench.core.errors import ConfigError, PairbenchError


def distinct(sentences: Iterable[str]) -> list[str]:
    """Stripped, non-empty sentences, each once, in order of first appearance."""
    seen: dict[str, None] = {}
    for s in sentences:
        s = str(s).strip() if s is not None else ""
        if s and s not in seen:
            seen[s] = None
    return list(seen)


def read_text_lines(path: Path) -> list[str]:
    with open(path, encoding="utf-8") as handle:
        return [line.rstrip("\n\r") for line in handle]


def read_table_columns(path: Path, columns: Sequence[str]) -> list[str]:
    import polars as pl

    if path.suffix == ".parquet":
        frame = pl.read_parquet(path)
    else:
        sep = "\t" if path.suffix == ".tsv" else ","
        frame = pl.read_csv(path, separator=sep, quote_char=None if sep == "\t" else '"', infer_schema=False)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise PairbenchError(
            f"{path}: no column(s) {missing} (has {frame.columns}); set `columns:` of this sentence set, "
            "or `format: text` for one sentence per line"
        )
    out: list[str] = []
    for column in columns:
        out += [s for s in frame[column].cast(str).to_list() if s is not None]
    return out


def file_format(path: Path, fmt: str) -> str:
    if fmt != "auto":
        return fmt
    return "table" if path.suffix in (".tsv", ".csv", ".parquet") else "text"


def read_sts_sentences(folder: Path, split: str, score_max) -> list[str]:
    from pairbench.core.sts_data import load_sts_split

    frame = load_sts_split(folder, split, score_max=score_max)
    return frame["sentence1"].to_list() + frame["sentence2"].to_list()


def read_files(spec: dict, fmt: str, columns: list[str]) -> list[str]:
    sentences: list[str] = []
    for name in spec["files"]:
        path = Path(name)
        if not path.exists():
            raise PairbenchError(f"sentence set file {path} does not exist (paths are relative to {Path.cwd()})")
        kind = file_format(path, fmt)
        if kind == "sts":
            sentences += read_sts_sentences(path.parent, path.stem, spec.get("score_max", 5))
        elif kind == "table":
            sentences += read_table_columns(path, columns)
        else:
            sentences += read_text_lines(path)
    return sentences


def read_dataset_splits(spec: dict, folder: Path, fmt: str, columns: list[str]) -> list[str]:
    sentences: list[str] = []
    for split in spec.get("splits") or ["train"]:
        if fmt == "sts":
            sentences += read_sts_sentences(folder, split, spec.get("score_max", 5))
            continue
        candidates = [folder / f"{split}.{ext}" for ext in ("parquet", "tsv", "csv", "txt")]
        path = next((p for p in candidates if p.exists()), None)
        if path is None:
            raise PairbenchError(f"{folder}: no file for split {split!r} (tried {[p.name for p in candidates]})")
        kind = file_format(path, fmt)
        sentences += read_table_columns(path, columns) if kind == "table" else read_text_lines(path)
    return sentences


def read_sentence_set(spec: dict, dataset_dir: str | os.PathLike | None = None) -> list[str]:
    """The distinct sentences of a sentence set (config block under ``training.frozen_features.sentence_sets``).

    A set reads either local ``files`` (``.txt`` or any other text file: one sentence per line;
    ``.tsv``/``.csv`` with a header, or ``.parquet``: the given ``columns``) or the ``splits`` of
    a materialised dataset folder (``dataset_dir``, from the top-level ``datasets:``). ``format:
    sts`` reads STS pairs with :func:`pairbench.core.sts_data.load_sts_split` (headerless STS-B CSVs
    included). ``sample: N`` keeps a seeded random sample of N distinct sentences.
    """
    # The implicit {data}-pairs sets and hand-written specs in tests carry only some keys.
    fmt = spec.get("format", "auto")
    columns = list(spec.get("columns") or ["sentence1", "sentence2"])
    if spec.get("files"):
        sentences = read_files(spec, fmt, columns)
    elif dataset_dir is not None:
        sentences = read_dataset_splits(spec, Path(dataset_dir), fmt, columns)
    else:
        raise ConfigError("a sentence set needs `files:` or `dataset:`")
    sentences = distinct(sentences)
    if not sentences:
        raise PairbenchError(f"sentence set {spec} holds no sentences")
    sample = spec.get("sample")
    if sample and sample < len(sentences):
        rng = np.random.default_rng(int(spec.get("seed", 0)))
        keep = np.sort(rng.choice(len(sentences), size=int(sample), replace=False))
        sentences = [sentences[i] for i in keep]
    return sentences
