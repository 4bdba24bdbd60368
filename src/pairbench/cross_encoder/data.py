"""Graded sentence pairs for training and evaluation."""

from __future__ import annotations

from pairbench.core.sts_data import load_sts_split

STS_SCALE = 5.0  # the scale of the "raw" labels in raw_labels mode (STS: 0-5)


def load_pairs(data_dir, split: str, *, score_max: float, raw_labels: bool = False, symmetric: bool = False):
    """Return (sentence1, sentence2, labels) lists; labels in [0, 1], or 0-5 when ``raw_labels``."""
    frame = load_sts_split(data_dir, split, score_max=score_max)
    s1 = frame["sentence1"].to_list()
    s2 = frame["sentence2"].to_list()
    labels = frame["score"].to_list()
    if raw_labels:
        labels = [y * STS_SCALE for y in labels]
    if symmetric:
        s1, s2, labels = s1 + s2, s2 + s1, labels + labels
    return s1, s2, labels


def make_dataset(s1, s2, labels):
    """A ``datasets.Dataset`` in the column layout the cross-encoder trainer expects."""
    from datasets import Dataset

    return Dataset.from_dict({"sentence1": list(s1), "sentence2": list(s2), "label": [float(y) for y in labels]})
