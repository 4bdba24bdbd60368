"""Temporal rules: a relation inverted (before <-> after, ahead of -> after) where the inverse cannot contradict."""

from __future__ import annotations

from collections import namedtuple
from functools import lru_cache

from pairbench.generated_suites.edits import (
    Made,
    Refuse,
    kids,
    match_case,
    reads_title_case,
    rebuild,
    single_clause,
    title_case,
)
from pairbench.generated_suites.lexicon import table, words
from pairbench.generated_suites.patterns import dep_matches, inside, matches, rooted, roots, starts
from pairbench.generated_suites.rules_lexical import is_year

# ``lead`` its first word, ``token`` the word taking its object ("of" of "ahead of"), ``sense``, ``edit``
Relation = namedtuple("Relation", "lead token sense edit")


@lru_cache(maxsize=1)
def phrases() -> dict[tuple[str, ...], str]:
    """("ahead", "of") -> "after", ("following",) -> "before": ``temporal_phrases`` by words."""
    return {tuple(k.split()): v for k, v in table("temporal_phrases").items()}


@lru_cache(maxsize=1)
def _time_words() -> frozenset[str]:
    """Words that place the sentence's event against another one."""
    return frozenset(table("temporal_relations")) | words("temporal_time_adverbs") | words("deictic_time") - {"now"}


def _before_after_refusal(doc, rel: Relation) -> str | None:
    """A before or after that is no relation of events, or whose inverse could contradict the sentence."""
    token, objects = rel.token, kids(rel.token, "pobj")
    if token.dep_ not in ("prep", "mark") or token.dep_ == "prep" and not kids(token, "pobj", "pcomp"):
        return "temporal.adverb"
    if matches(doc, "temporal.spatial_before") or rooted(doc, "temporal.spatial_before", token):
        return "temporal.spatial_before"
    timed = [m[1] for m in rooted(doc, "temporal.time_object", token)]  # half-time is a point (halftime)
    if any(o.ent_type_ in ("DATE", "TIME") or all(g.lower_ != "half" for g in o.children) for o in timed):
        return "temporal.time_object"
    head, results = _main_head(token), words("causal_heads") | words("temporal_results") | words("temporal_responses")
    # the events of its object or clause; the main predicate: verb, the verb it completes, complements (fell ill)
    events = [token.head] if token.dep_ == "mark" else kids(token, "pobj", "pcomp")
    # an act on an object not the agent's own (killed two militants after..., froze the samples after collection)
    deps, routine = {c.dep_: c for c in head.children}, words("temporal_routine_events") | words("time_points")
    acts = head.lemma_.lower() in words("temporal_agent_acts") and "dobj" in deps and "auxpass" not in deps
    acts = acts and (head.lemma_.lower() in ("kill", "injure") or all(e.lemma_.lower() in routine for e in events))
    acts = acts and not kids(deps["dobj"], "poss") and "nsubj" in deps
    acts = acts and deps["nsubj"].lemma_.lower() not in words("cause_events") | words("causal_heads")
    said = [head, head.head] if head.dep_ in ("xcomp", "advcl") else [head]
    said += kids(head, "xcomp", "acomp", "oprd", "dobj", "attr")
    predicate = {t.lemma_.lower() for t in said} | {t.lower_ for t in said}
    at_point = objects and all(c.lemma_.lower() in words("time_points") for c in objects)  # died after midnight
    if rel.sense == "after" and predicate & results and not (acts or at_point):
        return "temporal.causal_head"
    verb = head  # a relation that hangs on an object asks its verb
    while verb.dep_ in ("dobj", "pobj", "attr", "appos") and verb.head is not verb:
        verb = verb.head
    if rooted(doc, "temporal.negated_clause", verb):
        return "temporal.negated_clause"
    if any(t.tag_ == "VB" and t.dep_ in ("ROOT", "conj", "ccomp") and not kids(t, "nsubj", "aux") for t in doc):
        return "temporal.instruction"  # "Back up your files before upgrading": the order is prescribed
    if rel.lead.lower_ == "during" and any(t.lower_ in words("habitual_words") - {"once", "twice"} for t in doc):
        return "temporal.during_routine"  # "need watering every day during a hot summer": the period is the reason
    if any(o.lemma_.lower() in words("meals") for o in objects) and any(t.lower_ in words("day_parts") for t in doc):
        return "temporal.meal_in_part_of_day"  # "Sunday afternoon after lunch": before lunch is no afternoon
    gap = rel.lead.i - 1 in roots(doc, "temporal.modified")  # "forty-five minutes before departure"
    timed = [{o.lemma_.lower(), "".join(t.lower_ for t in o.subtree)} for o in objects]  # kick-off as one word
    if gap and any(names & words("scheduled_events") for names in timed):
        return "temporal.schedule_offset"
    for rid in ("temporal.focus_word", "temporal.modal_clause", "temporal.ranked"):
        if matches(doc, rid) or rid == "temporal.modal_clause" and dep_matches(doc, rid):
            return rid
    phrase = list((token.head if token.dep_ == "mark" else token).subtree)  # its object phrase or clause
    if rel.sense == "before":  # an ending, or a response put before its trigger (before the system sends a receipt)
        # the off of kick-off ends nothing; "before the fire started": fire ends nothing as a noun
        skip = {t.i for t in doc if t.i > 0 and doc[t.i - 1].text == "-"}
        skip |= {t.i for t in phrase if t.pos_ == "NOUN" and t.lemma_.lower() in words("temporal_verb_endings")}
        said = {t.lemma_.lower() for t in phrase if t.i not in skip}
        # who leaves: a pronoun or a noun of the main clause
        main = {t.lemma_.lower() for t in doc if t not in phrase and t.pos_ in ("NOUN", "PROPN")}
        gone = [m[1] for m in dep_matches(doc, "temporal.after_leaving") if m[0] in events]
        if said & words("temporal_endings") or {"run", "out"} <= said:  # before the time ran out
            return "temporal.after_an_ending"
        if said & words("temporal_responses"):
            return "temporal.response_before_trigger"
        if any(c.pos_ == "PRON" or c.lemma_.lower() in main for c in gone):
            return "temporal.after_leaving"
    else:  # a result moved before its cause: the cause's own clause barred, and its trigger
        subject = {t for c in kids(head, "nsubj", "nsubjpass") for t in c.subtree}
        clause, results = set(phrase) - set(events), words("temporal_consequences")
        moved = [t for t in doc if t not in subject | clause and {t.lemma_.lower(), t.lower_} & results]
        if moved and not acts:
            return "temporal.result_before_cause"
    if (why := _date_refusal(doc, rel)) is not None:
        return why
    if rel.sense == "after":  # an after whose object or clause may cause the main event
        caused = token.dep_ == "mark" and token.head.lemma_.lower() in words("cause_verbs")
        named = any(c.pos_ != "PRON" for c in objects)  # After the film, ...
        if rel.lead.i - 1 not in roots(doc, "temporal.modified") and (rel.lead.i == 0 and not named or caused):
            return "temporal.after_clause"
        if rooted(doc, "temporal.market_after_news", head):  # a market moves on what came before (a rate cut)
            return "temporal.market_after_news"
        caused = any({o.lemma_.lower(), o.lower_} & (words("cause_events") | words("causal_heads")) for o in events)
        if rooted(doc, "temporal.result_after_cause", head) or caused:
            return "temporal.result_after_cause"
    return "temporal.no_subject" if head.dep_ == "ROOT" and not kids(head, "nsubj", "nsubjpass") else None


def _temporal_refusal(doc, rel: Relation) -> str | None:
    token, head = rel.token, rel.token.head
    if rel.sense in ("before", "after"):
        why = _before_after_refusal(doc, rel)
    elif rooted(doc, "temporal.later", token):
        later = [rid for rid in ("temporal.later_result", "temporal.later_discourse") if rooted(doc, rid, head)]
        why = _date_refusal(doc, rel) or next(iter(later), None)
    else:  # a comparison: earlier or later than
        why = None if doc[token.i + 1 : token.i + 2].text.lower() == "than" else "temporal.without_than"
    # shapes around the relation word itself; a modifier that is no measure (soon after, the day before)
    shapes = [rid for rid in ("temporal.phrasal_verb", "temporal.within_activity") if rooted(doc, rid, token)]
    before = rel.lead.i - 1
    modified = before in starts(doc, "temporal.modified") and before not in roots(doc, "temporal.modified")
    return why or next(iter(shapes), None) or ("temporal.modified" if modified else None)


def _main_head(token):
    """The event the relation places: the head of its phrase or clause, past "ahead" of "ahead of"."""
    two_words = token.i > 0 and token.head.i == token.i - 1 and (token.head.lower_, token.lower_) in phrases()
    return token.head.head if token.dep_ == "mark" or two_words else token.head


def _date_refusal(doc, rel: Relation) -> str | None:
    """A year anywhere, a now-bound word beside the relation or a date on both sides of it."""
    # "two days after ...": the duration of the gap (its dep_pattern), kept when the order turns
    skip = {t.i for t in doc[rel.lead.i - 1].subtree} if rel.lead.i - 1 in roots(doc, "temporal.modified") else set()
    token = rel.token
    within = {t.i for t in (token.head if token.dep_ == "mark" else token).subtree}  # its object or clause
    dated = {t.i for t in doc if inside(doc, "temporal.date_beside", t)}  # a date, time, year or day word
    times = [t for t in doc if t.i in dated - skip]
    outside = [t for t in times if t.i not in within]
    if any(is_year(t) for t in times) or any(t.lower_ in words("deictic_time") for t in outside):
        return "temporal.date_beside"
    past = _main_head(token).tag_ == "VBD"  # yesterday, last week: past, like the verb
    tied = [m[-1] for m in dep_matches(doc, "temporal.date_tied_to_now") if len(m) == 1 or m[0].i in dated]
    if any(t.i in within and not (past and t.lower_ in ("yesterday", "last")) for t in tied):
        return "temporal.date_tied_to_now"
    return "temporal.date_beside" if outside and any(t.i in within for t in times) else None


def _relations(doc) -> list[Relation]:
    found, inverse, multi = [], table("temporal_relations"), phrases()
    for t, nxt in zip(doc, [*doc[1:], None]):
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
    """After an opening duration: "An hour later" -> "An hour earlier" ("Earlier Thursday" reads as "previously")."""
    found = [t for t in doc if t.lower_ in _time_words()]
    gap = [m for m in matches(doc, "temporal.opening") if m.start <= 2]  # "An hour", "Two days": at most 3 words
    if len(found) != 1 or not gap or not all(t.like_num or t.is_stop for t in doc[: gap[0].start]):
        raise Refuse("temporal.no_opening")
    single_clause(doc)
    token = gap[0][1]
    into = table("temporal_relations")[token.lower_]
    return Made(rebuild(doc, {token.i: match_case(into, token.text)}), "temporal:opening")


def temporal_sequence(doc, ctx=None) -> Made:
    """ "The blaze then spread to ..." -> "The blaze earlier spread to ...": a sequence adverb inverted as later is."""
    inverse, into = table("temporal_relations"), table("temporal_sequence_adverbs")
    found = [t for t in doc if t.lower_ in into]
    token = found[0] if len(found) == 1 and rooted(doc, "temporal.later", found[0]) else None
    head = token.head if token is not None else None
    if head is None or not any(c.i < token.i for c in kids(head, "nsubj", "nsubjpass")):
        raise Refuse("temporal.no_sequence_adverb")
    single_clause(doc)
    if _relations(doc) or kids(head, "advcl") or starts(doc, "temporal.sequence_tied") - {token.i}:
        raise Refuse("temporal.sequence_tied")  # If ..., then; When X came, Y then left: earlier contradicts it
    for rid in ("temporal.sequence_state", "temporal.sequence_response"):
        if rooted(doc, rid, head):
            raise Refuse(rid)
    rel = Relation(token, token, inverse[into[token.lower_]], {token.i: match_case(into[token.lower_], token.text)})
    if (why := _temporal_refusal(doc, rel)) is not None:
        raise Refuse(why)
    return Made(rebuild(doc, rel.edit), "temporal:sequence_adverb")


@reads_title_case
def temporal_headline(doc, ctx=None) -> Made:
    """ "Officials Meet Ahead of March Deadline" -> "... After March Deadline": no result put before its cause."""
    if not title_case(doc):
        raise Refuse("temporal.not_headline")
    plain, marked = [t for t in doc if not t.is_punct], _time_words() | words("temporal_headline_marks")
    timed = [i for i, t in enumerate(plain) if t.lower_ in marked]
    pair = plain[timed[0] : timed[0] + 2] if len(timed) == 1 else []
    size = 2 if tuple(t.lower_ for t in pair) in phrases() else 1
    if not pair or size == 1 and pair[0].lower_ != "before":
        raise Refuse("temporal.headline_no_before")
    before, after = plain[: timed[0]], plain[timed[0] + size :]
    if len(before) < 2 or not after or before[-1].lower_ in words("temporal_modifiers"):
        raise Refuse("temporal.headline_relation_placed")
    head = after[-1]  # a Title-Case noun phrase ends in its head
    dated = {t.i for t in doc if inside(doc, "temporal.date_beside", t)}
    if after[0].like_num or head.i in dated or head.lower_ in words("time_units") | words("audiences"):
        raise Refuse("temporal.headline_time_object")
    nowish = words("deictic_time") | {"next", "last"}
    if any(t.i in dated for t in before) or any(is_year(t) or t.lower_ in nowish for t in after):
        raise Refuse("temporal.date_beside")
    edit = {pair[0].i: match_case("after", pair[0].text)} | ({pair[1].i: ""} if size == 2 else {})
    return Made(rebuild(doc, edit), "temporal:headline")
