"""pairbench: a Snakemake pipeline for studying sentence-pair models.

The Snakemake rules stay thin; each calls one function of this package:

- :mod:`pairbench.core.sources`   model and dataset sources (``hf:``, ``path:``, ``pkg:``)
- :mod:`pairbench.study.suite`     loading and validating pair suites
- :mod:`pairbench.study.scoring`   bi-encoder and cross-encoder scoring
- :mod:`pairbench.study.shards`    atomic Parquet shards with provenance metadata
- :mod:`pairbench.study.stats`     statistics (effect sizes, tests, AUC)
- :mod:`pairbench.study.tables`    aggregation tables (CSV + Markdown)
- :mod:`pairbench.study.figures`   figures for the report
"""

__version__ = "0.1.0"
