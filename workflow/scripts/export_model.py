"""Rule export_model -> pairbench.study.forms.export_model (torch.onnx.export with dynamo; no optimum)."""

from pairbench.core.runtime import script_logging
from pairbench.study.forms import export_model

with script_logging(snakemake.log[0]):
    export_model(snakemake.input[0], snakemake.output[0], snakemake.params.form, key=snakemake.wildcards.model)
