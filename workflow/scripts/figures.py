"""Rule figures -> pairbench.study.figures.write_suite_figures."""

from pairbench.core.runtime import script_logging
from pairbench.study.figures import write_suite_figures

with script_logging(snakemake.log[0]):
    write_suite_figures(
        list(snakemake.input.shards),
        separation_csv=snakemake.input.separation,
        distributions_png=snakemake.output.score_distributions,
        means_png=snakemake.output.category_means,
        forest_png=snakemake.output.forest,
        suite=snakemake.wildcards.suite,
    )
