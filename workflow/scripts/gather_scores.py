"""Rule gather_scores -> pairbench.study.score_suite.gather_parts."""

from pairbench.core.runtime import script_logging
from pairbench.study.score_suite import gather_parts

with script_logging(snakemake.log[0]):
    gather_parts(list(snakemake.input.parts), snakemake.output[0])
