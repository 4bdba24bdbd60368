"""Rule celi_rerank -> pairbench.celi.rerank.rerank_to_trec."""

from pairbench.celi.rerank import rerank_to_trec
from pairbench.core.runtime import script_logging

with script_logging(snakemake.log[0]):
    rerank_to_trec(
        snakemake.input.model,
        snakemake.input.collection,
        snakemake.params.eval["split"],
        snakemake.input.candidates,
        snakemake.output[0],
        run_name=snakemake.wildcards.run,
        top_k=snakemake.params.eval["top_k"],
        batch_size=snakemake.params.rerank["batch_size"],
        precision=snakemake.params.rerank["precision"],
        max_length=snakemake.params.max_length,
        threads=snakemake.threads,
    )
