"""pairbench: a Snakemake pipeline for studying sentence-pair models.

The Snakemake rules stay thin; each calls one function of this package:

- :mod:`pairbench.sources`   model and dataset sources (``hf:``, ``path:``, ``pkg:``)
- :mod:`pairbench.suite`     loading and validating pair suites
- :mod:`pairbench.scoring`   bi-encoder and cross-encoder scoring
- :mod:`pairbench.shards`    atomic Parquet shards with provenance metadata
- :mod:`pairbench.stats`     statistics (effect sizes, tests, AUC)
- :mod:`pairbench.tables`    aggregation tables (CSV + Markdown)
- :mod:`pairbench.figures`   figures for the report
"""

__version__ = "0.1.0"
