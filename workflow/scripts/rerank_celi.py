"""Rule celi_rerank -> pairbench.celi.rerank_to_trec."""

from pairbench.core.runtime import script_logging
from pairbench.celi import rerank_to_trec

with script_logging(snakemake.log[0]):
    rerank_to_trec(
        snakemake.input.model,
        snakemake.input.collection,
        snakemake.params.eval["split"],
        snakemake.input.candidates,
        snakemake.output[0],
        run_name=snakemake.wildcards.run,
        top_k=snakemake.params.eval["top_k"],
        batch_size=snakemake.params.batch_size,
        max_length=snakemake.params.max_length,
        precision=snakemake.params.precision,
        threads=snakemake.threads,
    )
