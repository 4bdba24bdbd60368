"""The registry of the generated suites' rules and refusals, kept as data (``registry/<area>.yaml``):
each record's stable dotted id, kind, category, one-line reason, examples and optional spaCy patterns.
``python -m pairbench.generated_suites.registry --markdown`` writes ``docs/generated_rules.md`` from it."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from pairbench.core.config import first_schema_problem
from pairbench.core.errors import PairbenchError
from pairbench.core.yaml_files import YamlFileError
from pairbench.core.yaml_files import read as read_yaml
from pairbench.generated_suites.config import GENERATED_CATEGORIES
from pairbench.generated_suites.lexicon import LexiconError, words

FOLDER = Path(__file__).resolve().parent / "registry"
DOC = Path(__file__).resolve().parents[3] / "docs" / "generated_rules.md"
AREAS = ("anchor", "check", *GENERATED_CATEGORIES)  # one registry file (or more) per area
SHARED_AREAS = ("anchor", "check")  # refusals of any category (or of one, for a check on a made pair)
_SCHEMA = "generated_registry.schema.yaml"  # a record's keys and their types (workflow/schemas/)


class RegistryError(PairbenchError):
    """A registry file whose records are not well formed."""


@dataclass(frozen=True)
class Example:
    """An anchor; ``pair``: the sentence the rule makes; ``fallback``: the rule (of ``generate.FALLBACKS``) tried."""

    anchor: str
    category: str
    paraphrase: str | None = None
    pair: str | None = None
    fallback: str | None = None


@dataclass(frozen=True)
class Record:
    id: str
    kind: str
    category: str
    reason: str
    rule: str | None = None
    keep: tuple[Example, ...] = ()
    refuse: tuple[Example, ...] = ()
    pattern: list | None = None  # spaCy Matcher patterns: a list of token-dict lists ("@name": a lexicon list)
    dep_pattern: list | None = None  # DependencyMatcher patterns: a list of node-dict lists
    path: str = ""

    @property
    def area(self) -> str:
        return self.id.split(".", 1)[0]


def _example(raw, default: str, where: str, key: str) -> Example:
    raw = {"anchor": raw} if isinstance(raw, str) else raw
    if raw.get("category", default) not in GENERATED_CATEGORIES:
        raise RegistryError(f"{where}: `{key}` example of category {raw['category']!r}: name a generated category")
    return Example(**{"category": default, **raw})


def with_lexicon(value, where: str = "", key: str = ""):
    """``value`` (a pattern) with each ``IN`` / ``NOT_IN`` of ``"@name"`` as lexicon ``name``'s words, sorted."""
    if key in ("IN", "NOT_IN") and isinstance(value, str) and value.startswith("@"):
        try:
            return sorted(words(value[1:]))
        except LexiconError as err:
            raise RegistryError(f"{where}: its pattern names lexicon {value!r}: {err}") from None
    if isinstance(value, list):
        return [with_lexicon(v, where) for v in value]
    return {k: with_lexicon(v, where, k) for k, v in value.items()} if isinstance(value, dict) else value


def _check_patterns(record: dict, where: str):
    """The record's pattern and dep_pattern, lexicon names expanded, as spaCy's Matcher accepts them (validate=True)."""
    from spacy.matcher import DependencyMatcher, Matcher
    from spacy.vocab import Vocab

    for key, matcher in (("pattern", Matcher), ("dep_pattern", DependencyMatcher)):
        pattern = with_lexicon(record.get(key), where)
        try:  # a `{same_as: <id>}` is that record's pattern (see load), checked there
            if pattern is not None and not (isinstance(pattern, dict) and set(pattern) == {"same_as"}):
                matcher(Vocab(), validate=True).add(record["id"], pattern)
        except (ValueError, TypeError, KeyError) as err:
            first = str(err).strip().splitlines()[0]
            raise RegistryError(f"{where}: spaCy refuses its pattern ({first}); fix the pattern") from None
        yield pattern


def _record(raw, area: str, path: Path, strict: bool = True) -> Record:
    where = f"{path.name}: {raw.get('id') if isinstance(raw, dict) else repr(raw)[:60]}"
    if problem := first_schema_problem(raw, _SCHEMA):
        raise RegistryError(f"{where}: {problem} (workflow/schemas/{_SCHEMA})")
    rid, kind, category = raw["id"], raw["kind"], raw["category"]
    if rid.split(".")[0] != area:  # the schema's pattern: <area>.<snake_case>
        raise RegistryError(f"{where}: an id is `{area}.<snake_case>` in {path.name}; rename it")
    if category not in (("any", *GENERATED_CATEGORIES) if area in SHARED_AREAS else (area,)):
        want = "`any` or a generated category" if area in SHARED_AREAS else repr(area)
        raise RegistryError(f"{where}: `category` is {category!r}; records of {path.name} have {want}")
    default = category if category != "any" else "negation"
    keep, refuse = (tuple(_example(e, default, where, k) for e in raw.get(k) or ()) for k in ("keep", "refuse"))
    if strict and kind == "rule" and not keep:
        raise RegistryError(f"{where}: a rule names its `rule` column value and has `keep` examples only")
    if strict and kind == "refusal" and not refuse:
        raise RegistryError(f"{where}: a refusal has no `rule` and at least one `refuse` example; add one")
    pattern, dep_pattern = _check_patterns(raw, where)
    return Record(rid, kind, category, raw["reason"], raw.get("rule"), keep, refuse, pattern, dep_pattern, str(path))


def load(folder: Path = FOLDER, strict: bool = True) -> dict[str, Record]:
    """Every record of ``folder``'s files by id, validated (``strict=False``: examples may be missing)."""
    out: dict[str, Record] = {}
    for path in sorted(Path(folder).glob("*.yaml")):
        area = path.stem.split(".")[0]  # <area>.yaml, or <area>.<part>.yaml for records kept beside one module
        if area not in AREAS:
            raise RegistryError(f"{path}: no area {area!r}; name the file after one of {', '.join(AREAS)}")
        try:
            records_of = read_yaml(path) or []
        except YamlFileError as err:
            raise RegistryError(str(err)) from None
        if not isinstance(records_of, list):
            raise RegistryError(f"{path}: a registry file is a list of records; fix it")
        for raw in records_of:
            record = _record(raw, area, path, strict)
            if record.id in out:
                raise RegistryError(f"{path.name}: {record.id}: the id is used twice; give each record its own")
            out[record.id] = record
    # `pattern: {same_as: <id>}`: that record's own pattern, so two records of two categories keep one shape once
    resolved = dict(out)
    for rid, record in out.items():
        for key in ("pattern", "dep_pattern"):
            if isinstance(value := getattr(record, key), dict):
                if not isinstance(other := getattr(out.get(str(target := value["same_as"])), key, None), list):
                    where = f"{Path(record.path).name}: {rid}: `{key}: {{same_as: ...}}`"
                    raise RegistryError(f"{where} names {target!r}, no record with a `{key}` of its own; name one")
                resolved[rid] = replace(resolved[rid], **{key: other})
    return resolved


@lru_cache(maxsize=1)
def records() -> dict[str, Record]:
    """The package's registry (that every record has its examples is the registry test's check)."""
    return load(FOLDER, strict=False)


def reason(rid: str) -> str:
    """The one-line reason of id ``rid``; an unregistered string is returned as given."""
    return records()[rid].reason if rid in records() else rid


def by_reason() -> dict[str, str]:
    """Each registered reason -> its id (to read counts stored under reasons)."""
    return {r.reason: r.id for r in records().values()}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _first_example(record: Record) -> str:
    if not (examples := record.keep if record.kind == "rule" else record.refuse):
        return ""
    e = examples[0]
    text = f"{e.anchor} → {e.pair}" if e.pair else f"{e.anchor} / {e.paraphrase}" if e.paraphrase else e.anchor
    return text if e.category in (record.category, "negation") else f"({e.category}) {text}"


def markdown(recs: dict[str, Record] | None = None) -> str:
    """The tables of docs/generated_rules.md: one per area (id, kind, reason, one example)."""
    recs = records() if recs is None else recs
    lines = [
        "# Rules and refusals of the generated suites",
        "",
        "Written by `python -m pairbench.generated_suites.registry --markdown` from "
        "`src/pairbench/generated_suites/registry/*.yaml`; do not edit by hand. A refusal's id is "
        "what the suite card counts; a rule's `rule` value is the suite's `rule` column.",
    ]
    for area in AREAS:
        if not (rows := [r for r in recs.values() if r.area == area]):
            continue
        lines += ["", f"## {area}", "", "| id | kind | reason | example |", "|---|---|---|---|"]
        for r in sorted(rows, key=lambda r: (r.kind != "rule", r.id)):
            name = f"`{r.id}` (`{r.rule}`)" if r.rule else f"`{r.id}`"
            lines.append(f"| {name} | {r.kind} | {_cell(r.reason)} | {_cell(_first_example(r))} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Check the registry; write its tables.")
    parser.add_argument("--markdown", action="store_true", help=f"write {DOC.name} (docs/) from the registry")
    args = parser.parse_args(argv)
    recs = records()
    if args.markdown:
        DOC.write_text(markdown(recs), encoding="utf-8")
    print(f"wrote {DOC} ({len(recs)} records)" if args.markdown else f"{len(recs)} records, valid")
    return 0


if __name__ == "__main__":
    sys.exit(main())
