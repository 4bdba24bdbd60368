"""Clause rules on the main verb: negation and hedging (do-support, modals, contractions)."""

from __future__ import annotations

from lemminflect import getAllLemmas, getInflection, getLemma

from pairbench.generated_suites.edits import (
    CONTRACTED_HOSTS,
    NEAR_NEGATIVE_WORDS,
    NEGATIVE_WORDS,
    WISHING,
    Made,
    Refuse,
    claim_clause,
    clear_scope,
    finite_verb,
    headline,
    inflect,
    match_case,
    reads_title_case,
    rebuild,
)
from pairbench.generated_suites.presuppositions import framed, presupposed

# Verbs with no passive: a bare past form of these in a headline is an active past ("Alleged cop
# killer died from shot to head"), not a participle with its "was" left out.
NO_PASSIVE = {"die", "happen", "arrive", "fall", "rise", "occur", "remain", "exist", "go", "come", "appear"}
NO_PASSIVE |= {"emerge", "collapse", "surge", "soar", "plunge", "drop", "slip", "climb", "jump", "dip", "rally"}
NO_PASSIVE |= {"tumble", "sink", "return", "resign", "retire", "disappear", "vanish", "erupt", "crash", "derail"}
NO_PASSIVE |= {"gain", "slide", "sleep", "stand", "sit", "lie", "walk", "run", "speak", "talk", "live", "work"}
# Adverbs of a move after a bare past form: the verb is active ("Shares closed lower").
MOVES = {"lower", "higher", "up", "down", "flat", "firmer", "weaker", "stronger", "steady", "mixed"}
DO_FORMS = {"VBZ": "does", "VBD": "did", "VBP": "do"}
HEDGE_ADVERBS = {"possibly", "perhaps", "probably", "reportedly", "apparently", "allegedly", "seemingly", "presumably"}
# Words before a count that make it a bound, not a number of participants.
APPROXIMATORS = {"as", "up", "least", "more", "over", "nearly", "almost", "about", "around", "some", "only", "just"}
APPROXIMATORS |= {"fewer", "less", "under", "roughly", "approximately", "than"}
# Subjects whose negation does not deny the claim ("Some of the flights were not delayed" is true
# beside "Some of the flights were delayed"): quantifiers, as determiner or partitive, and counts
# given as bounds (APPROXIMATORS); a plain count is a caption's participants ("Two men are not fighting").
SCOPE_QUANTIFIERS = {
    "some",
    "many",
    "several",
    "few",
    "all",
    "both",
    "each",
    "every",
    "various",
    "numerous",
    "much",
    "half",
    "any",
}
# Modals of possibility: "may not close" does not deny "may close".
WEAK_MODALS = {"may", "might", "could"}
# Words a removed not leaves stranded: "not just X but Y", negative-polarity "any", "ever", "yet".
NOT_FOCUS = {
    "just",
    "only",
    "merely",
    "simply",
    "even",
    "always",
    "necessarily",
    "all",
    "every",
    "quite",
    "exactly",
    "so",
    "too",
    "very",
}
POLARITY_ITEMS = {"any", "anyone", "anybody", "anything", "anywhere", "ever", "yet", "either", "whether", "at all"}
# Certainty adverbs: a hedge beside them contradicts them ("definitely may not").
CERTAINTY_ADVERBS = {"definitely", "certainly", "surely", "undoubtedly", "clearly", "obviously", "absolutely", "yes"}
# Participles of reporting or scheduling: "Deaths may have been confirmed", "may have been set for"
# doubt the report or shift the event, not hedge it.
REPORTED_PARTICIPLES = {"confirm", "report", "announce", "set", "schedule", "slate", "expect", "plan", "poise"}
# Adverbs of frequency: "Sometimes I do not" does not deny "Sometimes I do".
FREQUENCY_ADVERBS = {"sometimes", "often", "usually", "occasionally", "always", "frequently", "generally", "normally"}
FREQUENCY_ADVERBS |= {"typically", "mostly", "regularly", "constantly", "routinely"}
# Adverbs that "not" does not go before ("It's not also", "are not now lucky", "not pretty difficult").
NOT_BEFORE = {"also", "now", "pretty", "still", "already", "even", "quite", "rather", "fairly", "too", "really"}
# Verbs of saying whose hedge, without a reported claim, doubts only the saying ("He may have said").
SAYING = {"say", "tell", "add", "state", "claim", "report", "announce", "note", "write", "explain"}
# Verbs of state: in a headline, "may have owned" would not be the same claim as "owns".
STATIVE = {
    "be",
    "have",
    "want",
    "need",
    "know",
    "own",
    "like",
    "love",
    "hate",
    "seem",
    "remain",
    "believe",
    "hold",
    "mean",
    "contain",
    "include",
    "lack",
    "deserve",
    "face",
    "see",
    "expect",
    "plan",
    "hope",
}
# Words of a habit ("every morning", "twice a day"): the present then tells of it, not of a scene.
HABIT_WORDS = FREQUENCY_ADVERBS | {"every", "each", "per", "once", "twice", "daily", "weekly", "monthly", "yearly"}
# Verbs of a state, which a caption's present keeps as "may" + base, never "may be ...ing".
NO_PROGRESSIVE = (STATIVE - {"hold", "face", "expect", "plan", "hope"}) | {"belong", "consist", "resemble", "cost"}
NO_PROGRESSIVE |= {"understand", "prefer", "exist", "matter", "appear", "feel", "think", "depend", "fit", "equal"}
# Objects a not leaves standing ("is not eating something" denies nothing; "anything" would).
SOME_WORDS = {"something", "someone", "somebody"}
HEDGE_WORDS = HEDGE_ADVERBS | {"may", "might", "could", "maybe", "likely", "unlikely", "reported", "allegedly"}


def _base(token) -> str:
    if token.pos_ not in ("VERB", "AUX"):
        raise Refuse("verb lemma unknown")
    lemmas = getLemma(token.lower_, upos=token.pos_) or getLemma(token.lower_, upos="VERB")
    lemma = lemmas[0] if lemmas else token.lemma_.lower()
    if not lemma.isalpha() or (token.pos_ == "VERB" and "VERB" not in getAllLemmas(token.lower_)):
        raise Refuse("verb lemma unknown")  # "part ways" parsed with "ways" as the verb
    return lemma


def _adjective_fragment(doc, root, finite) -> bool:
    """A past form at the root of an unpunctuated headline or a caption ("Man found dead in
    hotel", "Yellow striped cat."): it may be a reduced passive or an adjective, not a verb."""
    if finite.i != root.i or root.tag_ != "VBD":
        return False
    if not doc.text.rstrip().endswith((".", "!", '"')):
        return True
    subject = next((c for c in root.children if c.dep_ == "nsubj"), None)
    if subject is not None and (subject.tag_ == "PRP" or any(c.dep_ == "det" for c in subject.children)):
        return False  # "The man spread butter.": a clause, its subject a noun phrase of its own
    obj = next((c for c in root.children if c.dep_ == "dobj"), None)
    return obj is not None and obj.tag_ == "NN" and not any(c.dep_ in ("det", "poss", "nummod") for c in obj.children)


def _reduced_passive(doc, root) -> bool:
    """A headline's bare participle with no object and no coordinated verb ("Former Zambian
    president arrested", "Kevin Rudd sworn in as prime minister"): a passive with its "was" left
    out, which keeps its sense with "not" or "may have been" before the participle."""
    if not headline(doc) or root.i == 0 or not root.text.islower():
        return False
    lemma = _base(root)
    if lemma in NO_PASSIVE:
        return False
    participles = {p.lower() for p in getInflection(lemma, tag="VBN") or ()}
    if root.lower_ not in participles:
        return False
    after = doc[root.i + 1] if root.i + 1 < len(doc) else None
    if after is not None and after.lower_ in MOVES:
        return False  # "Shares closed lower": an active verb of movement
    return not any(
        c.dep_ in ("dobj", "conj", "ccomp", "xcomp", "dative") or c.tag_ in ("VBD", "VBN") for c in root.children
    )


def negation(doc, ctx=None) -> Made:
    """The claim's clause negated (a reported claim, never the verb of saying)."""
    root = claim_clause(doc)
    negs = [c for c in root.children if c.dep_ == "neg"]
    others = [t for t in doc if t.lower_ in NEGATIVE_WORDS | NEAR_NEGATIVE_WORDS and t not in negs]
    others += [t for t in doc if t.lower_ == "few" and (t.i == 0 or doc[t.i - 1].lower_ != "a")]  # "few ... did not"
    if others or len(negs) > 1 or any(t.dep_ == "neg" and t not in negs for t in doc):
        raise Refuse("other negative words in the sentence")
    finite, has_aux = finite_verb(root)
    clear_scope(doc, root)
    why = _negation_scope(doc, root, finite, negs) or presupposed(doc, root, negs) or framed(doc, root)
    if why is not None:
        raise Refuse(why)
    if not negs and _adjective_fragment(doc, root, finite):
        if _reduced_passive(doc, root) and _bare_count(doc, root):
            raise Refuse("a count with no noun before a participle (Two not reported dead is no English)")
        if _reduced_passive(doc, root):  # "Former president arrested" -> "Former president not arrested"
            return Made(rebuild(doc, {root.i: f"not {root.text}"}), "negation:insert_not")
        raise Refuse("past-tense headline (may be a reduced passive)")
    if negs:
        return _unnegate(doc, root, finite, negs[0])
    if has_aux or root.lemma_ == "be":
        after = doc[finite.i + 1] if finite.i + 1 < len(doc) else None
        if after is not None and after.lower_ in HEDGE_ADVERBS | {"likely"}:
            raise Refuse("not before a hedge adverb (not probably: no denial)")
        if after is not None and after.lower_ in NOT_BEFORE:
            raise Refuse("not before an adverb that does not take it (not also, not now, not pretty)")
        return Made(rebuild(doc, {finite.i: _with_not(finite)}), "negation:insert_not")
    if root.tag_ not in DO_FORMS:
        raise Refuse("no finite verb in the main clause")
    after = doc[root.i + 1] if root.i + 1 < len(doc) else None
    if root.lemma_ == "have" and after is not None and after.pos_ == "ADP":
        raise Refuse("have before a preposition (has among the strictest: no do-support)")
    if root.lemma_ == "have" and after is not None and after.tag_ == "VBN":  # "we have co-operated", parsed as a verb
        return Made(rebuild(doc, {root.i: _with_not(root)}), "negation:insert_not")
    if _adverb_before(doc, root) and doc[root.i - 1].lower_ not in HEDGE_ADVERBS:  # "reportedly did not" reads
        raise Refuse("an adverb before the verb (rapidly does not fire: not lands on the adverb)")
    do = DO_FORMS[root.tag_]
    return Made(rebuild(doc, {root.i: f"{do} not {_base(root)}"}), "negation:do_support")


def _with_not(finite) -> str:
    """ "is not", and "cannot": "can not" also reads as a choice ("you can not add X")."""
    return f"{finite.text}not" if finite.lower_ == "can" else f"{finite.text} not"


def _bare_count(doc, root) -> bool:
    """ "Two reported dead", "two found dead": the participle's subject is a number alone."""
    subject = [c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")]
    return any(t.like_num and not any(c.dep_ != "punct" for c in t.children) for t in subject) or (
        root.i > 0 and doc[root.i - 1].like_num
    )


def _adverb_before(doc, verb) -> bool:
    """An adverb right before a verb with no auxiliary ("rapidly fires", "officially designates")."""
    return verb.i > 0 and doc[verb.i - 1].dep_ == "advmod" and doc[verb.i - 1].tag_ == "RB"


def _negation_scope(doc, root, finite, negs) -> str | None:
    """Why a not added to (or removed from) the clause would not deny (or restore) its claim."""
    subjects = [c for c in root.children if c.dep_ in ("nsubj", "nsubjpass", "expl")]
    for subj in subjects:
        words = [t for t in subj.subtree]
        definite = any(
            t.dep_ in ("det", "poss")
            and t.lower_ in ("the", "these", "those", "his", "her", "their", "its", "our", "my", "your")
            for t in words
        )
        if any(t.lower_ in SCOPE_QUANTIFIERS for t in words):
            return "quantified subject (some/many ... not does not deny the claim)"
        counted = [t for t in words if t.like_num or t.ent_type_ == "CARDINAL"]
        if counted and not definite and any(t.lower_ in APPROXIMATORS for t in words if t.i < counted[-1].i):
            # "Two men are not fighting" denies the caption; "as many as 30 were not trapped" does not
            return "approximate count as subject (as many as, at least, up to ...: not does not deny it)"
    if not negs and any(t.lower_ in FREQUENCY_ADVERBS for t in doc):
        return "a frequency adverb (sometimes I do not: both can be true)"
    if not negs and any(t.lower_ in ("somewhere", "someplace") for t in doc[root.i :]):
        return "somewhere after the verb (not expected to hit somewhere: a denial needs anywhere)"
    if (
        not negs
        and root.lemma_.lower() == "die"
        and any(t.lower_ == "aged" and t.nbor().like_num for t in doc[root.i : -1])
    ):
        return "a death with its age (does not die aged 74: is the death or the age denied?)"
    if not negs and finite.lower_ == "must":
        return "must (must not forbids: it does not deny must)"
    if not negs and _saying_alone(root, also=("auxpass", "oprd")):
        return "verb of saying without its claim (says to put: not would deny the saying)"
    if not negs and any(c.dep_ == "dobj" and c.lower_ in SOME_WORDS for c in root.children):
        return "something as the object (is not eating something: a denial needs anything)"
    if finite.lower_ in WEAK_MODALS or any(c.lower_ in WEAK_MODALS for c in root.children if c.dep_ == "aux"):
        return "modal of possibility (may not does not deny may)"
    if (
        not negs
        and root.lemma_ == "be"
        and any(c.dep_ == "attr" and c.ent_type_ in ("MONEY", "CARDINAL", "PERCENT", "QUANTITY") for c in root.children)
    ):
        return "copula with an amount (the rest of the sentence may describe it)"
    if negs:
        after = doc[negs[0].i + 1] if negs[0].i + 1 < len(doc) else None
        if after is not None and after.lower_ in NOT_FOCUS:
            return "not with a focus word (not just X but Y)"
        if any(t.lower_ in POLARITY_ITEMS for t in doc[negs[0].i :]):
            return "negative-polarity word (any, ever, yet) needs the not"
    return None


def _saying_alone(root, also=()) -> bool:
    """A verb of saying with no object or reported clause ("He said at every level"), or with a
    headline's claim cut to an object and its participle ("says deal reached"); ``also``: more
    dependents that carry its claim."""
    if root.lemma_.lower() not in SAYING:
        return False
    claims = [c for c in root.children if c.dep_ in ("dobj", "ccomp", *also)]
    return not claims or all(
        c.dep_ == "dobj" and any(g.dep_ == "acl" and g.tag_ == "VBN" for g in c.children) for c in claims
    )


def _caption_present(doc, root, finite, base) -> bool:
    """A caption's present: an event verb with no auxiliary, no complement of a state ("looks
    happy") and no habit ("sometimes", "every week"), in a short sentence without commas, whose
    subject is an indefinite or counted common noun ("A man", "Two dogs") or someone."""
    if finite.i != root.i or base in NO_PROGRESSIVE or any(c.dep_ in ("acomp", "attr", "oprd") for c in root.children):
        return False
    if any(t.lower_ in HABIT_WORDS or t.text in (",", ";", ":") for t in doc) or len(doc) > 18:
        return False  # a habit, or a longer sentence of prose rather than a caption
    if any(t.dep_ == "conj" and t.tag_ in ("VBZ", "VBP") for t in doc[root.i + 1 :]):
        raise Refuse("coordinated verbs (the hedge would cover one of them only)")
    subjects = [c for c in root.children if c.dep_ == "nsubj"]
    if len(subjects) != 1:
        return False
    subj = subjects[0]
    if subj.lower_ in ("someone", "somebody"):
        return True
    # "A man", "Two dogs": a caption's subject; "The clinic treats ..." tells of a habit
    return subj.pos_ == "NOUN" and any(c.lower_ in ("a", "an") or c.dep_ == "nummod" for c in subj.children)


def _unnegate(doc, root, finite, neg) -> Made:
    if neg.lower_ not in ("not", "n't"):
        raise Refuse("negated with a word other than not/n't")
    if neg.i != finite.i + 1:
        raise Refuse("negation not right after the finite verb")
    if finite.lemma_ == "do" and finite.dep_ == "aux" and finite.tag_ in DO_FORMS and root.tag_ == "VB":
        return Made(
            rebuild(doc, {finite.i: "", neg.i: "", root.i: inflect(_base(root), finite.tag_)}), "negation:remove_do"
        )
    edits = {neg.i: ""}
    if neg.lower_ == "n't" and finite.lower_ in CONTRACTED_HOSTS:
        edits[finite.i] = CONTRACTED_HOSTS[finite.lower_]
    elif neg.lower_ == "n't" and finite.lower_ == "ai":
        raise Refuse("ain't")
    return Made(rebuild(doc, edits), "negation:remove_not")


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
    finite, has_aux = finite_verb(root)
    if negs or any(t.lower_ in NEGATIVE_WORDS for t in doc):
        return _hedge_negated(doc, root, finite, negs)
    if finite.tag_ == "MD" and finite.lower_ != "will":
        raise Refuse("already has a modal")
    if finite.text.startswith("'"):
        raise Refuse("contracted auxiliary ('s, 're, 'm)")
    if finite.i == root.i and _adverb_before(doc, root):
        raise Refuse("an adverb before the verb (officially may have designated)")
    if finite.lemma_ == "do" and finite.i != root.i:
        raise Refuse("emphatic do")
    why = _hedge_form_refusal(doc, root, finite)
    if why is not None:
        raise Refuse(why)
    base = _base(finite) if finite.i != root.i else _base(root)
    coordinated = [c for c in root.children if c.dep_ == "conj" and c.pos_ in ("VERB", "AUX")]
    if coordinated and not _shared_hedge(doc, root, finite, coordinated):
        raise Refuse("coordinated verbs (the hedge would cover one of them only)")
    if _saying_alone(root):
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
    elif finite.tag_ in ("VBZ", "VBP") and _caption_present(doc, root, finite, base):
        # "A train moves down the tracks" tells of what happens as it is seen: "may move" read as a
        # forecast in the blind reading of 2026-11-24; "may be moving" hedges what is seen
        return _hedge_progressive(doc, finite, base)
    elif finite.tag_ in ("VBZ", "VBP"):
        new = f"may {base}"
    elif _adjective_fragment(doc, root, finite):
        if _reduced_passive(doc, root) and base in REPORTED_PARTICIPLES:
            raise Refuse("a participle of reporting or scheduling (confirmed, set for: the hedge shifts the event)")
        if _reduced_passive(doc, root):  # "Former president arrested" -> "... may have been arrested"
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
        if past and inflect(_base(verb), "VBN") != verb.lower_:
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
    if any(c.lower_ == "being" for c in root.children if c.dep_ in ("aux", "auxpass")):
        return "a progressive passive (was being targeted: may have been being is no English)"
    after = doc[finite.i + 1] if finite.i + 1 < len(doc) else None
    if finite.lemma_ == "be" and after is not None and after.lower_ in BEFORE_BE:
        return "an adverb after be (are now lucky: may be now lucky, the adverb goes before be)"
    if headline(doc) and finite.i == root.i and _base(root) in ONGOING:
        return "an ongoing verb in a headline (crisis continues: may have continued moves it to the past)"
    return None


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
        edits[root.i] = inflect(_base(root), "VBN")
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
