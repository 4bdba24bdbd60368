"""The model-kind registry: how a model of each ``kind`` scores sentence pairs.

Every scorer has the signature
``scorer(model_dir, settings, sentences1, sentences2, device, key) -> (raw, score, normalisation)``
and is listed in :data:`SCORERS`. A stage that adds a kind of model to the study adds its scorer
here (and the kind to ``models.*.kind`` in ``workflow/schemas/config.schema.yaml``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pairbench.core.errors import ConfigError
from pairbench.study.scoring import ScoringSettings, load_bi_encoder, load_cross_encoder, score_bi, score_cross


def score_bi_encoder(model_dir, settings: ScoringSettings, s1, s2, device: str, key: str):
    """Cosine of the embeddings: ``raw`` and ``score`` are the same number."""
    model = load_bi_encoder(model_dir, settings, device)
    raw, how = score_bi(model, s1, s2, settings)
    return raw, raw.copy(), how


def score_cross_encoder(model_dir, settings: ScoringSettings, s1, s2, device: str, key: str):
    """The logit (``raw``) and the normalised score of a sentence-transformers CrossEncoder."""
    model = load_cross_encoder(model_dir, settings, device)
    return score_cross(model, s1, s2, settings, key=key)


def score_celi_reranker(model_dir, settings: ScoringSettings, s1, s2, device: str, key: str):
    """A trained CELI reranker (training stage 3): its relevance logit and its sigmoid."""
    # Imported here: the stage's model code is needed only when a CELI model is scored.
    from pairbench.celi.scoring import score_pairs

    return score_pairs(model_dir, settings, s1, s2, device)


def score_frozen_features(model_dir, settings: ScoringSettings, s1, s2, device: str, key: str):
    """A frozen-feature STS model (training stage 2) scores pairs from cached latents, not from text.

    Its shards come from ``freeze_score_suite`` (``pairbench.frozen_features.study``), which hands
    it the latent cache of the suite's sentences; a model folder alone cannot score it.
    """
    raise ConfigError(
        f"models.{key}: kind 'freeze' models are trained by training.freeze and scored from cached "
        "latents by its own rules; list them under training.freeze.runs, not under models:"
    )


SCORERS: dict[str, Callable[..., tuple[np.ndarray, np.ndarray, str]]] = {
    "bi": score_bi_encoder,
    "cross": score_cross_encoder,
    "celi": score_celi_reranker,
    "freeze": score_frozen_features,
}
# Kinds compared as "cross-encoders" against bi-encoders in the study's tables.
CROSS_KINDS = ("cross", "celi")
# freeze: siamese, each sentence encoded alone and compared by per-layer cosines (docs/frozen_features.md).
BI_KINDS = ("bi", "freeze")


def score_with_kind(kind: str, model_dir, settings: ScoringSettings, s1, s2, device: str, *, key: str = "?"):
    """Score the pairs (s1[i], s2[i]) with the model of kind ``kind``."""
    if kind not in SCORERS:
        raise ConfigError(f"models.{key}.kind: unknown model kind {kind!r}; use one of {', '.join(SCORERS)}")
    return SCORERS[kind](model_dir, settings, s1, s2, device, key)
