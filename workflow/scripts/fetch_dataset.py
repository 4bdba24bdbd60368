"""Rule fetch_dataset -> pairbench.core.sources.materialise_dataset."""

from pairbench.core.runtime import script_logging
from pairbench.core.sources import materialise_dataset

with script_logging(snakemake.log[0]):
    materialise_dataset(snakemake.wildcards.dataset, dict(snakemake.params.spec), snakemake.output[0])
