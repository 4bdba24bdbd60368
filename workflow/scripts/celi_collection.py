"""Rule celi_collection -> pairbench.celi.collections.build_collection."""

from pairbench.celi.collections import build_collection
from pairbench.core.runtime import script_logging

with script_logging(snakemake.log[0]):
    build_collection(
        dict(snakemake.params.spec),
        {role: str(path) for role, path in snakemake.input.items()},
        snakemake.output[0],
        name=snakemake.wildcards.collection,
    )
