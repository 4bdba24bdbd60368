"""Rule freeze_pretrain -> pairbench.freeze.pretrain_from_config."""

from pathlib import Path

from pairbench.freeze import pretrain_from_config
from pairbench.core.runtime import script_logging

with script_logging(snakemake.log[0]):
    pretrain_from_config(
        ae=dict(snakemake.params.ae),
        cache_dir=Path(snakemake.input.latents).parent,
        outputs=dict(snakemake.output.items()),
        checkpoint_dir=snakemake.params.checkpoints,
        threads=snakemake.threads,
        device=snakemake.params.device,
    )
