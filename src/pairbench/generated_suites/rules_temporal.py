"""Temporal rules: a relation inverted (before <-> after, earlier <-> later, ahead of -> after), refused where the
inverted sentence could contradict itself; ``temporal_opening``, ``temporal_headline`` and ``temporal_sequence``
(then -> earlier) are the fallbacks."""

from __future__ import annotations

from functools import lru_cache
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
from pairbench.generated_suites.lexicon import table, words
from pairbench.generated_suites.patterns import dep_matches, matches
from pairbench.generated_suites.rules_lexical import is_year


class Relation(NamedTuple):
    """``lead`` its first word, ``token`` the word taking its object ("of" of "ahead of"), ``sense``, ``edit``."""

    lead: object
    token: object
    sense: str
    edit: dict


@lru_cache(maxsize=1)
def phrases() -> dict[tuple[str, ...], str]:
    """("ahead", "of") -> "after", ("following",) -> "before": ``temporal_phrases`` by words."""
    return {tuple(k.split()): v for k, v in table("temporal_phrases").items()}


@lru_cache(maxsize=1)
def _time_words() -> frozenset[str]:
    """Words that place the sentence's event against another one."""
    return frozenset(table("temporal_relations")) | {"early", "late", "soon", "then"} | words("deictic_time") - {"now"}


def _before_after_refusal(doc, rel: Relation) -> str | None:
    token = rel.token
    objects = [c for c in token.children if c.dep_ == "pobj"]
    bare = token.dep_ == "prep" and not any(c.dep_ in ("pobj", "pcomp") for c in token.children)
    if token.dep_ not in ("prep", "mark") or bare:
        return "temporal.adverb"
    audience = token.dep_ == "prep" and any(c.lemma_.lower() in words("audiences") for c in objects)
    if audience or matches(doc, "temporal.spatial_before"):
        return "temporal.spatial_before"
    points = words("time_points")  # before midnight, after the weekend: a point that inverts
    timed = [c for c in objects if c.ent_type_ in ("DATE", "TIME") and c.lemma_.lower() not in points]
    half = [c for c in objects if any(g.lower_ == "half" for g in c.children)]  # half-time is a point (halftime)
    timed += [c for c in objects if c.lemma_.lower() in words("periods_of_play") | words("gap_units") and c not in half]
    if timed or any(g.dep_ == "nummod" for c in objects for g in c.children):
        return "temporal.time_object"
    head, results = _main_head(token), words("causal_heads") | words("temporal_results") | words("temporal_responses")
    at_point = objects and all(c.lemma_.lower() in points for c in objects)  # died after midnight
    if rel.sense == "after" and _predicate(head) & results and not (_agent_act(head, _events(token)) or at_point):
        return "temporal.causal_head"
    if _negated_or_perfect(head):
        return "temporal.negated_clause"
    why = _order_refusal(doc, rel) or _cause_refusal(doc, rel)
    if why is None and head.dep_ == "ROOT" and not any(c.dep_ in ("nsubj", "nsubjpass") for c in head.children):
        return "temporal.no_subject"
    return why


def _negated_or_perfect(head) -> bool:
    """ "had never met him before the hearing": under never, ever, not or a present perfect, before means "up to".
    A relation that hangs on an object ("had never seen the accused before the trial") asks its verb."""
    while head.dep_ in ("dobj", "pobj", "attr", "appos") and head.head is not head:
        head = head.head
    kids = list(head.children)
    if any(c.dep_ == "neg" or c.lower_ in ("never", "ever") for c in kids):
        return True
    have = [c for c in kids if c.dep_ == "aux" and c.lemma_ == "have" and c.tag_ in ("VBZ", "VBP")]
    return head.tag_ == "VBN" and bool(have)


def _order_refusal(doc, rel: Relation) -> str | None:
    """A focus word, a modal, a rank, an event moved past its end, a result or its trigger around an after."""
    if any(t.lower_ in words("temporal_focus_words") for t in doc):
        return "temporal.focus_word"
    for rid in ("temporal.modal_clause", "temporal.ranked"):
        if matches(doc, rid) or rid == "temporal.modal_clause" and dep_matches(doc, rid):
            return rid
    token = rel.token
    if rel.sense == "before":  # an ending, or a response put before its trigger (before the system sends a receipt)
        hyphened = {t.i for t in doc if t.i > 0 and doc[t.i - 1].text == "-"}  # the off of kick-off ends nothing
        said = {t.lemma_.lower() for t in _phrase(token).subtree if t.i not in hyphened}
        why = "temporal.response_before_trigger" if said & words("temporal_responses") else None
        why = "temporal.after_leaving" if why is None and _leaves_main(doc, token) else why
        return "temporal.after_an_ending" if said & words("temporal_endings") else why
    subject = {t for c in _main_head(token).children if c.dep_ in ("nsubj", "nsubjpass") for t in c.subtree}
    clause = set(_phrase(token).subtree) - set(_events(token))  # bar its trigger
    results = words("temporal_consequences")
    moved = [t for t in doc if t not in subject | clause and {t.lemma_.lower(), t.lower_} & results]
    return "temporal.result_before_cause" if moved and not _agent_act(_main_head(token), _events(token)) else None


def _leaves_main(doc, token) -> bool:
    """A before's event that ends the presence of one the main event may need (met him before he left the country:
    inverted, he is gone); the main subject's own leaving is kept (locked the door before leaving)."""
    events = [e for e in _events(token) if e.lemma_.lower() in words("temporal_presence_endings")]
    clause = {t.i for t in _phrase(token).subtree}
    main = {t.lemma_.lower() for t in doc if t.i not in clause and t.pos_ in ("NOUN", "PROPN")}
    for event in events:
        leavers = [c for c in event.children if c.dep_ in ("nsubj", "nsubjpass", "poss")]
        if any(c.pos_ == "PRON" or c.lemma_.lower() in main for c in leavers):
            return True
    return False


def _phrase(token):
    """The relation's object phrase (the preposition) or, for a mark, its clause (the clause's verb)."""
    return token.head if token.dep_ == "mark" else token


def _events(token) -> list:
    """The event of an after's (or before's) object or clause: its verb, noun or -ing form."""
    return [token.head] if token.dep_ == "mark" else [c for c in token.children if c.dep_ in ("pobj", "pcomp")]


def _temporal_refusal(doc, rel: Relation) -> str | None:
    token, head = rel.token, rel.token.head
    if rel.sense in ("before", "after"):
        if (why := _before_after_refusal(doc, rel)) is not None:
            return why
    elif token.dep_ == "advmod" and head.i == token.i + 1 and head.dep_ == "ROOT" and head.tag_ == "VBD":
        lemma = head.lemma_.lower()  # right before the main verb: "Several states later passed similar bans"
        if (why := _date_refusal(doc, rel)) is not None:
            return why
        if lemma in words("causal_heads") | words("response_heads") | words("price_moves") | words("learning_verbs"):
            return "temporal.later_result"
        if lemma in words("later_discourse_verbs") or any(c.dep_ == "expl" for c in head.children):
            return "temporal.later_discourse"
    elif token.i + 1 >= len(doc) or doc[token.i + 1].lower_ != "than":
        return "temporal.without_than"
    verb = head.i == rel.lead.i - 1 and head.lemma_ in words("phrasal_after_verbs")
    if token.dep_ == "prt" or verb and rel.sense in ("before", "after"):
        return "temporal.phrasal_verb"
    prev = doc[rel.lead.i - 1] if rel.lead.i > 0 else None
    dated = prev is not None and prev.ent_type_ in ("DATE", "TIME") and not is_year(prev) and prev.dep_ != "pobj"
    modifiers = words("temporal_modifiers") - words("temporal_kept_modifiers")  # shortly before -> shortly after
    if prev is not None and _measure(doc, rel.lead) is None and (prev.lower_ in modifiers or dated):
        return "temporal.modified"
    return None


def _predicate(head) -> set[str]:
    """The main predicate's words: verb, the verb it completes, complements, object (stopped working, fell ill)."""
    said = [head, head.head] if head.dep_ in ("xcomp", "advcl") else [head]
    said += [c for c in head.children if c.dep_ in ("xcomp", "acomp", "oprd", "dobj", "attr")]
    return {t.lemma_.lower() for t in said} | {t.lower_ for t in said}


def _agent_act(head, events) -> bool:
    """An act on an object not the agent's own (killed two militants after..., froze the samples after collection)."""
    kids, routine = {c.dep_: c for c in head.children}, words("temporal_routine_events") | words("time_points")
    done = head.lemma_.lower() in words("temporal_agent_acts") and "dobj" in kids and "auxpass" not in kids
    done = done and (head.lemma_.lower() in ("kill", "injure") or all(e.lemma_.lower() in routine for e in events))
    done = done and not any(c.dep_ == "poss" for c in kids["dobj"].children) and "nsubj" in kids
    return done and kids["nsubj"].lemma_.lower() not in words("cause_events") | words("causal_heads")


def _main_head(token):
    """The event the relation places: the head of its phrase or clause, past "ahead" of "ahead of"."""
    two_words = token.i > 0 and token.head.i == token.i - 1 and (token.head.lower_, token.lower_) in phrases()
    return token.head.head if token.dep_ == "mark" or two_words else token.head


def _measure(doc, token):
    """ "two days after ...": the duration of the gap, kept when the order turns; or None."""
    prev = doc[token.i - 1] if token.i > 0 else None
    if prev is None or prev.lower_ not in words("gap_units") or prev.dep_ != "npadvmod":
        return None
    return prev if any(c.dep_ in ("nummod", "det") for c in prev.children) else None


def _is_time(t) -> bool:
    """A date, time, year or day word; early and late as time words, never as adjectives."""
    if t.lower_ in words("weekdays") or t.lower_ in words("deictic_time") or t.ent_type_ in ("DATE", "TIME"):
        return True
    return is_year(t) or t.lower_ in ("late", "early") and t.dep_ != "amod"


def _tied_to_now(t, past: bool) -> bool:
    """today, next Sunday; a past one (yesterday) beside a past verb keeps both orders in the past."""
    if past and (t.lower_ == "yesterday" or t.lower_ == "last" and _is_time(t.head)):
        return False
    return t.lower_ in words("deictic_time") or t.lower_ in ("next", "last") and _is_time(t.head)


def _date_refusal(doc, rel: Relation) -> str | None:
    """A year anywhere, a now-bound word beside the relation or a date on both sides of it."""
    measure = _measure(doc, rel.lead)
    skip = {t.i for t in measure.subtree} if measure is not None else set()
    token = rel.token
    inside = {t.i for t in _phrase(token).subtree}  # its object or clause
    times = [t for t in doc if t.i not in skip and _is_time(t)]
    outside = [t for t in times if t.i not in inside]
    if any(is_year(t) for t in times) or any(t.lower_ in words("deictic_time") for t in outside):
        return "temporal.date_beside"
    past = _main_head(token).tag_ == "VBD"
    if any(t.i in inside and _tied_to_now(t, past) for t in doc):
        return "temporal.date_tied_to_now"
    if outside and any(t.i in inside for t in times):
        return "temporal.date_beside"
    return None


def _cause_refusal(doc, rel: Relation) -> str | None:
    """A date against the relation, or an after whose object or clause may cause the main event."""
    why = _date_refusal(doc, rel)
    token = rel.token
    if why is not None or rel.sense != "after":
        return why
    head = _main_head(token)
    caused = token.dep_ == "mark" and token.head.lemma_.lower() in words("cause_verbs")
    named = any(c.dep_ == "pobj" and c.pos_ != "PRON" for c in token.children)  # After the film, ...
    if _measure(doc, rel.lead) is None and (rel.lead.i == 0 and not named or caused):
        return "temporal.after_clause"
    market = next((c.lemma_.lower() for c in head.children if c.dep_ == "nsubj"), None) in words("markets")
    if market and head.lemma_.lower() in words("market_moves"):  # a market moves on what came before (a rate cut)
        return "temporal.market_after_news"
    causes = words("cause_events") | words("causal_heads")
    caused = any({o.lemma_.lower(), o.lower_} & causes for o in _events(token))
    if head.lemma_.lower() in words("response_heads") | words("price_moves") or caused:
        return "temporal.result_after_cause"
    return None


def _relations(doc) -> list[Relation]:
    found, inverse, multi = [], table("temporal_relations"), phrases()
    for t in doc:
        nxt = doc[t.i + 1] if t.i + 1 < len(doc) else None
        if t.lower_ in inverse:
            found.append(Relation(t, t, t.lower_, {t.i: match_case(inverse[t.lower_], t.text)}))
        elif (t.lower_,) in multi and t.dep_ == "prep":
            into = multi[(t.lower_,)]  # the order it says is the inverse of the word that inverts it
            found.append(Relation(t, t, inverse[into], {t.i: match_case(into, t.text)}))
        elif nxt is not None and (t.lower_, nxt.lower_) in multi and nxt.head.i == t.i:
            into = multi[(t.lower_, nxt.lower_)]
            found.append(Relation(t, nxt, inverse[into], {t.i: match_case(into, t.text), nxt.i: ""}))
    return found


def temporal(doc, ctx=None) -> Made:
    """The sentence's one relation inverted, in a sentence with a subject (or a headline with one)."""
    found = _relations(doc)
    if len(found) != 1:
        raise Refuse("temporal.several_relations" if found else "temporal.no_relation")
    single_clause(doc)
    rel = found[0]
    if (why := _temporal_refusal(doc, rel)) is not None:
        raise Refuse(why)
    name = rel.lead.lower_ if rel.lead.i == rel.token.i else f"{rel.lead.lower_}_{rel.token.lower_}"
    return Made(rebuild(doc, rel.edit), f"temporal:{name}")


def temporal_opening(doc, ctx=None) -> Made:
    """ "An hour later the helicopter fired ..." -> "An hour earlier ...": after an opening duration ("Earlier
    Thursday" is not taken: it reads as "previously", two of two readers on 2026-11-26)."""
    found = [t for t in doc if t.lower_ in _time_words()]
    token = found[0] if len(found) == 1 and found[0].lower_ in ("earlier", "later") else None
    lead = doc[: token.i] if token is not None else []
    closed = token is not None and token.i + 1 < len(doc) and doc[token.i + 1].lower_ not in ("than", ".")
    gap = closed and 0 < len(lead) <= 3 and lead[-1].lower_ in words("gap_units")  # "An hour", "Two days"
    if not gap or not all(t.like_num or t.is_stop for t in lead[:-1]):
        raise Refuse("temporal.no_opening")
    single_clause(doc)
    into = table("temporal_relations")[token.lower_]
    return Made(rebuild(doc, {token.i: match_case(into, token.text)}), "temporal:opening")


def temporal_sequence(doc, ctx=None) -> Made:
    """ "The blaze then spread to ..." -> "The blaze earlier spread to ...": a sequence adverb (then, subsequently:
    later; previously: earlier) after the subject, right before the main clause's past-tense verb, inverted as
    later and earlier are, with their refusals (a result or a finding, a date beside it, a modifier)."""
    inverse, into = table("temporal_relations"), table("temporal_sequence_adverbs")
    found = [t for t in doc if t.lower_ in into]
    token = found[0] if len(found) == 1 and found[0].dep_ == "advmod" else None
    head = token.head if token is not None else None
    placed = head is not None and head.i == token.i + 1 and head.dep_ == "ROOT" and head.tag_ == "VBD"
    if not placed or not any(c.dep_ in ("nsubj", "nsubjpass") and c.i < token.i for c in head.children):
        raise Refuse("temporal.no_sequence_adverb")
    single_clause(doc)
    others = [t for t in doc if t.i != token.i and t.lower_ in _time_words() | words("time_subordinators")]
    tied = ("when", "whenever", "while", "if", "once", "first", "initially", "finally")
    marks = [t for t in doc if t.lower_ in tied or t.dep_ == "mark" and t.lower_ in ("as", "since", "because")]
    if others or marks or _relations(doc) or any(c.dep_ == "advcl" for c in head.children):
        raise Refuse("temporal.sequence_tied")  # If ..., then; When X came, Y then left: earlier contradicts it
    if head.lemma_.lower() in words("stative_verbs") | words("temporal_standing_verbs"):
        raise Refuse("temporal.sequence_state")  # "He then lived in Paris": then is "at that time"
    named = [c for c in head.children if c.dep_ in ("dobj", "attr", "acomp")]  # what it answers, or its result
    said = {t.lemma_.lower() for t in [head, *named]} if named else set()
    if said & (words("temporal_responses") | words("temporal_consequences")):
        raise Refuse("temporal.sequence_response")  # "The lawyer then appealed the ruling": it answers what came first
    rel = Relation(token, token, inverse[into[token.lower_]], {token.i: match_case(into[token.lower_], token.text)})
    if (why := _temporal_refusal(doc, rel)) is not None:
        raise Refuse(why)
    return Made(rebuild(doc, rel.edit), "temporal:sequence_adverb")


@reads_title_case
def temporal_headline(doc, ctx=None) -> Made:
    """ "Officials Meet Ahead of March Deadline" -> "... After March Deadline": only a before is inverted, so no
    result comes before its cause."""
    if not title_case(doc):
        raise Refuse("temporal.not_headline")
    marked = _time_words() | {"ahead", "prior", "following", "since", "until", "amid", "during", "as"}
    plain = [t for t in doc if not t.is_punct]
    timed = [i for i, t in enumerate(plain) if t.lower_ in marked]
    lead = plain[timed[0]] if len(timed) == 1 else None
    pair = plain[timed[0] : timed[0] + 2] if lead is not None else []
    size = 2 if tuple(t.lower_ for t in pair) in phrases() else 1
    if lead is None or size == 1 and lead.lower_ != "before":
        raise Refuse("temporal.headline_no_before")
    before, after = plain[: timed[0]], plain[timed[0] + size :]
    if len(before) < 2 or not after or before[-1].lower_ in words("temporal_modifiers") | {"never"}:
        raise Refuse("temporal.headline_relation_placed")
    head = after[-1]  # a Title-Case noun phrase ends in its head
    if after[0].like_num or _is_time(head) or head.lower_ in words("gap_units") | words("audiences"):
        raise Refuse("temporal.headline_time_object")
    nowish = words("deictic_time") | {"next", "last"}
    if any(_is_time(t) for t in before) or any(is_year(t) or t.lower_ in nowish for t in after):
        raise Refuse("temporal.date_beside")
    edit = {lead.i: match_case("after", lead.text)} | ({pair[1].i: ""} if size == 2 else {})
    return Made(rebuild(doc, edit), "temporal:headline")
