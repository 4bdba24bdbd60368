"""Rule figures -> pairbench.figures.write_suite_figures."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1] / "src"))  # for --sdm conda

from pairbench.figures import write_suite_figures
from pairbench.runtime import script_logging

with script_logging(snakemake.log[0]):
    write_suite_figures(
        list(snakemake.input.shards),
        distributions_png=snakemake.output.score_distributions,
        means_png=snakemake.output.category_means,
        suite=snakemake.wildcards.suite,
    )
