# Materialise models and datasets under resources/. Local rules: they run where Snakemake runs
# (a login node with internet access), never on compute nodes that may have no network.

# An offline run (HF_HUB_OFFLINE=1) whose Hugging Face cache lacks a hub source stops here, before
# any job is submitted, naming each missing source and the `prefetch` command. Checked once, in the
# main process, dry runs included (a dry run plans no job that the real run would refuse); not
# again in cluster jobs, nor with --touch.
if workflow.is_main_process and not workflow.touch:
    try:
        check_offline_sources(
            {
                **{
                    k: (b["source"], f"resources/models/{k}")
                    for k, b in config["models"].items()
                },
                **{
                    b: (s, f"resources/models/base/{b}") for b, s in BASE_MODELS.items()
                },
            },
            {k: (b, f"resources/datasets/{k}") for k, b in config["datasets"].items()},
            configfiles=workflow.config_settings.configfiles,
        )
    except PairbenchError as err:
        stop(err)


localrules:
    fetch_model,
    fetch_base_model,
    fetch_dataset,
    prefetch,
    export_model,


rule fetch_model:
    output:
        directory("resources/models/{model}"),
    log:
        f"{LOGS}/fetch_model/{{model}}.log",
    benchmark:
        f"{BENCH}/fetch_model/{{model}}.tsv"
    wildcard_constraints:
        model=alternatives(config["models"]),
    conda:
        "../../envs/pairbench.yaml"
    params:
        # Only the source and kind: changing a model's batch size or prompt must not download it
        # again. The job checks that the folder holds a model of the declared kind.
        source=model_source,
        kind=lambda wildcards: config["models"][wildcards.model]["kind"],
        # A local source's files as they are now (names, sizes, times): a model retrained into
        # the same folder is fetched again, and every score of it reruns (params rerun-trigger).
        local=lambda wildcards: local_stamp(model_source(wildcards)),
    script:
        "../scripts/fetch_model.py"


from pairbench.study.forms import export_recipe


rule export_model:
    """A model exported once for its backend (torch.onnx.export, dynamo; int8 weights with
    onnx_quantization), keyed on the fetched folder or a trained run's model folder (a refetch or a
    retraining exports again) and the form (params); every scoring job of the model loads this
    folder, none exports."""
    input:
        export_input,
    output:
        directory("resources/exports/{model}"),
    log:
        f"{LOGS}/export_model/{{model}}.log",
    benchmark:
        f"{BENCH}/export_model/{{model}}.tsv"
    wildcard_constraints:
        model=alternatives(exported_models()),
    conda:
        "../../envs/pairbench.yaml"
    params:
        form=export_settings,
        # How the export is made (exporter, optimiser, int8 settings): a change exports again.
        recipe=lambda wildcards: export_recipe(export_settings(wildcards)),
    script:
        "../scripts/export_model.py"


rule fetch_base_model:
    output:
        directory("resources/models/base/{base}"),
    log:
        f"{LOGS}/fetch_base_model/{{base}}.log",
    benchmark:
        f"{BENCH}/fetch_base_model/{{base}}.tsv"
    wildcard_constraints:
        base=alternatives(BASE_MODELS),
    conda:
        "../../envs/pairbench.yaml"
    params:
        source=base_model_source,
        content=base_model_content,
        local=lambda wildcards: local_stamp(base_model_source(wildcards)),
    script:
        "../scripts/fetch_base_model.py"


rule fetch_dataset:
    output:
        directory("resources/datasets/{dataset}"),
    log:
        f"{LOGS}/fetch_dataset/{{dataset}}.log",
    benchmark:
        f"{BENCH}/fetch_dataset/{{dataset}}.tsv"
    wildcard_constraints:
        dataset=alternatives(config["datasets"]),
    conda:
        "../../envs/pairbench.yaml"
    params:
        spec=dataset_spec,
        local=lambda wildcards: local_stamp(dataset_spec(wildcards)["source"]),
    script:
        "../scripts/fetch_dataset.py"


rule prefetch:
    """Fetch every model and dataset of the config (run on a machine with internet access)."""
    input:
        prefetch_targets(),
    output:
        touch("resources/prefetch.done"),
    log:
        f"{LOGS}/prefetch.log",
    benchmark:
        f"{BENCH}/prefetch.tsv"
    conda:
        "../../envs/pairbench.yaml"
