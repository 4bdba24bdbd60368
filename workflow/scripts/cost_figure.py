"""Rule cost_figure -> pairbench.study.cost.plot_cost."""

from pairbench.core.runtime import script_logging
from pairbench.study.cost import plot_cost

with script_logging(snakemake.log[0]):
    plot_cost(
        snakemake.input.cost,
        snakemake.input.separation,
        snakemake.output[0],
        title=f"Robustness against speed: {snakemake.wildcards.suite}",
    )
