"""Where the config schemas are, in a checkout and in an installed wheel.

The schemas are kept in ``workflow/schemas/`` (Snakemake validates against them there) and ship
with the package as ``pairbench/schemas`` (in the repository a link to that folder), so code
that needs a schema's defaults finds it without a checkout.
"""

from __future__ import annotations

import functools
from pathlib import Path

SCHEMA_DIR = Path(__file__).resolve().parents[1] / "schemas"


def schema_path(name: str) -> Path:
    """The path of ``<name>`` (e.g. ``config.schema.yaml``)."""
    return SCHEMA_DIR / name


@functools.cache
def load_schema(name: str) -> dict:
    from pairbench.core.yaml_files import read

    return read(schema_path(name))


def model_properties() -> dict[str, dict]:
    """The properties of one ``models:`` entry (``config.schema.yaml#/$defs/model``)."""
    return load_schema("config.schema.yaml")["$defs"]["model"]["properties"]
