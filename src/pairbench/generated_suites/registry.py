"""The registry of the generated suites' rules and refusals, kept as data (``registry/<area>.yaml``):
each record's stable dotted id, kind, category, one-line reason, examples and optional spaCy patterns.
``python -m pairbench.generated_suites.registry --markdown`` writes ``docs/generated_rules.md`` from it."""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pairbench.core.errors import PairbenchError
from pairbench.core.yaml_files import YamlFileError
from pairbench.core.yaml_files import read as read_yaml
from pairbench.generated_suites.config import GENERATED_CATEGORIES
from pairbench.generated_suites.lexicon import LexiconError, words

FOLDER = Path(__file__).resolve().parent / "registry"
AREAS = ("anchor", "check", *GENERATED_CATEGORIES)  # one registry file (or more) per area
SHARED_AREAS = ("anchor", "check")  # refusals of any category (or of one, for a check on a made pair)
KINDS = ("rule", "refusal")
_ID = re.compile(r"^([a-z_]+)\.([a-z0-9_]+)$")
_KEYS = {"id", "kind", "category", "reason", "rule", "keep", "refuse", "pattern", "dep_pattern"}
_EXAMPLE_KEYS = {"anchor", "category", "paraphrase", "pair", "fallback"}


class RegistryError(PairbenchError):
    """A registry file whose records are not well formed."""


@dataclass(frozen=True)
class Example:
    """An anchor to try; ``pair``: the sentence the rule must make; ``fallback``: the fallback rule
    (of ``generate.FALLBACKS``) whose own refusal it shows, tried alone."""

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
    if isinstance(raw, str):
        raw = {"anchor": raw}
    if not isinstance(raw, dict) or not isinstance(raw.get("anchor"), str) or set(raw) - _EXAMPLE_KEYS:
        raise RegistryError(
            f"{where}: each `{key}` example is a sentence or {{anchor, category?, paraphrase?, pair?, fallback?}}; fix it"
        )
    category = raw.get("category", default)
    if category not in GENERATED_CATEGORIES:
        raise RegistryError(f"{where}: `{key}` example of category {category!r}: name a generated category")
    return Example(raw["anchor"], category, raw.get("paraphrase"), raw.get("pair"), raw.get("fallback"))


def with_lexicon(value, where: str = ""):
    """``value`` (a pattern) with each ``IN`` / ``NOT_IN`` given as ``"@name"`` replaced by lexicon ``name``'s
    words, sorted: ``{LOWER: {IN: "@negative_words"}}`` keeps the list in its one lexicon file."""
    if isinstance(value, list):
        return [with_lexicon(v, where) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        if key in ("IN", "NOT_IN") and isinstance(item, str) and item.startswith("@"):
            try:
                item = sorted(words(item[1:]))
            except LexiconError as err:
                raise RegistryError(f"{where}: its pattern names lexicon {item!r}: {err}") from None
        out[key] = with_lexicon(item, where)
    return out


def _check_patterns(record: dict, where: str) -> tuple[list | None, list | None]:
    """Patterns are lists of token-dict lists that spaCy's Matcher accepts (validate=True), lexicon names
    expanded (``with_lexicon``); returns them expanded."""
    from spacy.matcher import DependencyMatcher, Matcher
    from spacy.vocab import Vocab

    out = []
    for key, matcher in (("pattern", Matcher), ("dep_pattern", DependencyMatcher)):
        pattern = None if record.get(key) is None else with_lexicon(record[key], where)
        out.append(pattern)
        if pattern is None:
            continue
        try:
            matcher(Vocab(), validate=True).add(record["id"], pattern)
        except (ValueError, TypeError, KeyError) as err:
            first = str(err).strip().splitlines()[0]
            raise RegistryError(f"{where}: spaCy refuses its pattern ({first}); fix the pattern") from None
    return out[0], out[1]


def _record(raw, area: str, path: Path, strict: bool = True) -> Record:
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
        raise RegistryError(f"{path}: every record is a mapping with an `id`; fix the record {raw!r:.60}")
    rid = raw["id"]
    where = f"{path.name}: {rid}"
    match = _ID.match(rid)
    if not match or match.group(1) != area:
        raise RegistryError(f"{where}: an id is `{area}.<snake_case>` in {path.name}; rename it")
    if set(raw) - _KEYS:
        raise RegistryError(f"{where}: unknown key(s) {sorted(set(raw) - _KEYS)}; use {sorted(_KEYS)}")
    kind, category, reason = raw.get("kind"), raw.get("category"), raw.get("reason")
    if kind not in KINDS:
        raise RegistryError(f"{where}: `kind` is {kind!r}; use rule or refusal")
    allowed = ("any", *GENERATED_CATEGORIES) if area in SHARED_AREAS else (area,)
    if category not in allowed:
        want = "`any` or a generated category" if area in SHARED_AREAS else repr(area)
        raise RegistryError(f"{where}: `category` is {category!r}; records of {path.name} have {want}")
    if not isinstance(reason, str) or not reason.strip() or "\n" in reason:
        raise RegistryError(f"{where}: `reason` must be one non-empty line")
    default = category if category != "any" else "negation"
    keep = tuple(_example(e, default, where, "keep") for e in raw.get("keep") or ())
    refuse = tuple(_example(e, default, where, "refuse") for e in raw.get("refuse") or ())
    if kind == "rule":
        if not isinstance(raw.get("rule"), str) or refuse or (strict and not keep):
            raise RegistryError(f"{where}: a rule names its `rule` column value and has `keep` examples only")
    elif raw.get("rule") is not None or (strict and not refuse):
        raise RegistryError(f"{where}: a refusal has no `rule` and at least one `refuse` example; add one")
    patterns = _check_patterns(raw, where)
    return Record(rid, kind, category, reason, raw.get("rule"), keep, refuse, *patterns, str(path))


def _same_as(raws: list[tuple]) -> set[int]:
    """Replace each ``pattern: {same_as: <id>}`` (or ``dep_pattern``) by that record's own pattern of the kind:
    two records of two categories that refuse one shape keep it once. Returns the positions of the raws changed."""
    own = {raw.get("id"): raw for raw, _, _ in raws if isinstance(raw, dict)}
    changed = {}
    for n, (raw, _, path) in enumerate(raws):
        for key in ("pattern", "dep_pattern"):
            value = raw.get(key) if isinstance(raw, dict) else None
            if not (isinstance(value, dict) and set(value) == {"same_as"}):
                continue
            where, target = f"{path.name}: {raw.get('id')}: `{key}: {{same_as: ...}}`", value["same_as"]
            other = own.get(target, {}).get(key) if isinstance(target, str) else None
            if not isinstance(other, list):
                raise RegistryError(f"{where} names {target!r}, no record with a `{key}` of its own; name one")
            changed.setdefault(n, {})[key] = other
    for n, patterns in changed.items():
        raws[n][0].update(patterns)
    return set(changed)


def load(folder: Path = FOLDER, strict: bool = True) -> dict[str, Record]:
    """Every record of ``folder``'s files by id, validated (``strict=False``: examples may be missing)."""
    raws = []
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
        raws += [(raw, area, path) for raw in records_of]
    order = {raw.get("id"): n for n, (raw, _, _) in enumerate(raws) if isinstance(raw, dict)}
    shared = _same_as(raws)
    out: dict[str, Record] = {}
    # a shared pattern is checked first under the record that holds it (an error names that record)
    for n in sorted(range(len(raws)), key=lambda n: n in shared):
        raw, area, path = raws[n]
        record = _record(raw, area, path, strict)
        if record.id in out:
            raise RegistryError(f"{path.name}: {record.id}: the id is used twice; give each record its own")
        out[record.id] = record
    return dict(sorted(out.items(), key=lambda item: order[item[0]]))


@lru_cache(maxsize=1)
def records() -> dict[str, Record]:
    """The package's registry (that every record has its examples is the registry test's check)."""
    return load(FOLDER, strict=False)


def reason(rid: str) -> str:
    """The one-line reason of id ``rid``; an unregistered string is returned as given."""
    record = records().get(rid)
    return record.reason if record is not None else rid


def by_reason() -> dict[str, str]:
    """Each registered reason -> its id (to read counts stored under reasons)."""
    return {r.reason: r.id for r in records().values()}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _first_example(record: Record) -> str:
    examples = record.keep if record.kind == "rule" else record.refuse
    if not examples:
        return ""
    e = examples[0]
    text = f"{e.anchor} → {e.pair}" if e.pair else e.anchor
    if e.paraphrase and not e.pair:
        text += f" / {e.paraphrase}"
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
        rows = [r for r in recs.values() if r.area == area]
        if not rows:
            continue
        lines += ["", f"## {area}", "", "| id | kind | reason | example |", "|---|---|---|---|"]
        for r in sorted(rows, key=lambda r: (r.kind != "rule", r.id)):
            name = f"`{r.id}` (`{r.rule}`)" if r.rule else f"`{r.id}`"
            lines.append(f"| {name} | {r.kind} | {_cell(r.reason)} | {_cell(_first_example(r))} |")
    return "\n".join(lines) + "\n"


DOC = Path(__file__).resolve().parents[3] / "docs" / "generated_rules.md"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Check the registry; write its tables.")
    parser.add_argument("--markdown", action="store_true", help=f"write {DOC.name} (docs/) from the registry")
    args = parser.parse_args(argv)
    recs = records()
    if args.markdown:
        DOC.write_text(markdown(recs), encoding="utf-8")
        print(f"wrote {DOC} ({len(recs)} records)")
    else:
        print(f"{len(recs)} records, valid")
    return 0


if __name__ == "__main__":
    sys.exit(main())
