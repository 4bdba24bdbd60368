"""Rule celi_train_data -> pairbench.celi.data.build_train_groups."""

from pairbench.celi.data import build_train_groups
from pairbench.core.runtime import script_logging

with script_logging(snakemake.log[0]):
    build_train_groups(
        dict(snakemake.params.train),
        snakemake.input[0],
        snakemake.output[0],
        bm25=dict(snakemake.params.bm25),
        threads=snakemake.threads,
    )
