"""Parts of a sentence that presuppose or frame its claim, which a change would contradict or miss."""

from __future__ import annotations

from pairbench.generated_suites.edits import has_subject, headline, kids
from pairbench.generated_suites.lexicon import saying, words
from pairbench.generated_suites.patterns import matches, rooted, roots, starts
from pairbench.generated_suites.registry import records

AMOUNT_TYPES = ("MONEY", "CARDINAL", "PERCENT", "QUANTITY")


def _held(doc, root, rid: str) -> bool:
    """Id ``rid``'s token pattern matched from the claim's verb ``root`` on, or its dependency pattern from ``root``."""
    if records()[rid].pattern is not None and any(i >= root.i for i in starts(doc, rid)):
        return True
    return records()[rid].dep_pattern is not None and root.i in roots(doc, rid)


def presupposed(doc, root, negs) -> str | None:
    """Why the rest of the sentence would contradict a not added to (or removed from) the claim."""
    if negs:
        return "negation.polarity_phrase" if matches(doc, "negation.polarity_phrase") else None
    return next((rid for rid, test in _PRESUPPOSED if test(doc, root, rid)), None)


def _coordinated(doc, root, rid=None) -> bool:
    """A second verb of the claim's subject that tells what followed ("arrived on Monday and was unpacked by noon")."""
    later = [c for c in kids(root, "conj") if not has_subject(c)]
    timed = later and _timed(root, later[0].i) and any(_timed(c, len(doc), True) for c in later)
    after = any(g.dep_ == "advmod" and g.lower_ in words("consequence_adverbs") for c in later for g in c.children)
    text = " ".join(t.lower_ for t in doc if not t.is_punct)
    since = any(text == e or text.endswith(" " + e) for e in words("since_endings"))
    return bool(timed or after or since and any(c.i > root.i for c in kids(root, "conj")))


def _presupposing_comment(doc, root, rid) -> bool:
    """A comment after a comma that asserts the claim happened ("cost 300 dollars, which was twice the quote")."""
    if _held(doc, root, rid):
        return True
    for comma in (t for t in doc[root.i + 1 :] if t.text == "," and t.i + 1 < len(doc)):
        rest = doc[comma.i + 1 : comma.i + 5]
        comment = any(" ".join(t.lower_ for t in rest[:n]) in words("presupposing_comments") for n in (2, 3))
        which = rest[0].lower_ == "which" or rest[0].lower_ == "that" and len(rest) > 1 and rest[1].lemma_ == "be"
        amounts = [t for t in doc[root.i + 1 : comma.i] if t.like_num or t.ent_type_ in AMOUNT_TYPES]  # however hung
        if comment or which and any(root in t.ancestors for t in amounts):
            return True
    return False


_PRESUPPOSED = (  # (id, test of doc, claim's verb, id) in order: the first that holds is the refusal
    ("negation.presupposing_phrase", lambda doc, root, rid: matches(doc, rid)),
    ("negation.presupposing_comment", _presupposing_comment),
    ("negation.headline_dash", lambda doc, root, rid: headline(doc) and _held(doc, root, rid)),
    ("negation.emphatic_yes", lambda doc, root, rid: matches(doc, rid)),
    ("negation.because_clause", _held),
    ("negation.coordinated_clause", _coordinated),
    ("negation.participle_clause", _held),  # ", making X", ", helped by Y"
    ("negation.also_or_as", lambda doc, root, rid: doc[0].lower_ == "also" or _held(doc, root, rid)),
    ("negation.where_later", _held),
    ("negation.but_refers_back", lambda doc, root, rid: any(m[3].i > root.i for m in rooted(doc, rid, root))),
    ("negation.contrast_clause", _held),
    ("negation.reported_clauses", lambda doc, root, rid: rooted(doc, rid, root)),
)


def _timed(verb, end, after=False) -> bool:
    """A time of the verb's own before ``end`` (on Monday, at nine; ``after``: by noon, the next day)."""
    own = kids(verb, "npadvmod", "advmod", "acomp", "prep", "agent")
    preps, times = words("time_after_prepositions") if after else (), words("event_time_nouns")
    near = [t for c in own if not preps or c.dep_ not in ("prep", "agent") or c.lower_ in preps for t in c.subtree]
    dated = [t for t in near if t.ent_type_ in ("DATE", "TIME") or t.lower_ in times]
    return any(t.i < end for t in dated + [t for t in near if t.like_num and t.head.lower_ == "at"])


def framed(doc, root) -> str | None:
    """Why a change of the clause would miss its claim: the claim is framed elsewhere, or the parse is wrong."""
    if rid := next((r for r in ("hedging.claim_noun_clause", "hedging.feeling_frame") if _held(doc, root, r)), None):
        return rid
    colon, claims = max((t.i for t in doc[: root.i] if t.text == ":"), default=-1), saying("claim")
    verbs = [m[0] for m in matches(doc, "hedging.colon_claim") if m.start < colon and m[0].lemma_.lower() not in claims]
    if any(t.tag_ in ("VBD", "VBZ", "VBP") or any(a.tag_ != "TO" for a in kids(t, "aux", "auxpass")) for t in verbs):
        return "hedging.colon_claim"
    bare_past = not kids(root, "aux", "auxpass")  # a participle as the verb: no auxiliary
    ids = ("hedging.saying_participle", "hedging.participle_as_verb", "hedging.as_clause", "hedging.participle_subject")
    held = {rid: {m[1] for m in rooted(doc, rid, root)} for rid in ids}  # each tried child by child
    for c in root.children:
        for rid in held:
            if c in held[rid] and (rid != "hedging.participle_as_verb" or bare_past and not has_subject(c)):
                return rid
    return None


def saying_alone(root, also=()) -> bool:
    """A verb of saying with no claim ("He said at every level"; ``also``: more dependents of a claim)."""
    claims = kids(root, "dobj", "ccomp", *also)
    bare = all(c.dep_ == "dobj" and any(g.dep_ == "acl" and g.tag_ == "VBN" for g in c.children) for c in claims)
    return root.lemma_.lower() in saying("alone") and bare
