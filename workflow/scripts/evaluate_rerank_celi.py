"""Rule celi_evaluate -> pairbench.retrieval.evaluate_runs."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1] / "src"))  # for --sdm conda

from pairbench.runtime import script_logging
from pairbench.retrieval import evaluate_runs

with script_logging(snakemake.log[0]):
    evaluate_runs(
        snakemake.input.collection,
        snakemake.params.split,
        {model: snakemake.input[model] for model in snakemake.params.models},
        snakemake.wildcards.dataset,
        snakemake.output.csv,
        snakemake.output.per_query,
    )
