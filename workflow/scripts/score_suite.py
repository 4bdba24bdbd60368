"""Rule score_suite -> pairbench.study.score_suite.score_suite_to_shard."""

from pairbench.core.runtime import script_logging
from pairbench.study.score_suite import score_suite_to_shard

with script_logging(snakemake.log[0]):
    score_suite_to_shard(
        suite_path=snakemake.input.suite,
        model_dir=snakemake.input.model,
        model_key=snakemake.wildcards.model,
        model_config=dict(snakemake.params.model),
        out_path=snakemake.output[0],
        suite_name=snakemake.wildcards.suite,
        threads=snakemake.threads,
        chunk_pairs=int(snakemake.params.chunk_pairs),
    )
