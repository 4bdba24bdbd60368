"""Rule celi_bm25 -> pairbench.celi.bm25.first_stage_to_trec."""

from pairbench.celi.bm25 import first_stage_to_trec
from pairbench.core.runtime import script_logging

with script_logging(snakemake.log[0]):
    first_stage_to_trec(
        snakemake.input[0],
        snakemake.params.eval["split"],
        snakemake.output[0],
        top_k=snakemake.params.eval["top_k"],
        bm25=dict(snakemake.params.bm25),
        threads=snakemake.threads,
    )
