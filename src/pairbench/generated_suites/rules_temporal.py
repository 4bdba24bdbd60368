"""Temporal rules: an inverted relation (before <-> after, earlier <-> later).

``temporal`` is the category's main rule: before <-> after (a preposition with its object or a
conjunction with its clause) and earlier <-> later compared ("earlier than expected"). Both
refuse whatever could make the inverted sentence contradict itself (a result after its cause, a
date beside the relation, adverbial before).

``temporal_opening`` is a fallback (see ``generate.FALLBACKS``): earlier <-> later in an
opening adverbial that places the event against another one ("Earlier Thursday, ..." -> "Later
Thursday, ...", "An hour later, ..." -> "An hour earlier, ..."). Anywhere else the main rule's
refusal stands: "later Thursday" after a modal reads as a forecast, "42 years later" closes a
story, "later this year" is tied to the tense. A shift within a day (late Friday -> early
Friday) inverts no order, and a blind reading found three of seven such pairs invalid.
"""

from __future__ import annotations

from pairbench.generated_suites.edits import Made, Refuse, match_case, rebuild, single_clause
from pairbench.generated_suites.rules_lexical import is_year

TEMPORAL = {"before": "after", "after": "before", "earlier": "later", "later": "earlier"}
# Verbs whose particle "after" is no temporal relation (look after, take after, name after).
_PHRASAL = {"look", "take", "name", "go", "run", "come", "chase", "seek", "ask"}


# Objects of "before" that make it spatial ("before a crowd", "before the court"): not a time.
_AUDIENCES = {
    "crowd",
    "audience",
    "court",
    "judge",
    "jury",
    "committee",
    "panel",
    "congress",
    "parliament",
    "senate",
    "camera",
    "cameras",
    "public",
    "house",
    "mirror",
    "eyes",
}
# Results that come only after their cause ("died after a stroke"): inverted, the pair is absurd.
_CAUSAL_HEADS = {
    "die",
    "kill",
    "injure",
    "hospitalize",
    "hospitalise",
    "release",
    "recover",
    "outrage",
    "confirm",
    "condemn",
    "mourn",
}
# Results that follow an event they respond to (flooded after the rain, arrested after the robbery):
# with after, the inversion puts the result before its cause.
_RESPONSE_HEADS = {
    "flood",
    "treat",
    "develop",
    "reopen",
    "arrest",
    "charge",
    "convict",
    "sentence",
    "rescue",
    "evacuate",
    "repair",
    "rebuild",
    "resume",
    "heal",
    "investigate",
    "apologize",
    "apologise",
    "resign",
    "respond",
    "react",
    "compensate",
    "sue",
    "fine",
    "collapse",
    "fall",
    "rise",
    "drop",
    "surge",
    "jump",
    "plunge",
    "soar",
    "slump",
    "remain",
    "stay",
    "close",
    "draw",
    "end",
    "cancel",
    "suspend",
    "ban",
    "warn",
    "protest",
    "thank",
    "celebrate",
    "admit",
    "discharge",
}
# Events that cause what follows them (a crash, a storm, a dose): after them, a result is likely.
_CAUSE_EVENTS = {
    "rain",
    "storm",
    "flood",
    "crash",
    "accident",
    "robbery",
    "attack",
    "bombing",
    "explosion",
    "blast",
    "fire",
    "earthquake",
    "quake",
    "dose",
    "injection",
    "vaccination",
    "surgery",
    "operation",
    "renovation",
    "repair",
    "collapse",
    "arrest",
    "verdict",
    "ruling",
    "decision",
    "death",
    "injury",
    "illness",
    "infection",
    "outbreak",
    "shooting",
    "killing",
    "strike",
    "war",
    "invasion",
    "recovering",
    "scandal",
    "report",
    "complaint",
    "warning",
}
_NAMED_DAYS = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
_DAYS = _NAMED_DAYS | {"today", "tonight"}


def _temporal_refusal(doc, token) -> str | None:
    low = token.lower_
    if low in ("before", "after"):
        if token.dep_ not in ("prep", "mark"):
            return "before/after as an adverb (= previously, afterwards)"
        if token.dep_ == "prep" and not any(c.dep_ in ("pobj", "pcomp") for c in token.children):
            return "before/after as an adverb (= previously, afterwards)"
        if token.dep_ == "prep" and any(c.dep_ == "pobj" and c.lemma_.lower() in _AUDIENCES for c in token.children):
            return "spatial before (before a crowd, before the court)"
        if any(
            c.dep_ == "pobj" and (c.ent_type_ in ("DATE", "TIME") or any(g.dep_ == "nummod" for g in c.children))
            for c in token.children
        ):
            return "a duration or date as the object (after two days, before 2001)"
        if token.head.lemma_.lower() in _CAUSAL_HEADS:
            return "a result after its cause (died after a stroke, shares fell after)"
        why = _cause_refusal(doc, token)
        if why is not None:
            return why
        if token.head.dep_ == "ROOT" and not any(c.dep_ in ("nsubj", "nsubjpass") for c in token.head.children):
            return "headline or fragment (no subject): the relation may be causal"
    else:
        nxt = doc[token.i + 1] if token.i + 1 < len(doc) else None
        if nxt is None or nxt.lower_ != "than":
            return "earlier/later without than (= previously, afterwards, later Thursday)"
    if token.dep_ == "prt" or token.head.lemma_ in _PHRASAL:
        return "phrasal verb (look after, ...)"
    if token.i > 0 and (
        doc[token.i - 1].lower_ in _MODIFIERS
        or doc[token.i - 1].ent_type_ in ("DATE", "TIME")
        and not is_year(doc[token.i - 1])
    ):
        return "modified temporal word (soon after, the day before, 42 years later)"
    return None


def _cause_refusal(doc, token) -> str | None:
    """Why inverting ``token`` (before/after) could contradict a date or put a result before its
    cause: a date, year or time word outside the temporal phrase (amended in 1999 after ...,
    released today after ... in June), after + a clause (its event may be the cause), a response
    verb after an event or an event that causes what follows it (flooded after the rain)."""
    inside = {t.i for t in token.subtree}
    for t in doc:
        if t.i not in inside and (
            t.ent_type_ in ("DATE", "TIME")
            or is_year(t)
            or t.lower_ in _DAYS | {"yesterday", "tomorrow", "late", "early"}
        ):
            return "a date or time beside the relation (the inversion may contradict it)"
    if token.lower_ != "after":
        return None
    if token.dep_ == "mark" or token.i == 0:
        return "after + a clause (its event may be the cause of the result)"
    objs = [c for c in token.children if c.dep_ in ("pobj", "pcomp")]
    if token.head.lemma_.lower() in _RESPONSE_HEADS or any(
        o.lemma_.lower() in _CAUSE_EVENTS or o.lower_ in _CAUSE_EVENTS for o in objs
    ):
        return "a result after its cause (flooded after the rain, arrested after the robbery)"
    return None


_MODIFIERS = {
    "soon",
    "shortly",
    "long",
    "right",
    "just",
    "day",
    "days",
    "year",
    "years",
    "week",
    "weeks",
    "month",
    "months",
    "hour",
    "hours",
    "minutes",
    "the",
    "a",
    "an",
    "immediately",
    "even",
    "only",
    "twice",
    "once",
    "ever",
    "never",
    "much",
}


def temporal(doc, ctx=None) -> Made:
    """before <-> after (a preposition with its object, or a conjunction with its clause) and
    earlier <-> later (compared, "earlier than expected", or of a day, "later Thursday"), in a
    sentence with a subject."""
    found = [t for t in doc if t.lower_ in TEMPORAL]
    if not found:
        raise Refuse("no before/after/earlier/later")
    if len(found) > 1:
        raise Refuse("more than one temporal word")
    # a sentence with a subject; a headline with one is read like a sentence ("Japan defends dolphin
    # hunt after US criticism"): its causes and results are refused below as anywhere else
    single_clause(doc)
    token = found[0]
    why = _temporal_refusal(doc, token)
    if why is not None:
        raise Refuse(why)
    return Made(rebuild(doc, {token.i: match_case(TEMPORAL[token.lower_], token.text)}), f"temporal:{token.lower_}")


# Opening adverbials that place the sentence's event against another one, before or after it.
_DURATIONS = {"minute", "minutes", "hour", "hours", "day", "days", "week", "weeks", "month", "months", "year", "years"}
_TIME_WORDS = set(TEMPORAL) | {"early", "late", "soon", "then", "yesterday", "tomorrow", "today", "tonight"}


def _opening(doc, token) -> bool:
    """ "Earlier Thursday, ..." or "An hour later, ...": earlier/later opens the sentence, on a
    weekday or after a duration, and a comma closes the adverbial."""
    if token.lower_ not in ("earlier", "later"):
        return False
    if token.i == 0:
        return len(doc) > 2 and doc[1].lower_ in _NAMED_DAYS and doc[2].text == ","
    lead = doc[: token.i]
    closed = token.i + 1 < len(doc) and doc[token.i + 1].text == ","
    return (
        closed and len(lead) <= 3 and lead[-1].lower_ in _DURATIONS and all(t.like_num or t.is_stop for t in lead[:-1])
    )


def temporal_opening(doc, ctx=None) -> Made:
    """ "Earlier Thursday, the board rejected the bid." -> "Later Thursday, ..."; "An hour later,
    ..." -> "An hour earlier, ..." """
    found = [t for t in doc if t.lower_ in _TIME_WORDS]
    if len(found) != 1 or not _opening(doc, found[0]):
        raise Refuse("no opening earlier/later on a weekday or after a duration, or a second time word")
    single_clause(doc)
    token = found[0]
    return Made(rebuild(doc, {token.i: match_case(TEMPORAL[token.lower_], token.text)}), "temporal:opening")
