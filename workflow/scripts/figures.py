"""Rule figures -> pairbench.study.figures.write_suite_figures."""

from pairbench.study.figures import write_suite_figures
from pairbench.core.runtime import script_logging

with script_logging(snakemake.log[0]):
    write_suite_figures(
        list(snakemake.input.shards),
        distributions_png=snakemake.output.score_distributions,
        means_png=snakemake.output.category_means,
        suite=snakemake.wildcards.suite,
    )
