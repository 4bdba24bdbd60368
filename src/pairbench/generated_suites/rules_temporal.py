"""Temporal rules: an inverted relation (before <-> after, earlier <-> later).

``temporal`` is the category's main rule: before <-> after (a preposition with its object or a
conjunction with its clause), earlier <-> later compared ("earlier than expected") or right
before the main clause's past-tense verb, and the two-word relations of ``PHRASES``. Both
refuse whatever could make the inverted sentence contradict itself (a result after its cause, a
date beside the relation, adverbial before).

``temporal_opening`` is a fallback (see ``generate.FALLBACKS``): earlier <-> later in an
opening adverbial that places the event a duration after another one ("An hour later, ..." ->
"An hour earlier, ..."). ``temporal_headline`` is one too: a Title-Case headline's "Ahead of",
"Before" or "Prior to" -> "After", read by its words, as the tagger is unreliable there. Anywhere
else the main rule's
refusal stands: "later Thursday" after a modal reads as a forecast, "42 years later" closes a
story, "later this year" is tied to the tense. A shift within a day (late Friday -> early
Friday) inverts no order, and a blind reading found three of seven such pairs invalid.
"""

from __future__ import annotations

from typing import NamedTuple

from pairbench.generated_suites.edits import (
    Made,
    Refuse,
    match_case,
    reads_title_case,
    rebuild,
    single_clause,
    title_case,
)
from pairbench.generated_suites.rules_lexical import is_year
from pairbench.generated_suites.temporal_words import (
    AUDIENCES,
    CAUSAL_HEADS,
    CAUSE_EVENTS,
    CAUSE_VERBS,
    DAYS,
    DEICTIC,
    DURATIONS,
    LEARNING,
    MARKET_MOVES,
    MARKET_NEWS,
    MARKETS,
    MODIFIERS,
    PERIODS,
    RESPONSE_HEADS,
)

TEMPORAL = {"before": "after", "after": "before", "earlier": "later", "later": "earlier"}
# Relations of more than one word (or a word with another sense: "following" as a verb), and the
# word that inverts each: "ahead of talks" -> "after talks", "prior to surgery" -> "after surgery",
# "following the meeting" -> "before the meeting". "following" counts only as a preposition.
PHRASES = {("ahead", "of"): "after", ("prior", "to"): "after", ("following",): "before"}
# Verbs whose particle "after" is no temporal relation (look after, take after, name after).
_PHRASAL = {"look", "take", "name", "go", "run", "come", "chase", "seek", "ask"}


def _temporal_refusal(doc, rel: Relation) -> str | None:
    token, low = rel.token, rel.sense
    if low in ("before", "after"):
        if token.dep_ not in ("prep", "mark"):
            return "before/after as an adverb (= previously, afterwards)"
        if token.dep_ == "prep" and not any(c.dep_ in ("pobj", "pcomp") for c in token.children):
            return "before/after as an adverb (= previously, afterwards)"
        if token.dep_ == "prep" and any(c.dep_ == "pobj" and c.lemma_.lower() in AUDIENCES for c in token.children):
            return "spatial before (before a crowd, before the court)"
        if any(
            c.dep_ == "pobj"
            and (
                c.ent_type_ in ("DATE", "TIME")
                or any(g.dep_ == "nummod" for g in c.children)
                or c.lemma_.lower() in PERIODS
            )
            for c in token.children
        ):
            return "a duration, date or period of play as the object (after two days, before 2001, after extra time)"
        head = _main_head(token)
        if low == "after" and head.lemma_.lower() in CAUSAL_HEADS and not _agent_act(head):
            return "a result after its cause (died after a stroke, released after)"
        why = _cause_refusal(doc, rel)
        if why is not None:
            return why
        if head.dep_ == "ROOT" and not any(c.dep_ in ("nsubj", "nsubjpass") for c in head.children):
            return "headline or fragment (no subject): the relation may be causal"
    else:
        nxt = doc[token.i + 1] if token.i + 1 < len(doc) else None
        if _adverb_of_main_verb(token):
            why = _date_refusal(doc, rel)
            if why is not None:
                return why
            if token.head.lemma_.lower() in CAUSAL_HEADS | RESPONSE_HEADS | LEARNING:
                return "earlier/later on a result or a discovery (where he later died, later learned)"
        elif nxt is None or nxt.lower_ != "than":
            return "earlier/later without than (= previously, afterwards, later Thursday)"
    if token.dep_ == "prt" or token.head.lemma_ in _PHRASAL:
        return "phrasal verb (look after, ...)"
    prev = doc[rel.lead.i - 1] if rel.lead.i > 0 else None
    if (
        prev is not None
        and _measure(doc, rel.lead) is None
        and (prev.lower_ in MODIFIERS or prev.ent_type_ in ("DATE", "TIME") and not is_year(prev))
    ):
        return "modified temporal word (soon after, the day before, 42 years later)"
    return None


def _adverb_of_main_verb(token) -> bool:
    """ "Several states later passed similar bans" -> "earlier passed": earlier/later right before
    the past-tense verb of the main clause, which it places after or before the events told before.
    Never in a relative clause ("where he later died"), before a day ("later Thursday") or a
    compared form ("later than expected", handled as a comparison)."""
    head = token.head
    return token.dep_ == "advmod" and head.i == token.i + 1 and head.dep_ == "ROOT" and head.tag_ == "VBD"


def _market_move(head) -> bool:
    """ "Russian stocks fell after the arrest" -> "before the arrest": a market moves ahead of news
    as often as after it, so either order is possible. A price, a share or a market as the subject
    of a verb of rising or falling; every other result stays after its cause."""
    subject = next((c for c in head.children if c.dep_ == "nsubj"), None)
    return head.lemma_.lower() in MARKET_MOVES and subject is not None and subject.lemma_.lower() in MARKETS


def _agent_act(head) -> bool:
    """ "U.S. troops killed two dozen militants after coming under fire": an active kill or injure
    with its object and a subject that is no event (not "the blast killed ..."), an act whose
    inverted order is still possible. Every other causal head stays a result."""
    kids = {c.dep_: c for c in head.children}
    subject = kids.get("nsubj")
    return (
        head.lemma_.lower() in ("kill", "injure")
        and "dobj" in kids
        and "auxpass" not in kids
        and subject is not None
        and subject.lemma_.lower() not in CAUSE_EVENTS | CAUSAL_HEADS
    )


def _main_head(token):
    """The event the relation places: the head of its phrase, or for a conjunction ("left two days
    after the department introduced a plan") the verb its clause hangs from; past the first word
    of a two-word relation ("ahead of", "prior to")."""
    if token.dep_ == "mark":
        return token.head.head
    if token.i > 0 and token.head.i == token.i - 1 and (token.head.lower_, token.lower_) in PHRASES:
        return token.head.head
    return token.head


def _relation_span(token) -> set[int]:
    """The relation with what it places the event against: its object, or for a conjunction the
    whole clause it opens."""
    return {t.i for t in (token.head if token.dep_ == "mark" else token).subtree}


def _measure(doc, token):
    """ "two days after the department introduced a plan", "a day after the Pentagon singled out":
    a duration (with its number or article) that measures the gap, kept as it is when the order
    turns. None where the word before the relation is anything else."""
    prev = doc[token.i - 1] if token.i > 0 else None
    if (
        prev is None
        or prev.lower_ not in DURATIONS
        or prev.dep_ != "npadvmod"
        or not any(c.dep_ in ("nummod", "det") for c in prev.children)
    ):
        return None
    return prev


def _is_time(t) -> bool:
    """A date, time, year or day word; early and late only as time words ("late Friday", "left
    early"), never as adjectives ("drew the speech to an early close")."""
    if t.ent_type_ in ("DATE", "TIME") or is_year(t) or t.lower_ in DAYS | DEICTIC:
        return True
    return t.lower_ in ("late", "early") and t.dep_ != "amod"


def _tied_to_now(t, past: bool) -> bool:
    """A word that places the relation's object against now: today, tomorrow, next Sunday. A past
    one (last Saturday, yesterday) beside a verb in the past keeps both orders in the past: "stocks
    fell after the arrest last Saturday" -> "before the arrest last Saturday" contradicts nothing."""
    if past and (t.lower_ == "yesterday" or t.lower_ == "last" and _is_time(t.head)):
        return False
    return t.lower_ in DEICTIC or t.lower_ in ("next", "last") and _is_time(t.head)


def _date_refusal(doc, rel: Relation) -> str | None:
    """A year anywhere (amended in 1999 after the collapse of the Soviet Union: the reader knows
    the order), a now-bound word beside the relation (released today after ... in June), or a date
    on both sides of it. A date on one side only is kept: "left last Friday, two days after the
    department introduced a plan" -> "two days before" contradicts nothing."""
    measure = _measure(doc, rel.lead)
    skip = {t.i for t in measure.subtree} if measure is not None else set()
    inside = _relation_span(rel.token)
    times = [t for t in doc if t.i not in skip and _is_time(t)]
    outside = [t for t in times if t.i not in inside]
    if any(is_year(t) for t in times) or any(t.lower_ in DEICTIC for t in outside):
        return "a date or time beside the relation (the inversion may contradict it)"
    past = _main_head(rel.token).tag_ == "VBD"
    if any(t.i in inside and _tied_to_now(t, past) for t in doc):
        return "a date tied to now in the relation's object (ahead of next Sunday's election)"
    if outside and any(t.i in inside for t in times):
        return "a date or time beside the relation (the inversion may contradict it)"
    return None


def _cause_refusal(doc, rel: Relation) -> str | None:
    """Why inverting ``token`` (before/after) could contradict a date or put a result before its
    cause: a date against the relation (see ``_date_refusal``), a response verb after an event or
    an event that causes what follows it (flooded after the rain, trapped after the garage
    collapsed)."""
    why = _date_refusal(doc, rel)
    token = rel.token
    if why is not None or rel.sense != "after":
        return why
    head = _main_head(token)
    if _measure(doc, rel.lead) is None and (
        rel.lead.i == 0 or token.dep_ == "mark" and token.head.lemma_.lower() in CAUSE_VERBS
    ):
        return "after + a clause (its event may be the cause of the result)"
    if _market_move(head):  # either order, unless the news is what moves a market
        objects = [t for c in token.children if c.dep_ == "pobj" for t in c.subtree]
        if any({t.lemma_.lower(), t.lower_} & MARKET_NEWS for t in objects):
            return "a market move after the news that moves it (shares rally after upbeat data)"
        return None
    if token.dep_ == "mark":
        events = [token.head]
    else:
        events = [c for c in token.children if c.dep_ in ("pobj", "pcomp")]
    causes = CAUSE_EVENTS | CAUSAL_HEADS
    if head.lemma_.lower() in RESPONSE_HEADS or any(o.lemma_.lower() in causes or o.lower_ in causes for o in events):
        return "a result after its cause (flooded after the rain, arrested after the robbery)"
    return None


class Relation(NamedTuple):
    """One temporal relation in a sentence: ``lead`` its first word, ``token`` the word that takes
    its object or clause (the same but for "ahead of", "prior to"), ``sense`` the order it says
    (before, after, earlier, later) and ``edit`` the words that invert it."""

    lead: object
    token: object
    sense: str
    edit: dict


def _relations(doc) -> list[Relation]:
    found = []
    for t in doc:
        nxt = doc[t.i + 1] if t.i + 1 < len(doc) else None
        if t.lower_ in TEMPORAL:
            found.append(Relation(t, t, t.lower_, {t.i: match_case(TEMPORAL[t.lower_], t.text)}))
        elif (t.lower_,) in PHRASES and t.dep_ == "prep":
            into = PHRASES[(t.lower_,)]  # the order it says is the inverse of the word that inverts it
            found.append(Relation(t, t, TEMPORAL[into], {t.i: match_case(into, t.text)}))
        elif nxt is not None and (t.lower_, nxt.lower_) in PHRASES and nxt.head.i == t.i:
            into = PHRASES[(t.lower_, nxt.lower_)]
            found.append(Relation(t, nxt, TEMPORAL[into], {t.i: match_case(into, t.text), nxt.i: ""}))
    return found


def temporal(doc, ctx=None) -> Made:
    """before <-> after (a preposition with its object, or a conjunction with its clause), earlier
    <-> later compared ("earlier than expected"), and the two-word relations of ``PHRASES`` ("ahead
    of talks" -> "after talks", "following the meeting" -> "before the meeting"), in a sentence
    with a subject."""
    found = _relations(doc)
    if not found:
        raise Refuse("no before/after/earlier/later")
    if len(found) > 1:
        raise Refuse("more than one temporal word")
    # a sentence with a subject; a headline with one is read like a sentence ("Japan defends dolphin
    # hunt after US criticism"): its causes and results are refused below as anywhere else
    single_clause(doc)
    rel = found[0]
    why = _temporal_refusal(doc, rel)
    if why is not None:
        raise Refuse(why)
    name = rel.lead.lower_ if rel.lead.i == rel.token.i else f"{rel.lead.lower_}_{rel.token.lower_}"
    return Made(rebuild(doc, rel.edit), f"temporal:{name}")


# Opening adverbials that place the sentence's event against another one, before or after it.
_TIME_WORDS = set(TEMPORAL) | {"early", "late", "soon", "then", "yesterday", "tomorrow", "today", "tonight"}


def _opening(doc, token) -> bool:
    """ "An hour later, ...": earlier/later opens the sentence after a duration, and a comma closes
    the adverbial. "Earlier Thursday, ..." is not taken: it reads as "previously" against the time
    of the report as often as against another event (two of two readers on 2026-11-26)."""
    if token.lower_ not in ("earlier", "later") or token.i == 0:
        return False
    lead = doc[: token.i]
    closed = token.i + 1 < len(doc) and doc[token.i + 1].text == ","
    return (
        closed and len(lead) <= 3 and lead[-1].lower_ in DURATIONS and all(t.like_num or t.is_stop for t in lead[:-1])
    )


def temporal_opening(doc, ctx=None) -> Made:
    """ "An hour later, the helicopter fired two missiles." -> "An hour earlier, ..." """
    found = [t for t in doc if t.lower_ in _TIME_WORDS]
    if len(found) != 1 or not _opening(doc, found[0]):
        raise Refuse("no opening earlier/later after a duration, or a second time word")
    single_clause(doc)
    token = found[0]
    return Made(rebuild(doc, {token.i: match_case(TEMPORAL[token.lower_], token.text)}), "temporal:opening")


# Words of a Title-Case headline that place an event in time: one relation and none of these.
_HEADLINE_TIME = _TIME_WORDS | {"ahead", "prior", "following", "since", "until", "amid", "during", "as"}


@reads_title_case
def temporal_headline(doc, ctx=None) -> Made:
    """ "Iran, IAEA Officials Meet Ahead of March Nuclear Deadline" -> "... Meet After March Nuclear
    Deadline": a Title-Case headline, read by its words alone (its tags are unreliable). Only a
    relation that says before (Before, Ahead of, Prior to) is inverted, so the headline's event
    comes after the one named and never becomes a result before its cause. Refused: a second time
    word, a relation that opens the headline, a modifier before it (Never Before, Day Before), an
    object that is a date, duration, number or audience (Before 2001, Ahead of Monday, Before
    Congress), a year or a day tied to now in it (Ahead of Next Week's Vote) and a time word before
    the relation (a date on both sides). A date that names the object's event is kept: "Ahead of
    March Deadline" -> "After March Deadline"."""
    if not title_case(doc):
        raise Refuse("not a Title-Case headline")
    words = [t for t in doc if not t.is_punct]
    timed = [i for i, t in enumerate(words) if t.lower_ in _HEADLINE_TIME]
    lead = words[timed[0]] if len(timed) == 1 else None
    pair = words[timed[0] : timed[0] + 2] if lead is not None else []
    size = 2 if tuple(t.lower_ for t in pair) in PHRASES else 1
    if lead is None or size == 1 and lead.lower_ != "before":
        raise Refuse("no single Before, Ahead of or Prior to in the headline")
    before, after = words[: timed[0]], words[timed[0] + size :]
    if len(before) < 2 or not after or before[-1].lower_ in MODIFIERS | {"never"}:
        raise Refuse("a relation that opens the headline, ends it or is modified (Never Before, Day Before)")
    head = after[-1]  # a Title-Case noun phrase ends in its head
    if after[0].like_num or _is_time(head) or head.lower_ in DURATIONS | AUDIENCES:
        raise Refuse("a date, duration, number or audience as the object (Before 2001, Ahead of Monday)")
    if any(_is_time(t) for t in before) or any(is_year(t) or t.lower_ in DEICTIC | {"next", "last"} for t in after):
        raise Refuse("a date or time beside the relation (the inversion may contradict it)")
    edit = {lead.i: match_case("after", lead.text)} | ({pair[1].i: ""} if size == 2 else {})
    return Made(rebuild(doc, edit), "temporal:headline")
