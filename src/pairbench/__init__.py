"""pairbench: a Snakemake pipeline for studying sentence-pair models.

The Snakemake rules stay thin; each rule's script calls one function of this package:

- :mod:`pairbench.core`             what every stage shares: errors, runtime, sources, config
  validation, atomic writes / fingerprints / tables (``core.io``), progress lines, STS data
- :mod:`pairbench.study`            the compositional robustness study: suites, the model-kind
  registry, scoring, shards, statistics, tables, figures, general quality
- :mod:`pairbench.cross_encoder`    training stage: cross-encoders fine-tuned on graded pairs
- :mod:`pairbench.frozen_features`  training stage: models on cached per-layer latents of a frozen LM
- :mod:`pairbench.celi`             training stage: CELI and its baselines reranking BM25 candidates
- :mod:`pairbench.testing`          tiny random models and the stand-in hub cache for tests
"""

__version__ = "0.2.0"
