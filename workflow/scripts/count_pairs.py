"""Checkpoint count_pairs -> pairbench.study.score_suite.write_pair_count."""

from pairbench.core.runtime import script_logging
from pairbench.study.score_suite import write_pair_count

with script_logging(snakemake.log[0]):
    write_pair_count(snakemake.input.suite, snakemake.output[0])
