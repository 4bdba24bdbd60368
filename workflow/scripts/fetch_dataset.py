"""Rule fetch_dataset -> pairbench.sources.materialise_dataset."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1] / "src"))  # for --sdm conda

from pairbench.runtime import script_logging
from pairbench.sources import materialise_dataset

with script_logging(snakemake.log[0]):
    materialise_dataset(snakemake.wildcards.dataset, dict(snakemake.params.spec), snakemake.output[0])
