"""Rule celi_report -> pairbench.celi.report.make_report."""

from pairbench.celi.report import make_report
from pairbench.core.runtime import script_logging

with script_logging(snakemake.log[0]):
    datasets = list(snakemake.params.datasets)
    make_report(
        dict(zip(datasets, snakemake.input.metrics)),
        dict(zip(datasets, snakemake.input.per_query)),
        {run: dict(block) for run, block in snakemake.params.runs.items()},
        {name: path for name, path in snakemake.output.items()},
        averaged=list(snakemake.params.averaged),
    )
