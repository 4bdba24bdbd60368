"""Rule general_quality -> pairbench.study.general_quality.write_general_quality."""

from pairbench.core.runtime import script_logging
from pairbench.study.general_quality import write_general_quality

with script_logging(snakemake.log[0]):
    write_general_quality(
        list(snakemake.input.scores),
        separation_csv=snakemake.input.separation,
        table_csv=snakemake.output.csv,
        figure_png=snakemake.output.figure,
        page_dir=snakemake.output.page,
        data=f"{snakemake.params.data}, {snakemake.params.split}",
        suite=snakemake.params.suite,
    )
