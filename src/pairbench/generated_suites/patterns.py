"""spaCy ``Matcher`` / ``DependencyMatcher`` patterns of the registry, matched by rule or check id.

Patterns come from a record's ``pattern`` / ``dep_pattern`` (registry YAML). One matcher of each
kind per vocab holds every pattern; it is built on first use and cached, so a rule asks only for
its id's matches."""

from __future__ import annotations

from pairbench.generated_suites.registry import RegistryError, records

_MATCHERS: dict[int, tuple] = {}


def _matchers(vocab):
    """(Matcher, DependencyMatcher) of ``vocab`` holding every pattern (built once per vocab)."""
    built = _MATCHERS.get(id(vocab))
    if built is not None and built[0] is vocab:
        return built[1], built[2]
    from spacy.matcher import DependencyMatcher, Matcher

    matcher, dep_matcher = Matcher(vocab, validate=True), DependencyMatcher(vocab, validate=True)
    for rid, record in records().items():  # each pattern validated when the registry was read
        if record.pattern is not None:
            matcher.add(rid, record.pattern)
        if record.dep_pattern is not None:
            dep_matcher.add(rid, record.dep_pattern)
    _MATCHERS[id(vocab)] = (vocab, matcher, dep_matcher)
    return matcher, dep_matcher


_LAST: list = [None, {}, {}]  # the last doc matched and its matches by id (rules ask in turn)


def _found(doc):
    if _LAST[0] is not doc:
        matcher, dep_matcher = _matchers(doc.vocab)
        spans, deps = {}, {}
        for match_id, start, end in matcher(doc):
            spans.setdefault(doc.vocab.strings[match_id], []).append(doc[start:end])
        for match_id, ids in dep_matcher(doc) if len(dep_matcher) else ():
            deps.setdefault(doc.vocab.strings[match_id], []).append([doc[i] for i in ids])
        _LAST[:] = [doc, spans, deps]
    return _LAST[1], _LAST[2]


def matches(doc, rid: str) -> list:
    """The spans of ``doc`` that id ``rid``'s token patterns match, in order."""
    if getattr(records().get(rid), "pattern", None) is None:
        raise RegistryError(f"{rid}: no token pattern registered; add `pattern` to its record")
    return list(_found(doc)[0].get(rid, ()))


def dep_matches(doc, rid: str) -> list[list]:
    """For each match of id ``rid``'s dependency pattern: its tokens, in pattern order."""
    if getattr(records().get(rid), "dep_pattern", None) is None:
        raise RegistryError(f"{rid}: no dependency pattern registered; add `dep_pattern` to its record")
    return [list(m) for m in _found(doc)[1].get(rid, ())]
