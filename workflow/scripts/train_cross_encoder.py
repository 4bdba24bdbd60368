"""Rule train_cross_encoder -> pairbench.cross_encoder.train.train_cross_encoder."""

from pairbench.core.runtime import script_logging
from pairbench.cross_encoder.train import train_cross_encoder

with script_logging(snakemake.log[0]):
    train_cross_encoder(
        run=snakemake.wildcards.run,
        run_config=dict(snakemake.params.run),
        data_dir=snakemake.input.data,
        base_dir=snakemake.input.base,
        model_out=snakemake.output.model,
        metrics_out=snakemake.output.metrics,
        checkpoint_dir=snakemake.params.checkpoints,
        threads=snakemake.threads,
    )
