"""Rule anchored_tables -> pairbench.study.anchored.write_anchored_tables."""

from pathlib import Path

from pairbench.core.runtime import script_logging
from pairbench.study.anchored import write_anchored_tables

with script_logging(snakemake.log[0]):
    write_anchored_tables(
        snakemake.input.suite,
        list(snakemake.input.shards),
        Path(snakemake.output.anchored_csv).parent,
    )
