"""The registry's ``pattern`` / ``dep_pattern`` records matched by id: one Matcher per vocab matches a
doc once; each id's DependencyMatcher runs only when a rule asks for it."""

from __future__ import annotations

from functools import cache

from pairbench.generated_suites.registry import RegistryError, records


@cache
def _matcher(vocab, rid: str | None = None):
    """``vocab``'s Matcher of every token pattern (``rid`` None), or id ``rid``'s DependencyMatcher."""
    from spacy.matcher import DependencyMatcher, Matcher

    matcher = Matcher(vocab, validate=True) if rid is None else DependencyMatcher(vocab, validate=True)
    for key, record in records().items():  # each pattern validated when the registry was read
        if rid is None and record.pattern is not None:
            matcher.add(key, record.pattern)
        elif key == rid:
            matcher.add(key, record.dep_pattern)
    return matcher


_LAST: list = [None, {}, {}]  # the last doc matched, its token matches and its dependency matches by id


def _found(doc):
    if _LAST[0] is not doc:
        spans = {}
        for match_id, start, end in _matcher(doc.vocab)(doc):
            spans.setdefault(doc.vocab.strings[match_id], []).append(doc[start:end])
        _LAST[:] = [doc, spans, {}]
    return _LAST[1], _LAST[2]


def matches(doc, rid: str) -> list:
    """The spans of ``doc`` that id ``rid``'s token patterns match, in order."""
    if getattr(records().get(rid), "pattern", None) is None:
        raise RegistryError(f"{rid}: no token pattern registered; add `pattern` to its record")
    return list(_found(doc)[0].get(rid, ()))


def inside(doc, rid: str, token) -> bool:
    """``token`` lies in a span that id ``rid``'s token patterns match."""
    return any(span.start <= token.i < span.end for span in matches(doc, rid))


def dep_matches(doc, rid: str) -> list[list]:
    """For each match of id ``rid``'s dependency pattern: its tokens, in pattern order."""
    if getattr(records().get(rid), "dep_pattern", None) is None:
        raise RegistryError(f"{rid}: no dependency pattern registered; add `dep_pattern` to its record")
    deps = _found(doc)[1]
    if rid not in deps:
        deps[rid] = [[doc[i] for i in ids] for _, ids in _matcher(doc.vocab, rid)(doc)]
    return [list(m) for m in deps[rid]]


def starts(doc, rid: str) -> set[int]:
    """The index of the first token of each span that id ``rid``'s token patterns match."""
    return {span.start for span in matches(doc, rid)}


def ends(doc, rid: str) -> set[int]:
    """The index of the last token of each span that id ``rid``'s token patterns match."""
    return {span.end - 1 for span in matches(doc, rid)}


def roots(doc, rid: str) -> set[int]:
    """The index of the first node of each match of id ``rid``'s dependency pattern."""
    return {m[0].i for m in dep_matches(doc, rid)}


def rooted(doc, rid: str, token) -> list[list]:
    """The matches of id ``rid``'s dependency pattern whose first node is ``token``, in order."""
    return [m for m in dep_matches(doc, rid) if m[0] == token]
