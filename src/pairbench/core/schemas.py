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


@functools.lru_cache(maxsize=64)
def _contents(path: str, mtime_ns: int) -> dict:
    from pairbench.core.yaml_files import read

    return read(path)


def load_schema(schema: str | Path) -> dict:
    """A schema's contents, parsed once per process (again only when the file changes).

    ``schema``: a file name of the schema folder (``config.schema.yaml``) or a path. The workflow
    validates the config against several schemas that share ``definitions.schema.yaml``; parsing
    each file once keeps reading the workflow fast. Treat the result as read-only.
    """
    path = Path(schema)
    path = (schema_path(path.name) if path.parent == Path() else path).resolve()
    return _contents(str(path), path.stat().st_mtime_ns)


def model_properties() -> dict[str, dict]:
    """The properties of one ``models:`` entry (``config.schema.yaml#/$defs/model``)."""
    return load_schema("config.schema.yaml")["$defs"]["model"]["properties"]
