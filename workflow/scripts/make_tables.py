"""Rule tables -> pairbench.tables.write_suite_tables."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1] / "src"))  # for --sdm conda

from pairbench.runtime import script_logging
from pairbench.tables import write_suite_tables

with script_logging(snakemake.log[0]):
    write_suite_tables(
        list(snakemake.input.shards),
        out_dir=Path(snakemake.output.category_stats_csv).parent,
        thresholds=list(snakemake.params.thresholds),
    )
