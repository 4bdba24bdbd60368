"""The hedging rule on the claim's clause: may, might or may have added to its verb (a caption's
event as it is seen, a headline's past event, a negated clause), or a hedge word removed."""

from __future__ import annotations

from pairbench.generated_suites.edits import (
    NEGATIVE_WORDS,
    WISHING,
    Made,
    Refuse,
    claim_clause,
    clear_scope,
    finite_verb,
    headline,
    headline_plan,
    inflect,
    match_case,
    reads_title_case,
    rebuild,
)
from pairbench.generated_suites.presuppositions import framed
from pairbench.generated_suites.rules_clause import (
    CERTAINTY_ADVERBS,
    HEDGE_ADVERBS,
    HEDGE_WORDS,
    NO_PROGRESSIVE,
    NOT_FOCUS,
    REPORTED_PARTICIPLES,
    STATIVE,
    adjective_fragment,
    adverb_before,
    caption_present,
    caption_state,
    reduced_passive,
    saying_alone,
    verb_base,
)


@reads_title_case
def hedging(doc, ctx=None) -> Made:
    """The claim's clause hedged (a reported claim, never the verb of saying), or its hedge removed.

    Title-Case headlines are read: a hedge rests on the finite verb alone, and the blind reading
    of 2026-11-24 found every one of the 17 STS-B Title-Case hedges valid."""
    root = claim_clause(doc)
    clear_scope(doc, root)
    why = framed(doc, root)
    if why is not None:
        raise Refuse(why)
    present = [t for t in doc if t.lower_ in HEDGE_WORDS]
    if present:
        return _unhedge(doc, root, present)
    if any(t.lower_ in CERTAINTY_ADVERBS for t in doc):
        raise Refuse("a certainty adverb (definitely may: the hedge contradicts it)")
    negs = [c for c in root.children if c.dep_ == "neg"]
    plan = headline_plan(doc, root)  # "Abbas to lead ..." -> "Abbas may lead ...", as "will" -> "may"
    vowed = root.dep_ != "ROOT" and root.head.lemma_ != "say"  # "Hajj to go ahead, officials vow"
    if plan is not None and not vowed and not negs and not any(t.lower_ in NEGATIVE_WORDS for t in doc):
        return Made(rebuild(doc, {plan.i: "may"}), "hedging:headline_plan")
    finite, has_aux = finite_verb(root)
    if _speaker_now(root, finite):
        raise Refuse("the speaker's own present act or state (I am not giving, we condemn: the speaker knows it)")
    if _sayer_own(root, finite):
        raise Refuse("what the sayer tells of itself (stated that it did not receive: the sayer knows it)")
    if negs or any(t.lower_ in NEGATIVE_WORDS for t in doc):
        return _hedge_negated(doc, root, finite, negs)
    if finite.tag_ == "MD" and finite.lower_ != "will":
        raise Refuse("already has a modal")
    if finite.text.startswith("'"):
        raise Refuse("contracted auxiliary ('s, 're, 'm)")
    if finite.i == root.i and adverb_before(doc, root):
        raise Refuse("an adverb before the verb (officially may have designated)")
    if finite.lemma_ == "do" and finite.i != root.i:
        raise Refuse("emphatic do")
    why = _hedge_form_refusal(doc, root, finite)
    if why is not None:
        raise Refuse(why)
    base = verb_base(finite) if finite.i != root.i else verb_base(root)
    coordinated = [c for c in root.children if c.dep_ == "conj" and c.pos_ in ("VERB", "AUX")]
    if coordinated and not _shared_hedge(doc, root, finite, coordinated):
        raise Refuse("coordinated verbs (the hedge would cover one of them only)")
    if saying_alone(root):
        raise Refuse("verb of saying without its claim (the hedge would doubt the saying)")
    if finite.lower_ == "will" and finite.i != root.i:  # "will face charges" -> "may face charges"
        return Made(rebuild(doc, {finite.i: match_case("may", finite.text)}), "hedging:will_to_may")
    if finite.tag_ in ("VBZ", "VBP") and finite.i == root.i and headline(doc) and doc[0].lower_ in ("a", "an"):
        if base in NO_PROGRESSIVE or base in STATIVE:
            raise Refuse("stative verb in a headline (may + present reads as a forecast)")
        # a caption without its full stop ("a man walks two dogs"): what is seen, as it happens
        return _hedge_progressive(doc, finite, base)
    if finite.tag_ in ("VBZ", "VBP") and finite.i == root.i and headline(doc):
        if base in STATIVE:
            raise Refuse("stative verb in a headline (may + present reads as a forecast)")
        if root.dep_ == "ccomp" and root.head.i > root.i and _bare_plural_subject(root):
            raise Refuse("a finding reported after it in a headline (grapes boost, scientists say: may have boosted?)")
        new = f"may have {inflect(base, 'VBN')}"  # "X dies" reports a past event: "X may have died"
    elif finite.tag_ in ("VBZ", "VBP") and caption_present(doc, root, finite, base):
        # "A train moves down the tracks" tells of what happens as it is seen: "may move" read as a
        # forecast in the blind reading of 2026-11-24; "may be moving" hedges what is seen
        return _hedge_progressive(doc, finite, base)
    elif finite.tag_ in ("VBZ", "VBP"):
        new = f"may {base}"
    elif adjective_fragment(doc, root, finite):
        if reduced_passive(doc, root) and base in REPORTED_PARTICIPLES:
            raise Refuse("a participle of reporting or scheduling (confirmed, set for: the hedge shifts the event)")
        if reduced_passive(doc, root):  # "Former president arrested" -> "... may have been arrested"
            return Made(rebuild(doc, {root.i: f"may have been {root.text}"}), "hedging:add_may_passive")
        raise Refuse("past-tense headline (may be a reduced passive)")
    else:  # past: may have + participle
        new = f"may have {inflect(base, 'VBN')}"
    return Made(rebuild(doc, {finite.i: new}), "hedging:add_may_coordinated" if coordinated else "hedging:add_may")


def _hedge_progressive(doc, finite, base) -> Made:
    """ "A man slices" -> "A man may be slicing": a caption's event, hedged as it is seen."""
    return Made(rebuild(doc, {finite.i: f"may be {inflect(base, 'VBG')}"}), "hedging:add_may_progressive")


def _shared_hedge(doc, root, finite, coordinated) -> bool:
    """Verbs after "and" that the hedge covers as it covers the first, since they share its
    subject and its auxiliary and keep their form: "are posing and giving" -> "may be posing and
    giving", "pleaded guilty and agreed" -> "may have pleaded guilty and agreed", "will play and
    conclude" -> "may play and conclude"."""
    past = finite.i == root.i and root.tag_ == "VBD"
    auxiliary = finite.i != root.i and (root.tag_, finite.lemma_) in (("VBG", "be"), ("VBN", "have"), ("VB", "will"))
    if not past and not auxiliary:
        return False
    own = ("nsubj", "nsubjpass", "expl", "aux", "auxpass", "neg")
    for verb in coordinated:
        if doc[verb.i - 1].lower_ != "and" or verb.tag_ != root.tag_ or any(c.dep_ in own for c in verb.children):
            return False
        if past and inflect(verb_base(verb), "VBN") != verb.lower_:
            return False  # "ran and swam": "may have ran" is no English
    return True


# Adverbs that go before "be" once may comes in ("are now lucky" -> "may now be lucky").
BEFORE_BE = {"now", "still", "already", "always", "also", "just", "often", "usually", "sometimes", "even", "ever"}
BEFORE_BE |= {"currently", "again", "never", "once"}
# Verbs whose headline present tense reports a state that goes on, not a past event.
ONGOING = {"continue", "remain", "stay", "persist", "linger", "last", "keep"}


def _bare_plural_subject(root) -> bool:
    """A subject that is a plural without a determiner ("Red grapes and blueberries"): what is said
    of it is general, not an event."""
    subject = next((c for c in root.children if c.dep_ == "nsubj"), None)
    return (
        subject is not None and subject.tag_ == "NNS" and not any(c.dep_ in ("det", "poss") for c in subject.children)
    )


def _hedge_form_refusal(doc, root, finite) -> str | None:
    """Why may (have) cannot go on this verb: a past perfect, a be-to future, a wished-for claim."""
    if finite.lemma_ == "have" and finite.tag_ == "VBD" and finite.i != root.i:
        return "a past perfect (had reached: may have had reached is no English)"
    if finite.i + 1 < len(doc) and doc[finite.i + 1].lower_ == "to" and finite.lemma_ == "be":
        return "be + to (were to be unveiled: a plan, may have been to be is no English)"
    if root.dep_ == "ccomp" and root.head.lemma_.lower() in WISHING:
        return "a claim someone hopes for (I hope everything may be OK: no hedge)"
    if verb_base(root) in WISHING and finite.tag_ in ("VBZ", "VBP"):
        return "a verb of wishing in the present (Iran may hope talks will yield: a hope is no event)"
    if any(c.lower_ == "being" for c in root.children if c.dep_ in ("aux", "auxpass")):
        return "a progressive passive (was being targeted: may have been being is no English)"
    after = doc[finite.i + 1] if finite.i + 1 < len(doc) else None
    if finite.lemma_ == "be" and after is not None and after.lower_ in BEFORE_BE:
        return "an adverb after be (are now lucky: may be now lucky, the adverb goes before be)"
    if headline(doc) and finite.i == root.i and verb_base(root) in ONGOING:
        return "an ongoing verb in a headline (crisis continues: may have continued moves it to the past)"
    if caption_state(doc, root, finite):
        return "a caption's past form with no object (diver submerged in water: a state, may have submerged an act)"
    subject = next((c for c in root.children if c.dep_ == "nsubj"), None)
    if subject is not None and subject.tag_ == "PRP" and any(c.dep_ == "appos" for c in subject.children):
        return "a word the parse hangs on a pronoun (I wood have asked: may goes where?)"
    return None


def _subject(verb):
    """The verb's subject (active or passive), or None."""
    return next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)


def _speaker_now(root, finite) -> bool:
    """ "I am not giving any consideration to resignation", "We condemn the council": a first-person
    subject in the present tense tells what the speaker does or thinks as they speak."""
    subject = _subject(root)
    return subject is not None and subject.lower_ in ("i", "we") and finite.tag_ in ("VBP", "VBZ")


def _sayer_own(root, finite) -> bool:
    """ "ONA stated that it did not receive the material", "Tutu said he did not see what the fuss
    was": a reported claim whose subject is a pronoun for the sayer, about what the sayer did or
    is; a hedge makes the sayer unsure of itself. A plan stays hedged ("said he will attend" ->
    "may attend")."""
    if root.dep_ != "ccomp" or root.head.dep_ != "ROOT" or finite.tag_ == "MD":
        return False
    subject = _subject(root)
    sayer = next((c for c in root.head.children if c.dep_ == "nsubj"), None)  # who says it, never a passive
    if subject is None or sayer is None or sayer.i > root.head.i:
        return False
    plural = (
        sayer.tag_ in ("NNS", "NNPS") or sayer.lower_ in ("they", "we") or any(c.dep_ == "conj" for c in sayer.children)
    )
    # the pronoun agrees with the sayer ("Lawyers say it may remain focused": "it" is no lawyer)
    return subject.lower_ in (("they", "we") if plural else ("he", "she", "it", "i"))


def _hedge_negated(doc, root, finite, negs) -> Made:
    """ "is not" -> "might not be", "does not" -> "might not", "did not go" -> "might not have
    gone" (a spelt-out not): might, since "may not" also reads as a ban ("The patient may not
    smoke")."""
    others = [t for t in doc if t.lower_ in NEGATIVE_WORDS and t not in negs]
    if len(negs) != 1 or others or negs[0].lower_ != "not" or negs[0].i != finite.i + 1:
        raise Refuse("negated clause (other than a present-tense auxiliary + not)")
    if negs[0].i + 1 < len(doc) and doc[negs[0].i + 1].lower_ in NOT_FOCUS:
        raise Refuse("not with a focus word (not just X but Y)")
    if finite.tag_ == "VBD" and finite.lemma_ in ("do", "be") and not finite.text.startswith("'"):
        return _hedge_negated_past(doc, root, finite, negs[0])
    if finite.tag_ not in ("VBZ", "VBP") or finite.text.startswith("'"):
        raise Refuse("negated clause (other than a present-tense auxiliary + not)")
    if finite.lemma_ == "do" and finite.i != root.i:
        return Made(rebuild(doc, {finite.i: match_case("might", finite.text)}), "hedging:add_may_negated")
    if finite.lemma_ in ("be", "have"):
        edits = {finite.i: match_case("might", finite.text), negs[0].i: f"{negs[0].text} {finite.lemma_}"}
        return Made(rebuild(doc, edits), "hedging:add_may_negated")
    raise Refuse("negated clause (other than a present-tense auxiliary + not)")


def _hedge_negated_past(doc, root, finite, neg) -> Made:
    """ "did not go" -> "might not have gone", "was not" -> "might not have been"."""
    edits = {finite.i: match_case("might", finite.text), neg.i: f"{neg.text} have"}
    if finite.lemma_ == "be":
        edits[neg.i] += " been"
    elif finite.i == root.i or root.i != neg.i + 1:
        raise Refuse("negated clause (other than a present-tense auxiliary + not)")  # "did not even go"
    else:
        edits[root.i] = inflect(verb_base(root), "VBN")
    return Made(rebuild(doc, edits), "hedging:add_may_negated")


def _unhedge(doc, root, present) -> Made:
    if len(present) > 1:
        raise Refuse("more than one hedge")
    word = present[0]
    if word.lower_ not in HEDGE_ADVERBS or word.dep_ != "advmod" or word.head.i != root.i:
        raise Refuse("modal or adjectival hedge (removal would need re-agreement)")
    edits = {word.i: ""}
    after = doc[word.i + 1] if word.i + 1 < len(doc) else None
    if word.i == 0 and after is not None and after.text == ",":
        edits[after.i] = ""
    elif word.i > 0 and doc[word.i - 1].text == "," and after is not None and after.text == ",":
        edits[after.i] = ""
        edits[word.i - 1] = ""
    return Made(rebuild(doc, edits), "hedging:remove_adverb")
