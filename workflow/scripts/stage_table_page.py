"""Rule stage_table_page -> pairbench.study.report_tables.write_stage_table_page."""

from pairbench.core.runtime import script_logging
from pairbench.study.report_tables import write_stage_table_page

with script_logging(snakemake.log[0]):
    write_stage_table_page(snakemake.input.csv, snakemake.input.md, snakemake.output[0])
