"""Rule score_general_quality -> pairbench.study.general_quality.score_graded_set."""

from pairbench.core.runtime import script_logging
from pairbench.study.general_quality import score_graded_set

with script_logging(snakemake.log[0]):
    score_graded_set(
        data_dir=snakemake.input.data,
        split=snakemake.params.split,
        score_max=snakemake.params.score_max,
        model_dir=snakemake.input.model,
        model_key=snakemake.wildcards.model,
        model_config=dict(snakemake.params.model),
        out_path=snakemake.output[0],
        threads=snakemake.threads,
    )
