"""Rule celi_train -> pairbench.celi.train.train_reranker."""

from pairbench.celi.train import train_reranker
from pairbench.core.runtime import script_logging

with script_logging(snakemake.log[0]):
    train_reranker(
        snakemake.input.groups,
        snakemake.input.backbone,
        snakemake.output[0],
        snakemake.params.checkpoints,
        dict(snakemake.params.run),
        run_name=snakemake.wildcards.run,
        threads=snakemake.threads,
    )
