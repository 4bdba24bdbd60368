"""Rule fetch_model -> pairbench.sources.materialise_model."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1] / "src"))  # for --sdm conda

from pairbench.runtime import script_logging
from pairbench.sources import materialise_model

with script_logging(snakemake.log[0]):
    materialise_model(snakemake.wildcards.model, snakemake.params.source, snakemake.output[0])
