"""Dev/test correlations of a cross-encoder, and the dev history the trainer logged.

With ``score_both_orders`` the evaluator scores each pair exactly as the study scores a model with
``both_orders`` (:func:`pairbench.study.scoring.score_cross`: the mean of the normalised scores of
(a, b) and (b, a)), so the checkpoint chosen on dev, the test numbers and the study's shards rest
on one mechanism. Undefined correlations (constant predictions) stay NaN here; the metrics file
stores them as null (:func:`pairbench.core.io.atomic_write_json`).
"""

from __future__ import annotations

EVALUATOR_NAME = "dev"


def _scoring_settings(batch_size: int, both_orders: bool):
    from pairbench.study.scoring import ScoringSettings

    return ScoringSettings(kind="cross", batch_size=batch_size, both_orders=both_orders)


def score_pairs(model, s1, s2, *, batch_size: int = 64, both_orders: bool = False):
    """The study's normalised cross-encoder score of each pair (float64 array)."""
    from pairbench.study.scoring import score_cross

    _, score, _ = score_cross(model, list(s1), list(s2), _scoring_settings(batch_size, both_orders))
    return score


def correlations(scores, labels) -> dict[str, float]:
    """Pearson and Spearman of ``scores`` with ``labels`` (NaN where undefined)."""
    import numpy as np
    from scipy.stats import pearsonr, spearmanr

    y = np.asarray(labels, dtype=float)
    return {"pearson": float(pearsonr(scores, y)[0]), "spearman": float(spearmanr(scores, y)[0])}


def correlations_both_orders(model, s1, s2, labels, *, batch_size: int = 64) -> dict[str, float]:
    """Pearson/Spearman of the mean of the scores for (a, b) and (b, a), plus each order alone.

    A cross-encoder reads its pair as one sequence, so its score depends on the order even when it
    was trained on both; the mean of the two is the study's ``both_orders`` score.
    """
    ab = score_pairs(model, s1, s2, batch_size=batch_size)
    ba = score_pairs(model, s2, s1, batch_size=batch_size)
    out = {}
    for prefix, scores in (("", (ab + ba) / 2), ("ab_", ab), ("ba_", ba)):
        out.update({f"{prefix}{k}": v for k, v in correlations(scores, labels).items()})
    return out


def correlation_evaluator(s1, s2, labels, *, name: str, batch_size: int, both_orders: bool):
    """The library's ``CrossEncoderCorrelationEvaluator``; with ``both_orders`` one that correlates
    the study's both-orders score (same metric names, so checkpoint selection is unchanged)."""
    from sentence_transformers.cross_encoder.evaluation import CrossEncoderCorrelationEvaluator

    cls = both_orders_evaluator_class() if both_orders else CrossEncoderCorrelationEvaluator
    return cls(
        sentence_pairs=list(zip(s1, s2)),
        scores=list(labels),
        name=name,
        batch_size=batch_size,
        show_progress_bar=False,
        write_csv=False,
    )


def both_orders_evaluator_class():
    from sentence_transformers.cross_encoder.evaluation import CrossEncoderCorrelationEvaluator

    class BothOrdersCorrelationEvaluator(CrossEncoderCorrelationEvaluator):
        def __call__(self, model, output_path=None, epoch: int = -1, steps: int = -1) -> dict[str, float]:
            s1, s2 = zip(*self.sentence_pairs)
            scores = score_pairs(model, s1, s2, batch_size=self.batch_size, both_orders=True)
            # Constant scores (the raw-label mistake) give NaN, as in the library's evaluator, so
            # the trainer goes on and the metrics file says null.
            metrics = self.prefix_name_to_metrics(correlations(scores, self.scores), self.name)
            self.store_metrics_in_model_card_data(model, metrics, epoch, steps)
            return metrics

    return BothOrdersCorrelationEvaluator


def dev_history(log_history: list[dict]) -> list[dict]:
    """Each dev evaluation the trainer logged: epoch, step, Pearson, Spearman."""
    pearson, spearman = f"eval_{EVALUATOR_NAME}_pearson", f"eval_{EVALUATOR_NAME}_spearman"
    return [
        {
            "epoch": round(float(entry.get("epoch", 0.0)), 4),
            "step": int(entry.get("step", 0)),
            "pearson": float(entry[pearson]),
            "spearman": float(entry[spearman]),
        }
        for entry in log_history
        if pearson in entry
    ]


def loss_history(log_history: list[dict]) -> list[dict]:
    """Each training loss the trainer logged: epoch, step, loss."""
    return [
        {"epoch": round(float(e.get("epoch", 0.0)), 4), "step": int(e.get("step", 0)), "loss": float(e["loss"])}
        for e in log_history
        if "loss" in e and "eval_loss" not in e
    ]
