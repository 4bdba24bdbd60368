"""Rule tables -> pairbench.study.aggregate.write_suite_tables."""

from pathlib import Path

from pairbench.core.runtime import script_logging
from pairbench.study.aggregate import write_suite_tables

with script_logging(snakemake.log[0]):
    write_suite_tables(
        list(snakemake.input.shards),
        out_dir=Path(snakemake.output.category_stats_csv).parent,
        thresholds=list(snakemake.params.thresholds),
        smoke_models=list(snakemake.params.smoke),
    )
