"""Training stage 1: fine-tune one-logit cross-encoders on graded sentence pairs (STS-B and the like).

One run = one base model + one set of hyper-parameters (``training.cross_encoder.runs``, merged
with ``run_defaults``). Modules by concern: ``config`` (run settings, cross-reference checks),
``data`` (graded pairs), ``model`` (model, per-layer learning rates, precision), ``sampler``
(length-grouped batches), ``evaluate`` (dev/test correlations, shared with the study's scoring),
``callbacks`` (timing, progress), ``checkpoints`` (resume), ``train`` (one run), ``report``
(metrics record, runs table, training curves).

A bi-encoder folder (e.g. all-MiniLM-L6-v2) is a valid base: sentence-transformers loads its
transformer weights into a ``...ForSequenceClassification`` model with a new one-logit head.
"""

from pairbench.cross_encoder.config import RunSettings, check_stage, complete_run
from pairbench.cross_encoder.data import load_pairs
from pairbench.cross_encoder.evaluate import correlation_evaluator, correlations_both_orders
from pairbench.cross_encoder.model import build_model, layerwise_learning_rates
from pairbench.cross_encoder.report import plot_training_curves, runs_table, write_runs_table
from pairbench.cross_encoder.train import train_cross_encoder

__all__ = [
    "RunSettings",
    "build_model",
    "check_stage",
    "complete_run",
    "correlation_evaluator",
    "correlations_both_orders",
    "layerwise_learning_rates",
    "load_pairs",
    "plot_training_curves",
    "runs_table",
    "train_cross_encoder",
    "write_runs_table",
]
