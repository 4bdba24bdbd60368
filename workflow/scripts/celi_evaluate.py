"""Rule celi_evaluate -> pairbench.celi.evaluate.evaluate_runs."""

from pairbench.celi.evaluate import evaluate_runs
from pairbench.core.runtime import script_logging

with script_logging(snakemake.log[0]):
    evaluate_runs(
        snakemake.input.collection,
        snakemake.params.split,
        {model: snakemake.input[model] for model in snakemake.params.models},
        snakemake.wildcards.dataset,
        snakemake.output.csv,
        snakemake.output.per_query,
    )
