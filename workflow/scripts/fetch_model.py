"""Rule fetch_model -> pairbench.core.sources.materialise_model (checked against the declared kind)."""

from pairbench.core.runtime import script_logging
from pairbench.core.sources import materialise_model

with script_logging(snakemake.log[0]):
    materialise_model(
        snakemake.wildcards.model, snakemake.params.source, snakemake.output[0], snakemake.params.kind
    )
