"""The registry's ``pattern`` / ``dep_pattern`` records matched by id: one Matcher per vocab matches a
doc once; each id's DependencyMatcher runs only when a rule asks for it, and only on a doc where each node of
one of its patterns has a token whose words and tags fit it (``_may_match``: a quick test, never a match)."""

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


_PLAIN = {"DEP": "dep_", "TAG": "tag_", "POS": "pos_", "LOWER": "lower_", "LEMMA": "lemma_", "ORTH": "text"}


@cache
def _plain_nodes(rid: str) -> tuple:
    """Per pattern of id ``rid``'s dependency patterns, the tests of its nodes on plain string attributes (the rest,
    e.g. IS_ALPHA or a regular expression, is left to the DependencyMatcher): (token attribute, IN, NOT_IN)."""
    out = []
    for nodes in records()[rid].dep_pattern:
        tests = []
        for node in nodes:
            for key, want in node.get("RIGHT_ATTRS", {}).items():
                if key in _PLAIN and isinstance(want, str):
                    tests.append((_PLAIN[key], frozenset([want]), frozenset()))
                elif key in _PLAIN and set(want) <= {"IN", "NOT_IN"}:
                    tests.append(
                        (_PLAIN[key], frozenset(want.get("IN", ())) or None, frozenset(want.get("NOT_IN", ())))
                    )
        out.append(tuple(tests))
    return tuple(out)


def _may_match(doc, rid: str) -> bool:
    """Some pattern of id ``rid`` each of whose node tests some token of ``doc`` passes: a quick test that only
    rules a doc out (a match needs it), so the DependencyMatcher runs on fewer docs with the same matches."""
    values = doc.user_data.setdefault("pairbench.values", {})
    for attr in _PLAIN.values():
        if attr not in values:
            values[attr] = {getattr(t, attr) for t in doc}
    return any(
        all((want is None or values[a] & want) and values[a] - banned for a, want, banned in tests)
        for tests in _plain_nodes(rid)
    )


_KEY = "pairbench.patterns"  # a doc's user_data key: its token matches and its dependency matches by id


def _found(doc):
    """The matches of ``doc``, kept with it: the rules ask of the anchor, its paraphrase and a made pair in turn."""
    if _KEY not in doc.user_data:
        spans = {}
        for match_id, start, end in _matcher(doc.vocab)(doc):
            spans.setdefault(doc.vocab.strings[match_id], []).append(doc[start:end])
        doc.user_data[_KEY] = (spans, {})
    return doc.user_data[_KEY]


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
        found = _matcher(doc.vocab, rid)(doc) if _may_match(doc, rid) else []
        deps[rid] = [[doc[i] for i in ids] for _, ids in found]
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
