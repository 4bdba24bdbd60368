"""Rule anchored_tables -> pairbench.study.aggregate.write_anchored_tables, then the report pages."""

from pathlib import Path

from pairbench.core.runtime import script_logging
from pairbench.study.aggregate import suite_audit_note, write_anchored_tables
from pairbench.study.report_tables import write_table_pages

with script_logging(snakemake.log[0]):
    note = suite_audit_note(snakemake.input.card)
    write_anchored_tables(
        snakemake.input.suite,
        list(snakemake.input.shards),
        Path(snakemake.output.anchored_csv).parent,
        note=note,
        smoke_models=list(snakemake.params.smoke),
    )
    write_table_pages(
        [snakemake.output.anchored_csv, snakemake.output.anchored_comparison_csv],
        [snakemake.output.anchored_page, snakemake.output.anchored_comparison_page],
        suite=snakemake.wildcards.suite,
        extra_note=note,
        smoke_models=list(snakemake.params.smoke),
    )
