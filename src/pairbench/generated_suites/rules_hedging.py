"""The hedging rule: may, might or may have added to the claim's verb, or a hedge word removed."""

from __future__ import annotations

from pairbench.generated_suites.edits import (
    Made,
    Refuse,
    claim_clause,
    clear_scope,
    finite_verb,
    headline,
    headline_plan,
    inflect,
    kids,
    match_case,
    reads_title_case,
    rebuild,
    verb_lemmas,
)
from pairbench.generated_suites.lexicon import saying, table, words
from pairbench.generated_suites.patterns import dep_matches, matches, roots, starts
from pairbench.generated_suites.presuppositions import framed, saying_alone
from pairbench.generated_suites.rules_clause import adjective_fragment, caption_state, reduced_passive, verb_base


@reads_title_case
def hedging(doc, ctx=None) -> Made:
    """The claim's clause hedged (never the verb of saying), or its hedge removed; Title Case read (the finite verb)."""
    root = claim_clause(doc)
    if root.i in roots(doc, "hedging.subordinate_clause"):  # its pattern, negation's: "after X is installed"
        raise Refuse("hedging.subordinate_clause")
    clear_scope(doc, root)
    if (why := framed(doc, root)) is not None:
        raise Refuse(why)
    if present := [m[0] for m in matches(doc, "hedging.remove_adverb")]:  # its pattern: a hedge word, removed
        if len(present) > 1:
            raise Refuse("hedging.several_hedges")
        word = present[0]
        if word.lower_ not in words("hedge_adverbs") or word.dep_ != "advmod" or word.head.i != root.i:
            raise Refuse("hedging.modal_hedge")
        if word.i - 1 in starts(doc, "hedging.quoted_hedge"):  # its pattern: the quotes
            raise Refuse("hedging.quoted_hedge")
        commas = [t.i for t in doc[max(word.i - 1, 0) : word.i + 2] if t.text == ","]  # "Reportedly, X"
        edits = {word.i: ""} | (dict.fromkeys(commas, "") if word.i == 0 or len(commas) == 2 else {})
        return Made(rebuild(doc, edits), "hedging:remove_adverb")
    if matches(doc, "hedging.certainty_adverb"):
        raise Refuse("hedging.certainty_adverb")
    negs = kids(root, "neg")
    negated = negs or matches(doc, "hedging.negated_clause")  # its pattern: a negative word
    plan = headline_plan(doc, root)  # "Abbas to lead ..." -> "Abbas may lead ...", as "will" -> "may"
    if plan is not None and not negated and (root.dep_ == "ROOT" or root.head.lemma_ == "say"):
        return Made(rebuild(doc, {plan.i: "may"}), "hedging:headline_plan")  # not "Hajj to go ahead, officials vow"
    finite, _ = finite_verb(root)
    speaker = next(iter(kids(root, "nsubj", "nsubjpass")), None)  # "We condemn it": the speaker's own act
    if speaker is not None and speaker.lower_ in ("i", "we"):
        acted = finite.tag_ == "VBD" and speaker.dep_ == "nsubj" and root.lemma_ not in words("stative_verbs")
        if finite.tag_ in ("VBP", "VBZ") or acted:
            raise Refuse("hedging.speaker_now" if finite.tag_ in ("VBP", "VBZ") else "hedging.speaker_past")
    numbers = table("subject_pronoun_numbers")  # "ONA stated that it did not receive ...": the sayer unsure of itself
    for _, claim, sayer, subject in dep_matches(doc, "hedging.sayer_own"):  # a pronoun that agrees with the sayer
        plural = sayer.tag_ in ("NNS", "NNPS") or numbers.get(sayer.lower_) == "plural" or bool(kids(sayer, "conj"))
        if claim == root and finite.tag_ != "MD" and numbers[subject.lower_] == ("plural" if plural else "singular"):
            raise Refuse("hedging.sayer_own")
    if negated:
        return _hedge_negated(doc, root, finite, negs)
    if why := _claim_refusal(doc, root):
        raise Refuse(why)
    if (why := next((rid for rid, fails in _FORM_CHECKS if fails(doc, root, finite)), None)) is not None:
        raise Refuse(why)
    base = verb_base(finite)
    coordinated = [c for c in kids(root, "conj") if c.pos_ in ("VERB", "AUX")]
    if coordinated and not _shared_hedge(doc, root, finite, coordinated):
        raise Refuse("hedging.coordinated_verbs")
    if saying_alone(root):
        raise Refuse("hedging.saying_alone")
    if finite.lower_ == "will" and finite.i != root.i:  # "will face charges" -> "may face charges"
        return Made(rebuild(doc, {finite.i: match_case("may", finite.text)}), "hedging:will_to_may")
    present_headline = finite.tag_ in ("VBZ", "VBP") and finite.i == root.i and headline(doc)
    caption = present_headline and doc[0].lower_ in ("a", "an")  # a caption without its full stop: "a man walks"
    if present_headline and (base in words("stative_verbs") or caption and no_progressive(base)):
        raise Refuse("hedging.stative_headline")
    # a caption's event hedged as it is seen ("may move" read as a forecast in the blind reading of 2026-11-24)
    if caption or not present_headline and finite.tag_ in ("VBZ", "VBP") and caption_present(doc, root, finite, base):
        return Made(rebuild(doc, {finite.i: f"may be {inflect(base, 'VBG')}"}), "hedging:add_may_progressive")
    if present_headline:
        if base in saying("claim") | words("headline_disclosures") and not matches(doc, "hedging.reporting_headline"):
            raise Refuse("hedging.reporting_headline")  # "Police confirm ..."; not an act: "confirms Yellen as"
        bare = [s for s in kids(root, "nsubj")[:1] if s.tag_ == "NNS" and not kids(s, "det", "poss")]  # "Red grapes"
        if root.dep_ == "ccomp" and root.head.i > root.i and bare:
            raise Refuse("hedging.finding_reported_after")  # what is said of a bare plural is general
    elif adjective_fragment(doc, root, finite):  # a past form, never VBZ or VBP
        if not reduced_passive(doc, root):
            raise Refuse("negation.past_tense_headline")
        if base in words("reported_participles"):
            raise Refuse("hedging.reported_participle")
        return Made(rebuild(doc, {root.i: f"may have been {root.text}"}), "hedging:add_may_passive")  # "... arrested"
    new = f"may have {inflect(base, 'VBN')}"  # a past, or a headline's present: "X dies" -> "X may have died"
    if finite.tag_ == "VBD" and inflect(base, "VBD") == inflect(base, "VBN"):  # cancelled, not the speller's canceled
        new = f"may have {finite.lower_}"
    if finite.tag_ in ("VBZ", "VBP") and not present_headline:  # "may" on an act reads as leave: "might"
        new = f"{'may' if no_progressive(base) or base in words('stative_verbs') else 'might'} {base}"
    return Made(rebuild(doc, {finite.i: new}), f"hedging:add_{new.split()[0]}{'_coordinated' * bool(coordinated)}")


def _claim_refusal(doc, root) -> str | None:
    """A claim a modal would not hedge: its verb a hedge, a notice in the passive, a subject counted by few."""
    if root.lemma_.lower() in words("hedge_verbs"):
        return "hedging.hedge_verb"  # "seems to have brought" -> "may seem to have": a hedge on a hedge
    if root.lemma_.lower() in words("advising_verbs") and kids(root, "auxpass"):
        return "hedging.advice_frame"  # "Staff are reminded that X": the advice is the frame, X the claim
    subjects = [t for s in kids(root, "nsubj", "nsubjpass") for t in s.subtree]  # "Few cafes serve ...": no claim
    counted = [t for t in subjects if t.lower_ == "few" or t.lower_ == "little" and t.dep_ != "amod"]  # little girls
    if any(t.i == 0 or doc[t.i - 1].lower_ != "a" for t in counted):
        return "hedging.negative_quantifier_subject"
    return None


def no_progressive(lemma: str) -> bool:
    """A verb of state, which a caption's present keeps as "may" + base, never "may be ...ing"."""
    return lemma in words("no_progressive_verbs") or lemma in words("stative_verbs") - words("progressive_statives")


def caption_present(doc, root, finite, base) -> bool:
    """A caption's present: an event verb, no auxiliary or habit, its subject indefinite or counted ("A man")."""
    prose = any(t.lower_ in words("habitual_words") or t.text in (",", ";", ":") for t in doc) or len(doc) > 18
    if finite.i != root.i or no_progressive(base) or kids(root, "acomp", "attr", "oprd") or prose:
        return False
    if any(t.dep_ == "conj" and t.tag_ in ("VBZ", "VBP") for t in doc[root.i + 1 :]):
        raise Refuse("hedging.coordinated_verbs")
    subjects = kids(root, "nsubj")
    if len(subjects) != 1 or subjects[0].lower_ in ("someone", "somebody"):
        return len(subjects) == 1
    subject = subjects[0]  # "A man", "Two dogs": a caption's subject; "The clinic treats ..." tells of a habit
    return subject.pos_ == "NOUN" and any(c.lower_ in ("a", "an") or c.dep_ == "nummod" for c in subject.children)


def _shared_hedge(doc, root, finite, coordinated) -> bool:
    """Verbs after "and" sharing the first's subject, auxiliary and form: "may have pleaded guilty and agreed"."""
    past = finite.i == root.i and root.tag_ == "VBD"
    auxiliary = finite.i != root.i and (root.tag_, finite.lemma_) in (("VBG", "be"), ("VBN", "have"), ("VB", "will"))
    own = ("nsubj", "nsubjpass", "expl", "aux", "auxpass", "neg")
    joined = [v for v in coordinated if doc[v.i - 1].lower_ == "and" and v.tag_ == root.tag_ and not kids(v, *own)]
    return (past or auxiliary) and all(  # "ran and swam": "may have ran" is no English
        v in joined and (not past or inflect(verb_base(v), "VBN") == v.lower_) for v in coordinated
    )


_FORM_CHECKS = (  # why may (have) cannot go on the claim's verb, in order: (id, test of doc d, root r, finite f)
    ("hedging.has_modal", lambda d, r, f: f.tag_ == "MD" and f.lower_ != "will"),
    ("hedging.contracted", lambda d, r, f: f.text.startswith("'")),
    ("hedging.adverb_before_verb", lambda d, r, f: f.i == r.i and r.i - 1 in starts(d, "hedging.adverb_before_verb")),
    ("hedging.emphatic_do", lambda d, r, f: f.lemma_ == "do" and f.i != r.i),
    ("hedging.past_perfect", lambda d, r, f: f.lemma_ == "have" and f.tag_ == "VBD" and f.i != r.i),
    ("hedging.be_to", lambda d, r, f: f.i in starts(d, "hedging.be_to")),
    ("hedging.hoped_claim", lambda d, r, f: r.dep_ == "ccomp" and verb_lemmas(r.head) & words("wishing_verbs")),
    ("hedging.wishing_present", lambda d, r, f: verb_base(r) in words("wishing_verbs") and f.tag_ in ("VBZ", "VBP")),
    ("hedging.progressive_passive", lambda d, r, f: r.i in roots(d, "hedging.progressive_passive")),
    ("hedging.adverb_after_be", lambda d, r, f: f.i in starts(d, "hedging.adverb_after_be")),
    ("hedging.ongoing_headline", lambda d, r, f: headline(d) and f.i == r.i and verb_base(r) in words("ongoing_verbs")),
    ("hedging.caption_state", caption_state),
    ("hedging.pronoun_appos", lambda d, r, f: r.i in roots(d, "hedging.pronoun_appos")),
    ("hedging.subject_after_verb", lambda d, r, f: any(c.i > f.i for c in kids(r, "nsubj"))),
)


def _hedge_negated(doc, root, finite, negs) -> Made:
    """ "is not" -> "might not be", "did not go" -> "might not have gone" ("may not" reads as a ban too)."""
    others = [m for m in matches(doc, "hedging.negated_clause") if m[0] not in negs]
    if len(negs) != 1 or others or negs[0].lower_ != "not" or negs[0].i != finite.i + 1:
        raise Refuse("hedging.negated_clause")
    neg = negs[0]
    if neg.i + 1 < len(doc) and doc[neg.i + 1].lower_ in words("not_focus"):
        raise Refuse("negation.not_with_focus_word")
    after = table("negated_hedges").get(f"{finite.tag_} {finite.lemma_}")  # None: refused
    past_do = (finite.tag_, finite.lemma_) == ("VBD", "do")
    bare_do = finite.lemma_ == "do" and (finite.i == root.i or past_do and root.i != neg.i + 1)  # "did not even go"
    if after is None or finite.text.startswith("'") or bare_do:
        raise Refuse("hedging.negated_clause")
    adverbs = [t for t in doc[neg.i + 1 : root.i] if t.dep_ == "advmod" and t.head == root]  # not usually needed
    last = doc[neg.i + len(adverbs)] if adverbs and adverbs[-1].i == neg.i + len(adverbs) else neg
    edits = {finite.i: match_case("might", finite.text), last.i: f"{last.text} {after}".strip()}
    edits |= {root.i: inflect(verb_base(root), "VBN")} if past_do else {}  # "did not go" -> "might not have gone"
    return Made(rebuild(doc, edits), "hedging:add_may_negated")
