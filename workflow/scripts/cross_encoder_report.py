"""Rule cross_encoder_report -> pairbench.cross_encoder.report (runs table + training curves)."""

from pairbench.core.runtime import script_logging
from pairbench.cross_encoder.report import write_report

with script_logging(snakemake.log[0]):
    write_report(snakemake.input.metrics, snakemake.output.csv, snakemake.output.md, snakemake.output.curves)
