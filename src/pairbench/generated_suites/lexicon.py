"""Word lists of the generated suites, one file per list: ``lexicon/<name>.yaml`` is
``{description: ..., words: [...]}`` or ``{description: ..., table: {key: value}}``, read on first use.
A ``words`` list may ``include`` other lists (their words, or a table's keys) so that each word is written once."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from types import MappingProxyType

from pairbench.core.config import first_schema_problem
from pairbench.core.errors import PairbenchError
from pairbench.core.yaml_files import YamlFileError
from pairbench.core.yaml_files import read as read_yaml

FOLDER = Path(__file__).resolve().parent / "lexicon"
_SCHEMA = "generated_lexicon.schema.yaml"  # a list's keys and their types (workflow/schemas/)


class LexiconError(PairbenchError):
    """A lexicon file that is missing or not of the form ``{description, words | table, include?}``."""


@cache
def _load(name: str) -> dict:
    path = FOLDER / f"{name}.yaml"
    if not path.is_file():
        raise LexiconError(f"{path}: no such lexicon file; add it as {{description: ..., words: [...]}}")
    try:
        data = read_yaml(path)
    except YamlFileError as err:
        raise LexiconError(str(err)) from None
    if problem := first_schema_problem(data, _SCHEMA):
        raise LexiconError(f"{path}: {problem} (workflow/schemas/{_SCHEMA})")
    included = data.get("include", [])
    if "include" in data and not ("words" in data and isinstance(included, list)):
        raise LexiconError(f"{path}: `include` is a list of lexicon names, beside `words`")
    if missing := [n for n in included if not (isinstance(n, str) and (FOLDER / f"{n}.yaml").is_file())]:
        raise LexiconError(f"{path}: `include` names no lexicon file {missing}; fix the name or add the list")
    return data


@cache
def words(name: str, trail: tuple[str, ...] = ()) -> frozenset[str]:
    """The words of list ``name`` (a ``words`` file with those of its ``include``, or a ``table`` file's keys);
    ``trail``: the lists that include it, none of which it may include again."""
    if name in trail:
        raise LexiconError(f"{FOLDER / trail[0]}.yaml: `include` comes back to itself ({' -> '.join(trail + (name,))})")
    data = _load(name)
    own = frozenset(data["words"] if "words" in data else data["table"])
    return own.union(*(words(n, (*trail, name)) for n in data.get("include", [])))


@cache
def table(name: str) -> MappingProxyType:
    """The mapping of table file ``name`` (read-only: it is cached and shared)."""
    data = _load(name)
    if "table" not in data:
        raise LexiconError(f"{FOLDER / name}.yaml: a `words` list, not a `table`; read it with words()")
    return MappingProxyType(data["table"])


@cache
def saying(use: str) -> frozenset[str]:
    """The verbs of saying (``verbs_of_saying``) with use ``use``: claim, hedge, report_only, ..."""
    return frozenset(verb for verb, uses in table("verbs_of_saying").items() if use in uses)


def names() -> list[str]:
    return sorted(p.stem for p in FOLDER.glob("*.yaml"))
