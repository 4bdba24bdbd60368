"""Rule fetch_base_model -> pairbench.core.sources.materialise_model (any model: a stage adds its head)."""

from pairbench.core.runtime import script_logging
from pairbench.core.sources import materialise_model

with script_logging(snakemake.log[0]):
    materialise_model(
        snakemake.wildcards.base,
        snakemake.params.source,
        snakemake.output[0],
        snakemake.params.content,
        what=f"training base model {snakemake.params.source}",
    )
