"""What a stage plans, given the validated config: its runs, the base models it needs, the models
(and suites) it hands to the study and the files a full run of it ends with.

Each stage's package has one function ``plan(config, config_files) -> StagePlan`` (named by its
entry in :data:`pairbench.stages.STAGES`). ``workflow/rules/common.smk`` calls each once, before
any rule file is read; rule files only declare rules from the plan. A plan is computed from the
config and never writes into it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field


def base_model_folder(source: str) -> str:
    """The folder under ``resources/models/base/`` that a base model's source string names."""
    return f"resources/models/base/{base_model_slug(source)}"


def base_model_slug(source: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", source)


@dataclass(frozen=True)
class BaseModel:
    """A model a stage starts from, fetched by the local rule ``fetch_base_model``.

    ``content``: what the folder must hold (None: any transformers model; ``"spacy"``: a spaCy
    pipeline).
    """

    source: str
    content: str | None = None

    @property
    def folder(self) -> str:
        return base_model_folder(self.source)


@dataclass(frozen=True)
class StagePlan:
    """The plan of one stage.

    ``runs``: its runs (or entries), each as its rules read it; ``base_models``: key (a run, lm,
    backbone, ...) -> :class:`BaseModel`; ``study_models``: model key -> ``{"kind", "dir",
    **scoring settings}`` (a kind without a text scorer, :func:`pairbench.study.kinds.text_scored`,
    is scored by the stage's own rules); ``suites``: suites it writes, name -> path (they join
    ``suites`` and have anchor groups); ``targets``: what a full run of the stage ends with;
    ``lookups``: what else its rule file reads (stage-specific).
    """

    runs: Mapping[str, dict] = field(default_factory=dict)
    base_models: Mapping[str, BaseModel] = field(default_factory=dict)
    study_models: Mapping[str, dict] = field(default_factory=dict)
    suites: Mapping[str, str] = field(default_factory=dict)
    targets: tuple[str, ...] = ()
    lookups: Mapping[str, object] = field(default_factory=dict)

    @property
    def base_dirs(self) -> dict[str, str]:
        """Key -> the folder of its base model."""
        return {key: model.folder for key, model in self.base_models.items()}
