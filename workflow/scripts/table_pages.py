"""Rule table_pages -> pairbench.study.report_tables.write_table_pages."""

from pairbench.core.runtime import script_logging
from pairbench.study.report_tables import write_table_pages

with script_logging(snakemake.log[0]):
    write_table_pages(
        list(snakemake.input),
        list(snakemake.output),
        suite=snakemake.wildcards.suite,
        smoke_models=list(snakemake.params.smoke),
    )
