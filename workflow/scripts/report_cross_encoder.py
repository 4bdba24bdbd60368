"""Rule cross_encoder_report -> pairbench.cross_encoder_training (table + training curves)."""

from pairbench.cross_encoder_training import plot_training_curves, write_runs_table
from pairbench.core.runtime import script_logging

with script_logging(snakemake.log[0]):
    write_runs_table(snakemake.input.metrics, snakemake.output.csv, snakemake.output.md)
    plot_training_curves(snakemake.input.metrics, snakemake.output.curves)
