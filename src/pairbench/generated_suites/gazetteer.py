"""Fine types near_miss can check (spaCy's GPE, NORP and ORG do not tell them apart), from lexicon files."""

from __future__ import annotations

from pairbench.generated_suites.lexicon import table, words


def kind_of(text: str, label: str) -> str | None:
    """The one fine type (``lexicon/fine_types.yaml``) of a GPE or NORP entity, or None (none or several)."""
    found = [kind for kind, name in table("fine_types")[label].items() if text in words(name)]
    return found[0] if len(found) == 1 else None


def place_or_group(text: str) -> bool:
    """A country, state, city, nationality, people, region or party: no person's name."""
    return any(text in words(name) for kinds in table("fine_types").values() for name in kinds.values())


def organisation(text: str) -> str | None:
    """The kind of an organisation spaCy's ORG does not tell apart (company, us_agency, ...)."""
    return table("organisations").get(text)


def same_thing(a: str, b: str) -> bool:
    """Two names of one thing (Fed and US Federal Reserve)."""
    aliases = table("aliases")
    return a in aliases and aliases[a] == aliases.get(b)


def article_changes(old: str, new: str, word_before: str) -> bool:
    """``new`` takes an article ``old`` does not or the other way round, no "the" before (Iran -> the Netherlands)."""
    places = words("places_with_article")
    return (new.lower() in places) != (old.lower() in places) and word_before != "the"
