"""The registry's ``pattern`` / ``dep_pattern`` matched by id, once per doc, and only on a doc with a token fitting
each token a pattern needs (``_may_match``: a quick test, never a match)."""

from __future__ import annotations

from functools import cache

from pairbench.generated_suites.registry import RegistryError, records

_PLAIN = {"DEP": "dep_", "TAG": "tag_", "POS": "pos_", "LOWER": "lower_", "LEMMA": "lemma_", "ORTH": "text"}


@cache
def _matcher(vocab, rid: str, dep: bool):
    from spacy.matcher import DependencyMatcher, Matcher

    matcher = (DependencyMatcher if dep else Matcher)(vocab, validate=True)
    matcher.add(rid, _patterns(rid, dep))  # each pattern validated when the registry was read
    return matcher


def _patterns(rid: str, dep: bool) -> list | None:
    return getattr(records().get(rid), "dep_pattern" if dep else "pattern", None)


def _optional(node: dict) -> bool:
    """A token a match may lack: OP ?, *, ! or {n,m} with no or a zero minimum (keys in any case, as spaCy reads)."""
    op = str(next((v for k, v in node.items() if k.upper() == "OP"), ""))
    return op in ("?", "*", "!") or op.startswith("{") and op[1:-1].split(",")[0].strip() in ("", "0")


@cache
def _plain_nodes(rid: str, dep: bool) -> tuple:
    """Per pattern of ``rid``: (token attribute, IN, NOT_IN) of each plain string test of a token a match needs."""
    out = []
    for nodes in _patterns(rid, dep):
        tests = []
        for node in nodes if dep else [n for n in nodes if not _optional(n)]:
            for key, want in (node.get("RIGHT_ATTRS", {}) if dep else node).items():
                want = {"IN": [want]} if isinstance(want, str) else want
                if key.upper() in _PLAIN and isinstance(want, dict) and set(want) <= {"IN", "NOT_IN"}:
                    allowed = frozenset(want.get("IN", ())) or None, frozenset(want.get("NOT_IN", ()))
                    tests.append((_PLAIN[key.upper()], *allowed))
        out.append(tuple(tests))
    return tuple(out)


def _may_match(doc, rid: str, dep: bool) -> bool:
    """Some pattern of ``rid`` each of whose needed tokens' tests some token of ``doc`` passes (else no match)."""
    if (values := doc.user_data.get("pairbench.values")) is None:  # each attribute's values in the doc, kept with it
        values = doc.user_data["pairbench.values"] = {a: {getattr(t, a) for t in doc} for a in _PLAIN.values()}
    return any(
        all((want is None or not values[a].isdisjoint(want)) and not values[a] <= banned for a, want, banned in tests)
        for tests in _plain_nodes(rid, dep)
    )


def _found(doc, rid: str, dep: bool) -> list:
    """The matches of ``rid`` in ``doc``, kept with it: spans, or for a dependency pattern token lists in its order."""
    found = doc.user_data.setdefault("pairbench.patterns", {})  # its matches by (id, dependency pattern or not)
    if (rid, dep) not in found:  # the first ask of this doc: only then is the registry looked up
        if _patterns(rid, dep) is None:
            kind = "dep_pattern" if dep else "pattern"
            raise RegistryError(f"{rid}: no {kind} registered; add `{kind}` to its record")
        hits = _matcher(doc.vocab, rid, dep)(doc) if _may_match(doc, rid, dep) else []
        found[rid, dep] = [[doc[i] for i in hit[1]] if dep else doc[hit[1] : hit[2]] for hit in hits]
    return found[rid, dep]


def matches(doc, rid: str) -> list:
    """The spans of ``doc`` that id ``rid``'s token patterns match, in order."""
    return list(_found(doc, rid, False))


def inside(doc, rid: str, token) -> bool:
    """``token`` lies in a span that id ``rid``'s token patterns match."""
    return any(span.start <= token.i < span.end for span in matches(doc, rid))


def dep_matches(doc, rid: str) -> list[list]:
    """For each match of id ``rid``'s dependency pattern: its tokens, in pattern order."""
    return [list(m) for m in _found(doc, rid, True)]


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
