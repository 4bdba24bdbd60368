"""Fine types near_miss can check: countries, US states, cities and nationalities as written in
English news (spaCy's GPE and NORP labels do not tell a country from a city or a party from a
nation), organisations by kind and names of one thing. The lists are lexicon files
(``lexicon/countries.yaml``, ``organisations.yaml``, ``aliases.yaml``, ...)."""

from __future__ import annotations

from pairbench.generated_suites.lexicon import table, words


def kind_of(text: str, label: str) -> str | None:
    """The one fine type of a GPE or NORP entity (``lexicon/fine_types.yaml``: each type a lexicon
    list) whose list holds ``text``, or None (none or several)."""
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
