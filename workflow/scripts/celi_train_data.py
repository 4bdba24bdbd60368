"""Rule celi_train_data -> pairbench.retrieval.build_train_groups."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1] / "src"))  # for --sdm conda

from pairbench.runtime import script_logging
from pairbench.retrieval import build_train_groups

with script_logging(snakemake.log[0]):
    build_train_groups(
        dict(snakemake.params.train),
        snakemake.input[0],
        snakemake.output[0],
        bm25=dict(snakemake.params.bm25),
        threads=snakemake.threads,
    )
