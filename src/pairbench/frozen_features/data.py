"""STS pairs resolved against a latent cache, and the correlations every table reports."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pairbench.frozen_features.config import resolve_layers


@dataclass
class StsSplit:
    sentence1: list[str]
    sentence2: list[str]
    gold: np.ndarray
    rows1: np.ndarray
    rows2: np.ndarray


@dataclass
class StsData:
    """STS pairs as rows into ``X [L, N, D]`` (float16/32 tensor of the run's layers, in memory)."""

    X: object
    layers: list[int]
    splits: dict[str, StsSplit] = field(default_factory=dict)


def load_sts_data(cache_dir, dataset_dir, *, splits: dict, score_max: float, layers=None) -> StsData:
    """Pairs of ``splits`` (``{"train": name, "dev": name, "test": name}``) resolved against the cache."""
    import torch

    from pairbench.core.sts_data import load_sts_split
    from pairbench.frozen_features.latents import LatentCache

    cache = LatentCache(cache_dir)
    layer_ids = resolve_layers(layers, cache.n_layers)
    out = {}
    for role in ("train", "dev", "test"):
        frame = load_sts_split(dataset_dir, splits[role], score_max=score_max)
        s1, s2 = frame["sentence1"].to_list(), frame["sentence2"].to_list()
        out[role] = StsSplit(s1, s2, frame["score"].to_numpy().astype(np.float32), cache.rows(s1), cache.rows(s2))
    X = torch.from_numpy(np.stack([np.asarray(cache.layers[layer]) for layer in layer_ids]))
    return StsData(X=X, layers=layer_ids, splits=out)


def correlations(pred: np.ndarray, gold: np.ndarray) -> tuple[float, float]:
    """(Pearson, Spearman); NaN for fewer than two pairs or constant predictions."""
    from scipy.stats import pearsonr, spearmanr

    pred = np.asarray(pred, dtype=np.float64)
    if len(pred) < 2 or np.allclose(pred, pred[0]):
        return float("nan"), float("nan")
    return float(pearsonr(pred, gold)[0]), float(spearmanr(pred, gold)[0])


def raw_layer_cosines(data: StsData, role: str) -> np.ndarray:
    """``[n_pairs, L]`` cosine of the raw cached vectors, per layer."""
    import torch

    split = data.splits[role]
    out = []
    for first in range(0, len(split.gold), 2048):
        a = data.X[:, split.rows1[first : first + 2048]].float()
        b = data.X[:, split.rows2[first : first + 2048]].float()
        out.append(torch.nn.functional.cosine_similarity(a, b, dim=-1, eps=1e-8).T.numpy())
    return np.concatenate(out)
