"""The negation rule on the claim's clause (do-support, not after an auxiliary, a not removed), and
the clause helpers the hedging rule shares with it."""

from __future__ import annotations

from lemminflect import getAllLemmas, getInflection, getLemma

from pairbench.generated_suites.edits import (
    Made,
    Refuse,
    claim_clause,
    clear_scope,
    finite_verb,
    has_subject,
    headline,
    headline_plan,
    inflect,
    match_case,
    reads_title_case,
    rebuild,
    scare_quoted,
    title_case,
)
from pairbench.generated_suites.lexicon import saying, table, words
from pairbench.generated_suites.patterns import dep_matches, matches
from pairbench.generated_suites.presuppositions import AMOUNT_TYPES, framed, presupposed

DO_FORMS = {"VBZ": "does", "VBD": "did", "VBP": "do"}


def verb_bases(word: str, tag: str) -> list[str]:
    """The verb lemmas of ``word`` whose ``tag`` form is ``word`` ("climbs" with VBZ: climb)."""
    return [b for b in getAllLemmas(word).get("VERB", ()) if getInflection(b, tag=tag)[:1] == (word,)]


def no_progressive(lemma: str) -> bool:
    """A verb of state, which a caption's present keeps as "may" + base, never "may be ...ing"."""
    states = words("stative_verbs") - {"hold", "face", "expect", "plan", "hope"}
    return lemma in words("no_progressive_verbs") or lemma in states


def verb_base(token) -> str:
    if token.pos_ not in ("VERB", "AUX"):
        raise Refuse("negation.verb_lemma_unknown")
    lemmas = getLemma(token.lower_, upos=token.pos_) or getLemma(token.lower_, upos="VERB")
    lemma = lemmas[0] if lemmas else token.lemma_.lower()
    if not lemma.isalpha() or (token.pos_ == "VERB" and "VERB" not in getAllLemmas(token.lower_)):
        raise Refuse("negation.verb_lemma_unknown")  # "part ways" parsed with "ways" as the verb
    return lemma


def adjective_fragment(doc, root, finite) -> bool:
    """A past form at the root of a headline or caption ("Man found dead in hotel"): a participle."""
    if finite.i != root.i or root.tag_ != "VBD":
        return False
    if not doc.text.rstrip().endswith((".", "!", '"')):
        return True
    subject = next((c for c in root.children if c.dep_ == "nsubj"), None)
    if subject is not None and (subject.tag_ == "PRP" or any(c.dep_ == "det" for c in subject.children)):
        return False  # "The man spread butter.": a clause, its subject a noun phrase of its own
    obj = next((c for c in root.children if c.dep_ == "dobj"), None)
    return obj is not None and obj.tag_ == "NN" and not any(c.dep_ in ("det", "poss", "nummod") for c in obj.children)


def headline_participle(doc, root) -> bool:
    """A headline's bare participle the tagger read as one (VBN), with its subject and no auxiliary
    ("Man killed in French terror raid"): read as the past form of ``adjective_fragment`` is read."""
    if not headline(doc) or root.tag_ != "VBN" or root.dep_ != "ROOT" or root.i == 0:
        return False  # a reported participle ("UN confirms sarin used") stays refused
    if any(c.dep_ in ("aux", "auxpass") for c in root.children) or doc[root.i - 1].tag_.startswith("RB"):
        return False  # "critically wounded": the not would land after the adverb
    if root.lower_ in words("move_adverbs"):
        return False  # "Asian markets mixed": a market's state, not a passive act
    subjects = [c for c in root.children if c.dep_ in ("nsubj", "nsubjpass") and c.i < root.i]
    counted = any(t.like_num or t.dep_ == "nummod" for s in subjects for t in s.subtree)
    return bool(subjects) and not counted  # "Three Afghans not killed" reads as three others who lived


def reduced_passive(doc, root) -> bool:
    """A headline's bare participle with no object or coordinated verb ("Former president arrested")."""
    if not headline(doc) or root.i == 0 or not root.text.islower():
        return False
    lemma = verb_base(root)
    if lemma in words("no_passive_verbs"):
        return False
    if root.lower_ not in verb_forms(root):
        return False
    after = doc[root.i + 1] if root.i + 1 < len(doc) else None
    if after is not None and after.lower_ in words("move_adverbs"):
        return False  # "Shares closed lower": an active verb of movement
    return not any(
        c.dep_ in ("dobj", "conj", "ccomp", "xcomp", "dative") or c.tag_ in ("VBD", "VBN") for c in root.children
    )


def caption_state(doc, root, finite) -> bool:
    """A short caption's participle of a state ("Diver submerged in water."): "did not" makes it an act."""
    if finite.i != root.i or root.tag_ != "VBD" or len(doc) > 12 or any(t.text == "," for t in doc):
        return False
    if not doc.text.rstrip().endswith("."):
        return False  # a headline: its reduced passive is read on its own ("president arrested")
    subject = next((c for c in root.children if c.dep_ == "nsubj"), None)
    if subject is None or subject.tag_ not in ("NN", "NNS") or any(c.dep_ in ("det", "poss") for c in subject.children):
        return False
    if subject.tag_ == "NNS" and not any(c.dep_ == "prt" for c in root.children):
        return False  # "Thousands of people marched through the city": an act; "bottles lined up": a state
    objects = any(c.dep_ in ("dobj", "ccomp", "xcomp", "dative") for c in root.children)
    return root.lower_ in verb_forms(root) and not objects


def names_not_title_case(doc) -> bool:
    """Capitals that are names, not Title Case: the sentence's verb stands in lower case, as Title Case
    would never write it, and no other capitalised word inside it is tagged a verb ("James Murdoch
    quits BSkyB"; not "Iran Nuclear Talks Enter Third Day")."""
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.i == 0 or not root.tag_.startswith("VB") or not root.text[:1].islower():
        return False
    return not any(t.text[:1].isupper() and t.tag_.startswith(("VB", "MD")) for t in doc[1:])


def present_read_as_base(doc, root) -> bool:
    """A present the tagger read as a base form ("Gunmen kill nine foreigners", kill tagged VB): a base form
    heads no clause of its own, so the claim's verb with no auxiliary, to or modal, after a plural subject
    of its own (a plural noun, nouns joined by and, or I, we, you, they), is the present (do not kill)."""
    if root.tag_ != "VB" or root.lemma_ == "be" or any(c.dep_ in ("aux", "auxpass", "neg") for c in root.children):
        return False
    subject = next((c for c in root.children if c.dep_ == "nsubj" and c.i < root.i), None)
    if subject is None or doc[root.i - 1].lower_ == "to":
        return False
    return subject.tag_ in ("NNS", "NNPS") or subject.lower_ in ("i", "we", "you", "they") or bool(subject.conjuncts)


@reads_title_case
def negation(doc, ctx=None) -> Made:
    """The claim's clause negated (a reported claim, never the verb of saying)."""
    if title_case(doc) and not names_not_title_case(doc):
        raise Refuse("anchor.title_case")
    root = framed_claim(claim_clause(doc))
    negs, rid = [c for c in root.children if c.dep_ == "neg"], "negation.other_negative_words"
    aside = {t for m in matches(doc, rid) for t in m} | {m[-1] for m in dep_matches(doc, rid) if m[0].head == root}
    others = [t for t in doc if t.lower_ in words("negative_words") | words("near_negative_words") or t.dep_ == "neg"]
    others += [t for t in doc if t.lower_ == "few" and (t.i == 0 or doc[t.i - 1].lower_ != "a")]  # "few ... did not"
    if len(negs) > 1 or any(t not in negs and t not in aside for t in others):  # "a "no skiing" sign": aside
        raise Refuse(rid)
    plan = None if negs else headline_plan(doc, root)  # "Abbas to lead ..." -> "Abbas not to lead ..."
    bare = plan is None and not negs and headline_participle(doc, root)  # "Man killed in raid", tagged VBN
    present = plan is None and not bare and present_read_as_base(doc, root)
    finite, has_aux = (plan, True) if plan is not None else (root, False) if bare or present else finite_verb(root)
    tag = "VBP" if present else root.tag_
    _clear_scope(doc, root)
    why = _negation_scope(doc, root, finite, negs) or presupposed(doc, root, negs) or framed(doc, root)
    if why is not None:
        raise Refuse(why)
    if plan is not None:
        return Made(rebuild(doc, {plan.i: "not to"}), "negation:headline_plan")
    fragment = bare or adjective_fragment(doc, root, finite)
    if not negs and fragment and not _past_clause(doc, root):
        if reduced_passive(doc, root) and _bare_count(doc, root):
            raise Refuse("negation.bare_count_participle")
        if reduced_passive(doc, root) or _plan_participle(doc, root):  # "Former president arrested"
            return Made(rebuild(doc, {root.i: f"not {root.text}"}), "negation:insert_not")
        raise Refuse("negation.past_tense_headline")
    if negs:
        return _unnegate(doc, root, finite, negs[0])
    if has_aux or root.lemma_ == "be":
        after = doc[finite.i + 1] if finite.i + 1 < len(doc) else None
        if after is not None and after.lower_ in words("hedge_adverbs") | {"likely"}:
            raise Refuse("negation.not_before_hedge_adverb")
        rest = doc[after.i : after.i + 2].text.lower() if after is not None else ""
        if after is not None and after.lower_ in words("not_before") and rest != "so far":
            raise Refuse("negation.not_before_adverb")
        return Made(rebuild(doc, {finite.i: _with_not(finite), **some_to_any(root)}), "negation:insert_not")
    if tag not in DO_FORMS:
        raise Refuse("anchor.no_finite_verb")
    after = doc[root.i + 1] if root.i + 1 < len(doc) else None
    if root.lemma_ == "have" and after is not None and after.pos_ == "ADP":
        raise Refuse("negation.have_before_preposition")
    if root.lemma_ == "have" and after is not None and after.tag_ == "VBN":  # "we have co-operated", parsed as a verb
        return Made(rebuild(doc, {root.i: _with_not(root)}), "negation:insert_not")
    if caption_state(doc, root, root):
        raise Refuse("negation.caption_past_state")
    kept = words("hedge_adverbs") | words("adverbs_before_do")  # "reportedly did not", "then did not" read
    if adverb_before(doc, root) and doc[root.i - 1].lower_ not in kept:
        raise Refuse("negation.adverb_before_verb")
    do, shared = DO_FORMS[tag], _do_coordinated(doc, root)
    edits = {root.i: f"{do} not {verb_base(root)}", **some_to_any(root), **{v.i: _base(v) for v in shared}}
    edits |= {v.i - 1: match_case("or", doc[v.i - 1].text) for v in shared}  # "does not love X or use it"
    return Made(rebuild(doc, edits), f"negation:do_support{'_coordinated' * bool(shared)}")


def _plan_participle(doc, root) -> bool:
    """A headline's plan with a past form and to ("Netanyahu set to call early vote"): not goes before it."""
    if not headline(doc) or root.lower_ not in words("plan_participles") or root.i + 2 >= len(doc):
        return False
    plan = [c for c in root.children if c.dep_ == "xcomp" and c.tag_ == "VB" and c.i == root.i + 2]
    return bool(plan) and doc[root.i + 1].lower_ == "to" and has_subject(root)


def _clear_scope(doc, root) -> None:
    """``clear_scope``, but a headline's verb that may be a noun stands after its subject where it can be no
    noun ("Obama relaxes deportation rules") or is an -s form with an object ("Australia cuts rates")."""
    try:
        clear_scope(doc, root)
    except Refuse as why:
        lemmas = getAllLemmas(root.lower_)
        if why.id != "anchor.headline_verb_may_be_noun" or "VERB" not in lemmas:
            raise
        plural_s = root.tag_ == "VBZ" and root.lower_.endswith("s") and any(c.dep_ == "dobj" for c in root.children)
        if "NOUN" in lemmas and not plural_s:
            raise
        if any(t.lower_ in words("subordinators") and t.dep_ != "mark" for t in doc[root.i + 1 :]):
            raise  # "cuts costs as rupee collapse bites": a clause the doubtful parse missed
        if root.tag_ not in DO_FORMS or not any(c.dep_ == "nsubj" and c.i < root.i for c in root.children):
            raise
        if any(t.lower_ in words("subordinators") for t in doc[: root.i]):
            raise Refuse("anchor.subordinator_before_verb") from None


def _do_coordinated(doc, root) -> list:
    """Verbs after "and" of the claim verb's subject and form, which one do-support covers (not open X or climb)."""
    verbs = [c for c in root.children if c.dep_ == "conj" and c.pos_ in ("VERB", "AUX")]
    verbs += [c for o in root.children if o.dep_ == "dobj" for c in o.children if _object_conj_verb(c, root)]
    own = ("nsubj", "nsubjpass", "expl", "aux", "auxpass", "neg")
    if any(
        doc[v.i - 1].lower_ != "and"
        or v.tag_ != root.tag_
        and v.pos_ != "NOUN"
        or any(c.dep_ in own for c in v.children)
        for v in verbs
    ):
        return []
    return verbs


def _object_conj_verb(token, root) -> bool:
    """ "opens a drawer and climbs inside": a verb's -s form tagged a plural noun and joined to the object."""
    if token.dep_ != "conj" or token.tag_ != "NNS" or root.tag_ != "VBZ" or token.doc[token.i - 1].lower_ != "and":
        return False
    marked = any(c.dep_ in ("det", "amod", "nummod", "poss", "compound") for c in token.children)
    return bool(verb_bases(token.lower_, "VBZ")) and not marked


def _base(verb) -> str:
    """``verb_base``, or the verb lemma of an -s verb the parser tagged a plural noun."""
    return verb_base(verb) if verb.pos_ in ("VERB", "AUX") else getLemma(verb.lower_, upos="VERB")[0]


def framed_claim(root):
    """The clause after be and a frame adjective ("I'm afraid we are out of stock") is the claim."""
    frame = any(c.dep_ == "acomp" and c.lower_ in words("frame_adjectives") for c in root.children)
    if root.lemma_ != "be" or not frame:
        return root
    tied = [g for c in root.children if c.dep_ == "acomp" for g in c.children]
    clauses = [c for c in (*root.children, *tied) if c.dep_ == "ccomp" and c.pos_ in ("VERB", "AUX")]
    if not clauses and not any(c.lower_ == "so" for c in root.children):
        return root  # "I'm afraid of dogs", "sure to win": the not goes to the adjective
    if len(clauses) != 1 or not has_subject(clauses[0]):  # "I'm afraid so": the claim is elsewhere
        raise Refuse("negation.speaker_frame")
    return clauses[0]


def _past_clause(doc, root) -> bool:
    """A clause's past verb, not a participle: with a named subject ("Cisco pared spending."), or a headline's
    with an object and an agent ("Kenyan forces caused mall collapse"; not "Mugabe declared winner")."""
    if root.lower_ in verb_forms(root, "VBD") - verb_forms(root):
        return True  # "Planes flew into the zone", "Suspect was in therapy": a past that is no participle
    named = [c for c in root.children if c.dep_ == "nsubj" and c.ent_type_ in ("ORG", "PERSON", "GPE", "NORP")]
    if doc[-1].text == ".":
        return bool(named)
    reported = root.dep_ == "ccomp"  # "US believes Syrian government used chemical weapons": a reported act
    agents = named + [c for c in root.children if c.dep_ == "nsubj" and (reported or c.tag_ in ("NNS", "PRP"))]
    if not agents or any(
        g.dep_ == "compound" and g.pos_ == "PROPN" for a in agents if a.tag_ == "NNS" for g in a.children
    ):
        return False
    passives = words("ditransitive_verbs") | words("object_passives")
    return any(c.dep_ == "dobj" for c in root.children) and verb_base(root) not in passives


def verb_forms(verb, tag: str = "VBN") -> set[str]:
    """The verb's lemma inflected for ``tag``, lower case (past participles: "flown" for "flew")."""
    return {p.lower() for p in getInflection(verb_base(verb), tag=tag) or ()}


def _with_not(finite) -> str:
    """ "is not", and "cannot": "can not" also reads as a choice ("you can not add X")."""
    return f"{finite.text}not" if finite.lower_ == "can" else f"{finite.text} not"


def _bare_count(doc, root) -> bool:
    """ "Two reported dead", "two found dead": the participle's subject is a number alone."""
    subject = [c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")]
    return any(t.like_num and not any(c.dep_ != "punct" for c in t.children) for t in subject) or (
        root.i > 0 and doc[root.i - 1].like_num
    )


def _count_refusal(subj, root, definite) -> str | None:
    """A count that a not would read as a count of others ("Three die", "Three nurses were on duty")."""
    if subj.like_num and not any(c.dep_ != "punct" for c in subj.children):
        return "negation.number_alone_subject"
    own_count = any(c.dep_ == "nummod" for c in subj.children)
    if own_count and not definite and root.lemma_ == "be" and not any(c.dep_ == "xcomp" for c in root.children):
        return "negation.counted_subject_of_be"
    return None


SCOPE_DEPS = ("dobj", "dative", "prep", "pobj", "conj")  # a verb's objects and phrases, and theirs


def some_to_any(verb) -> dict:
    """The some after the verb as any ("is not preparing any food"): "not preparing some food" denies nothing."""
    reach, found = [c for c in verb.children if c.dep_ in SCOPE_DEPS[:3] and c.i > verb.i], []  # no verb conj
    while reach:
        t = reach.pop()
        found += [d for d in (t, *t.children) if d.lower_ == "some" and (d.dep_ == "det" or d is t)]
        reach += [c for c in t.children if c.dep_ in SCOPE_DEPS]
    return {d.i: match_case("any", d.text) for d in found}


def _there_bare(root) -> bool:
    """ "There are dogs in the forest": there + be with a noun that has no determiner or count."""
    if root.lemma_ != "be" or not any(c.dep_ == "expl" for c in root.children):
        return False
    attrs = [c for c in root.children if c.dep_ == "attr"]
    return any(not any(g.dep_ in ("det", "nummod", "poss") for g in a.children) for a in attrs)


def adverb_before(doc, verb) -> bool:
    """An adverb right before a verb with no auxiliary ("rapidly fires", "officially designates")."""
    return verb.i > 0 and doc[verb.i - 1].dep_ == "advmod" and doc[verb.i - 1].tag_ == "RB"


def _negation_scope(doc, root, finite, negs) -> str | None:
    """Why a not added to (or removed from) the clause would not deny (or restore) its claim."""
    marks = words("subordinators") | words("time_subordinators")
    if root.dep_ in ("advcl", "relcl", "acl") or any(c.dep_ == "mark" and c.lower_ in marks for c in root.children):
        return "negation.subordinate_clause"  # "reboots after the update is installed": "installed" parsed as the root
    if _comma_clauses(doc):
        return "negation.headline_comma_clauses"  # "Storm hits coast, thousands lose power": one of two negated
    for rid in ("negation.list_after_colon", "negation.idiom_after_not", "negation.comment_clause"):
        if not negs and any(m.start >= root.i for m in matches(doc, rid)):
            return rid
    for rid, start in (("negation.until_clause", root.i + 1), ("negation.condition_clause", 0)):
        if any(m.start >= start for m in matches(doc, rid)):  # "did not apply until 1990": a delay
            return rid
    if not negs and any(m[0].i == root.i for m in dep_matches(doc, "negation.report_verb")):
        return "negation.report_verb"
    if negs and any(t.lower_ == "because" for t in doc[root.i :]):
        return "negation.because_clause"  # "won't investigate because X": X gives the reason of the not
    subjects = [c for c in root.children if c.dep_ in ("nsubj", "nsubjpass", "expl")]
    sayers = [c for v in root.ancestors for c in v.children if c.dep_ in ("nsubj", "nsubjpass")]  # "Some say X"
    aside = {u for s in subjects for a in s.subtree if a.dep_ in ("appos", "acl", "relcl") for u in a.subtree}
    heads = [t for s in subjects for t in s.subtree if t not in aside] + [t for s in sayers for t in (s, *s.children)]
    if any(t.lower_ in words("scope_quantifiers") for t in heads):
        return "negation.quantified_subject"
    for subj in subjects:
        subtree = list(subj.subtree)
        dets = ("the", "these", "those", "his", "her", "their", "its", "our", "my", "your")
        definite = any(t.dep_ in ("det", "poss") and t.lower_ in dets for t in subtree)
        counted = [t for t in subtree if t.like_num or t.ent_type_ == "CARDINAL"]
        if counted and not definite and any(t.lower_ in words("approximators") for t in subtree if t.i < counted[-1].i):
            # "Two men are not fighting" denies the caption; "as many as 30 were not trapped" does not
            return "negation.approximate_count_subject"
        why = _count_refusal(subj, root, definite)
        if why is not None:
            return why
    if not negs and any(t.lower_ in words("frequency_adverbs") for t in doc):
        return "negation.frequency_adverb"
    if not negs and any(doc[m.start] == root or doc[m.start].head == root for m in matches(doc, "negation.yet_to")):
        return "negation.yet_to"  # "has yet to reply" -> "does not have yet to reply"
    if not negs and any(t.lower_ in words("focus_particles") and _in_scope(t, root) for t in doc[finite.i + 1 :]):
        return "negation.not_with_focus_word"  # "has lost only one game" -> "has not lost only one game"
    for rid in ("negation.somewhere_after_verb", "negation.death_with_age"):
        if not negs and any(m.start >= root.i for m in matches(doc, rid)):
            return rid
    if not negs and headline(doc) and any(m.start == finite.i for m in matches(doc, "negation.headline_death")):
        return "negation.headline_death"
    if not negs and finite.i > 0 and doc[finite.i - 1].lower_ in words("positive_polarity_adverbs"):
        return "negation.not_before_adverb"  # "United already has paid" -> "already has not paid"
    if not negs and finite.lower_ == "must":
        return "negation.must"
    if not negs and saying_alone(root, also=("auxpass", "oprd")):
        return "negation.saying_without_claim"
    if not negs and any(c.dep_ == "dobj" and c.lower_ in words("some_words") for c in root.children):
        return "negation.something_object"
    if not negs and _there_bare(root):
        return "negation.there_is_bare_noun"
    weak = words("weak_modals")
    if any(c.dep_ == "nsubj" and c.lower_ in words("speaker_pronouns") for c in root.children):
        weak = weak | {"could"}  # "We could go to the beach": a suggestion, which "could not go" does not deny
    hedges = words("hedge_adverbs") | words("hedge_words")
    if any(c.dep_ == "advmod" and c.lower_ in hedges for c in root.children):
        weak = weak | {"could"}  # "Perhaps the plan could help": "could not help" is as hedged a possibility
    if finite.lower_ in weak or any(c.lower_ in weak for c in root.children if c.dep_ == "aux"):
        return "negation.modal_of_possibility"
    amount = any(c.dep_ == "attr" and c.ent_type_ in AMOUNT_TYPES for c in root.children)
    if not negs and root.lemma_ == "be" and amount:
        return "negation.copula_with_amount"
    if negs:
        after = doc[negs[0].i + 1] if negs[0].i + 1 < len(doc) else None
        if after is not None and after.lower_ in words("not_focus"):
            return "negation.not_with_focus_word"
        if any(t.lower_ in words("polarity_items") for t in doc[negs[0].i :]):
            return "negation.polarity_word"
    return None


def _comma_clauses(doc) -> bool:
    """A headline of two clauses split by a comma ("Storm hits coast, thousands lose power"); not a sayer after it."""
    if not headline(doc):
        return False

    def clause_verbs(span):
        return [
            t for t in span if t.pos_ in ("VERB", "AUX") and t.tag_ in ("VBZ", "VBP", "VBD", "VBN") and t.dep_ != "amod"
        ]

    for comma in (t for t in doc if t.text == ","):
        after = [t for t in clause_verbs(doc[comma.i + 1 :]) if t.lemma_.lower() not in saying("claim")]
        subjects = [c for t in after for c in t.children if c.dep_ in ("nsubj", "nsubjpass")]
        fused = any(c.i > comma.i for c in subjects) and any(c.i < comma.i and _verb_like(c) for c in subjects)
        if after and (clause_verbs(doc[: comma.i]) or fused):  # "Train derails(NNS) near Paris, dozens hurt"
            return True
    return False


def _verb_like(token) -> bool:
    """A plural noun that is a verb's -s form with a phrase of its own ("derails near Paris")."""
    phrase = any(c.dep_ in ("prep", "dobj") for c in token.children)
    return token.tag_ == "NNS" and bool(verb_bases(token.lower_, "VBZ")) and phrase


def _in_scope(token, root) -> bool:
    """A word of the clause's own verb phrase, not of a clause within it ("molecules that can only be made")."""
    while token != root:
        if token.dep_ in ("relcl", "acl", "advcl", "ccomp", "pcomp", "csubj", "parataxis", "appos", "ROOT"):
            return False
        token = token.head
    return True


def saying_alone(root, also=()) -> bool:
    """A verb of saying with no claim ("He said at every level"; ``also``: more dependents of a claim)."""
    if root.lemma_.lower() not in saying("alone"):  # a hedge or a not of these doubts only the saying
        return False
    claims = [c for c in root.children if c.dep_ in ("dobj", "ccomp", *also)]
    return not claims or all(
        c.dep_ == "dobj" and any(g.dep_ == "acl" and g.tag_ == "VBN" for g in c.children) for c in claims
    )


def caption_present(doc, root, finite, base) -> bool:
    """A caption's present: an event verb, no auxiliary or habit, its subject indefinite or counted ("A man")."""
    if finite.i != root.i or no_progressive(base) or any(c.dep_ in ("acomp", "attr", "oprd") for c in root.children):
        return False
    habit = words("frequency_adverbs") | words("habit_words")
    if any(t.lower_ in habit or t.text in (",", ";", ":") for t in doc) or len(doc) > 18:
        return False  # a habit, or a longer sentence of prose rather than a caption
    if any(t.dep_ == "conj" and t.tag_ in ("VBZ", "VBP") for t in doc[root.i + 1 :]):
        raise Refuse("hedging.coordinated_verbs")
    subjects = [c for c in root.children if c.dep_ == "nsubj"]
    if len(subjects) != 1:
        return False
    if (subj := subjects[0]).lower_ in ("someone", "somebody"):
        return True
    # "A man", "Two dogs": a caption's subject; "The clinic treats ..." tells of a habit
    return subj.pos_ == "NOUN" and any(c.lower_ in ("a", "an") or c.dep_ == "nummod" for c in subj.children)


def _unnegate(doc, root, finite, neg) -> Made:
    if neg.lower_ not in ("not", "n't"):
        raise Refuse("negation.other_negator")
    if neg.i != finite.i + 1:
        raise Refuse("negation.not_after_finite_verb")
    if scare_quoted(doc[neg.i :].text):
        raise Refuse("negation.scare_quotes_after_not")
    if finite.lemma_ == "do" and finite.dep_ == "aux" and finite.tag_ in DO_FORMS and root.tag_ == "VB":
        return Made(
            rebuild(doc, {finite.i: "", neg.i: "", root.i: inflect(verb_base(root), finite.tag_)}), "negation:remove_do"
        )
    edits = {neg.i: ""}
    if neg.lower_ == "n't" and finite.lower_ in table("contracted_hosts"):
        edits[finite.i] = table("contracted_hosts")[finite.lower_]
    elif neg.lower_ == "n't" and finite.lower_ == "ai":
        raise Refuse("negation.aint")
    return Made(rebuild(doc, edits), "negation:remove_not")
