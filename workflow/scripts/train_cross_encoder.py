"""Rule train_cross_encoder -> pairbench.cross_encoder_training.train_cross_encoder."""

from pairbench.cross_encoder_training import train_cross_encoder
from pairbench.core.runtime import script_logging

with script_logging(snakemake.log[0]):
    train_cross_encoder(
        run=snakemake.wildcards.run,
        run_config=dict(snakemake.params.run),
        data_dir=snakemake.input.data,
        base_dir=snakemake.input.base,
        model_out=snakemake.output.model,
        metrics_out=snakemake.output.metrics,
        checkpoint_dir=snakemake.params.checkpoints,
        data_key=snakemake.params.data,
        score_max=snakemake.params.score_max,
        smoke=snakemake.params.smoke,
        threads=snakemake.threads,
    )
