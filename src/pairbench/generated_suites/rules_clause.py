"""The negation rule on the claim's clause (do-support, not after an auxiliary, a not removed); its clause helpers."""

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
    kids,
    match_case,
    rebuild,
    scare_quoted,
)
from pairbench.generated_suites.lexicon import saying, table, words
from pairbench.generated_suites.patterns import dep_matches, ends, matches, rooted, roots, starts
from pairbench.generated_suites.presuppositions import AMOUNT_TYPES, framed, presupposed, saying_alone


def verb_bases(word: str, tag: str) -> list[str]:
    """The verb lemmas of ``word`` whose ``tag`` form is ``word`` ("climbs" with VBZ: climb)."""
    return [b for b in getAllLemmas(word).get("VERB", ()) if getInflection(b, tag=tag)[:1] == (word,)]


def verb_base(token) -> str:
    if token.pos_ not in ("VERB", "AUX"):
        raise Refuse("negation.verb_lemma_unknown")
    lemma = [*getLemma(token.lower_, upos=token.pos_), *getLemma(token.lower_, upos="VERB"), token.lemma_.lower()][0]
    if not lemma.isalpha() or (token.pos_ == "VERB" and "VERB" not in getAllLemmas(token.lower_)):
        raise Refuse("negation.verb_lemma_unknown")  # "part ways" parsed with "ways" as the verb
    return lemma


def adjective_fragment(doc, root, finite) -> bool:
    """A past form at the root of a headline or caption ("Man found dead in hotel"): a participle."""
    if finite.i != root.i or root.tag_ != "VBD":
        return False
    if not doc.text.rstrip().endswith((".", "!", '"')):
        return True
    subject = next(iter(kids(root, "nsubj")), None)
    described = subject is not None and subject.tag_ == "NNS" and bool(kids(subject, "relcl"))  # "Workers who slept"
    described = described and verb_base(root) not in words("object_verbs")  # "Men who robbed a bank handed jail terms"
    if subject is not None and (subject.tag_ == "PRP" or kids(subject, "det")) or described:
        return False  # "The man spread butter.": a clause, its subject a noun phrase of its own
    obj = next(iter(kids(root, "dobj")), None)
    return obj is not None and obj.tag_ == "NN" and not kids(obj, "det", "poss", "nummod")


def headline_participle(doc, root) -> bool:
    """A headline's bare participle tagged VBN, with its subject and no auxiliary ("Man killed in French raid")."""
    if not headline(doc) or root.tag_ != "VBN" or root.dep_ != "ROOT" or root.i == 0:
        return False  # a reported participle ("UN confirms sarin used") stays refused
    if kids(root, "aux", "auxpass") or doc[root.i - 1].tag_.startswith("RB") or root.lower_ in words("move_adverbs"):
        return False  # "critically wounded": the not would land after the adverb; "Asian markets mixed": a state
    subjects = [c for c in kids(root, "nsubj", "nsubjpass") if c.i < root.i]  # "Three Afghans not killed": others lived
    return bool(subjects) and not any(t.like_num or t.dep_ == "nummod" for s in subjects for t in s.subtree)


def reduced_passive(doc, root) -> bool:
    """A headline's bare participle with no object or coordinated verb ("Former president arrested")."""
    if not headline(doc) or root.i == 0 or not root.text.islower() or verb_base(root) in words("no_passive_verbs"):
        return False
    after = doc[root.i + 1 : root.i + 2].text.lower()  # "Shares closed lower": an active verb of movement
    odd = any(c.dep_ in ("dobj", "conj", "ccomp", "xcomp", "dative") or c.tag_ in ("VBD", "VBN") for c in root.children)
    return root.lower_ in verb_forms(root) and after not in words("move_adverbs") and not odd  # odd: an object, a verb


def caption_state(doc, root, finite) -> bool:
    """A short caption's participle of a state ("Diver submerged in water."): "did not" makes it an act."""
    if finite.i != root.i or root.tag_ != "VBD" or len(doc) > 12 or any(t.text == "," for t in doc):
        return False
    subject = next(iter(kids(root, "nsubj")), None)
    if not doc.text.rstrip().endswith(".") or subject is None or subject.tag_ not in ("NN", "NNS"):
        return False
    act = kids(subject, "det", "poss") or subject.tag_ == "NNS" and not kids(root, "prt")  # "bottles lined up": a state
    return not act and root.lower_ in verb_forms(root) and not kids(root, "dobj", "ccomp", "xcomp", "dative")


def present_read_as_base(doc, root) -> bool:
    """A present tagged as a base form after a plural subject ("Gunmen kill nine foreigners"): do not kill."""
    if root.tag_ != "VB" or root.lemma_ == "be" or kids(root, "aux", "auxpass", "neg"):
        return False
    subject = next((c for c in kids(root, "nsubj") if c.i < root.i), None)
    if subject is None or doc[root.i - 1].lower_ == "to":
        return False
    return subject.tag_ in ("NNS", "NNPS") or subject.lower_ in ("i", "we", "you", "they") or bool(subject.conjuncts)


def negation(doc, ctx=None) -> Made:
    """The claim's clause negated (a reported claim, never the verb of saying)."""
    root = claim_clause(doc)
    if why := _news_frame(doc):
        raise Refuse(why)
    if root.i in roots(doc, "negation.speaker_frame"):  # its pattern, be sure: "She is sure that the bus leaves"
        tied = [g for c in kids(root, "acomp") for g in c.children]
        clauses = [c for c in (*root.children, *tied) if c.dep_ == "ccomp" and c.pos_ in ("VERB", "AUX")]
        if clauses or any(c.lower_ == "so" for c in root.children):  # not "I'm afraid of dogs": the adjective's
            if len(clauses) != 1 or not has_subject(clauses[0]):  # "I'm afraid so": the claim is elsewhere
                raise Refuse("negation.speaker_frame")
            root = clauses[0]  # the claim
    negs, rid = kids(root, "neg"), "negation.other_negative_words"
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
    if why := _negation_scope(doc, root, finite, negs) or presupposed(doc, root, negs) or framed(doc, root):
        raise Refuse(why)
    if _colon_clauses(doc):
        raise Refuse("negation.colon_clauses")
    if any(m.start > root.i for m in matches(doc, "negation.elaborated_claim")):
        raise Refuse("negation.elaborated_claim")  # "Snow will fall, with up to 10 cm possible": the detail stays
    if plan is not None:
        return Made(rebuild(doc, {plan.i: "not to"}), "negation:headline_plan")
    if (bare or adjective_fragment(doc, root, finite)) and not negs and not _past_clause(doc, root):
        nums = [t for t in kids(root, "nsubj", "nsubjpass") if t.like_num and {c.dep_ for c in t.children} <= {"punct"}]
        if reduced_passive(doc, root) and (nums or root.i > 0 and doc[root.i - 1].like_num):  # "Two reported dead"
            raise Refuse("negation.bare_count_participle")
        plans = [m for m in matches(doc, "negation.past_tense_headline") if m.start == root.i and m[-1].head == root]
        if reduced_passive(doc, root) or headline(doc) and plans and has_subject(root):  # "Mayor set to open ..."
            return Made(rebuild(doc, {root.i: f"not {root.text}"}), "negation:insert_not")
        raise Refuse("negation.past_tense_headline")
    if negs:  # the not removed
        neg = negs[0]
        if neg.lower_ not in ("not", "n't"):
            raise Refuse("negation.other_negator")
        if neg.i != finite.i + 1:
            raise Refuse("negation.not_after_finite_verb")
        if scare_quoted(doc[neg.i :].text):
            raise Refuse("negation.scare_quotes_after_not")
        if finite.lemma_ == "do" and finite.dep_ == "aux" and finite.tag_ in table("do_forms") and root.tag_ == "VB":
            edits = {finite.i: "", neg.i: "", root.i: inflect(verb_base(root), finite.tag_)}
            return Made(rebuild(doc, edits), "negation:remove_do")
        if neg.lower_ == "n't" and finite.lower_ == "ai":
            raise Refuse("negation.aint")
        hosts = table("contracted_hosts") if neg.lower_ == "n't" else {}  # won't -> will
        edits = {neg.i: "", **({finite.i: hosts[finite.lower_]} if finite.lower_ in hosts else {})}
        return Made(rebuild(doc, edits), "negation:remove_not")
    if has_aux or root.lemma_ == "be":
        after = doc[finite.i + 1 : finite.i + 3]
        if finite.i + 1 in starts(doc, "negation.not_before_hedge_adverb"):  # its pattern
            raise Refuse("negation.not_before_hedge_adverb")
        if after and after[0].lower_ in words("not_before") and after.text.lower() != "so far":
            raise Refuse("negation.not_before_adverb")
        return Made(rebuild(doc, {finite.i: _with_not(finite), **some_to_any(root)}), "negation:insert_not")
    if tag not in table("do_forms"):
        raise Refuse("anchor.no_finite_verb")
    if root.i in starts(doc, "negation.have_before_preposition"):  # its pattern
        raise Refuse("negation.have_before_preposition")
    if root.lemma_ == "have" and doc[root.i + 1 : root.i + 2].root.tag_ == "VBN":  # "we have co-operated": a verb
        return Made(rebuild(doc, {root.i: _with_not(root)}), "negation:insert_not")
    if caption_state(doc, root, root):
        raise Refuse("negation.caption_past_state")
    if root.i - 1 in starts(doc, "negation.adverb_before_verb"):  # its pattern: not "reportedly", "then"
        raise Refuse("negation.adverb_before_verb")
    do, shared = table("do_forms")[tag], _do_coordinated(doc, root)
    edits = {root.i: f"{do} not {verb_base(root)}", **some_to_any(root)}
    edits |= {v.i: verb_base(v) if v.pos_ in ("VERB", "AUX") else getLemma(v.lower_, upos="VERB")[0] for v in shared}
    edits |= {v.i - 1: match_case("or", doc[v.i - 1].text) for v in shared}  # "does not love X or use it"
    return Made(rebuild(doc, edits), f"negation:do_support{'_coordinated' * bool(shared)}")


def _news_frame(doc) -> str | None:
    """A frame that a not would leave without its point: bad news (I'm afraid X), a warning or a belief contradicted."""
    speaker = [s.lower_ for t in doc if t.dep_ == "acomp" for s in kids(t.head, "nsubj")]  # I'm afraid, we're sorry
    if any(t.lower_ in words("regret_words") and (t.dep_ == "advmod" or set(speaker) & {"i", "we"}) for t in doc):
        return "negation.regret_frame"  # "I'm afraid we are out of luck" -> "... not out of luck": good news
    frames = [t for t in doc if t.lemma_.lower() in words("warning_frames")]  # not "X warns Kenya of the cost"
    if any(t.dep_ != "ROOT" or kids(t, "ccomp") for t in frames):
        return "negation.warning_frame"  # "X could reach 34C, forecasters warned": a warning of nothing
    return None


def _clear_scope(doc, root) -> None:
    """``clear_scope``, but a headline's verb that may be a noun is read after its subject ("Australia cuts rates")."""
    try:
        clear_scope(doc, root)
    except Refuse as why:
        lemmas = getAllLemmas(root.lower_)
        plural_s = root.tag_ == "VBZ" and root.lower_.endswith("s") and bool(kids(root, "dobj"))
        noun = why.id != "anchor.headline_verb_may_be_noun" or "VERB" not in lemmas or "NOUN" in lemmas and not plural_s
        subordinators = [t for t in doc if t.lower_ in words("subordinators")]
        missed = any(t.i > root.i and t.dep_ != "mark" for t in subordinators)  # "cuts costs as rupee collapse bites"
        if noun or missed or root.tag_ not in table("do_forms") or not any(c.i < root.i for c in kids(root, "nsubj")):
            raise
        if any(t.i < root.i for t in subordinators):
            raise Refuse("anchor.subordinator_before_verb") from None


def _do_coordinated(doc, root) -> list:
    """Verbs after "and" of the claim verb's subject and form, which one do-support covers (not open X or climb)."""
    verbs = [c for c in kids(root, "conj") if c.pos_ in ("VERB", "AUX")]
    marks = ("det", "amod", "nummod", "poss", "compound")  # a noun's, not a verb's
    joined = [m[2] for m in rooted(doc, "negation.do_support_coordinated", root)]
    verbs += [v for v in joined if verb_bases(v.lower_, "VBZ") and not kids(v, *marks)]  # its pattern: tagged NNS
    own = ("nsubj", "nsubjpass", "expl", "aux", "auxpass", "neg")
    if any(doc[v.i - 1].lower_ != "and" or v.tag_ != root.tag_ and v.pos_ != "NOUN" or kids(v, *own) for v in verbs):
        return []
    return verbs


def _past_clause(doc, root) -> bool:
    """A clause's past verb, not a participle: with a named subject, or a headline's with an object and an agent."""
    if root.lower_ in verb_forms(root, "VBD") - verb_forms(root):
        return True  # "Planes flew into the zone", "Suspect was in therapy": a past that is no participle
    named = [c for c in kids(root, "nsubj") if c.ent_type_ in ("ORG", "PERSON", "GPE", "NORP")]
    if doc[-1].text == ".":
        return bool(named)
    agents = named + [c for c in kids(root, "nsubj") if root.dep_ == "ccomp" or c.tag_ in ("NNS", "PRP")]  # or reported
    names = any(g.dep_ == "compound" and g.pos_ == "PROPN" for a in agents if a.tag_ == "NNS" for g in a.children)
    return bool(agents) and not names and bool(kids(root, "dobj")) and verb_base(root) not in words("object_verbs")


def verb_forms(verb, tag: str = "VBN") -> set[str]:
    """The verb's lemma inflected for ``tag``, lower case (past participles: "flown" for "flew")."""
    return {p.lower() for p in getInflection(verb_base(verb), tag=tag) or ()}


def _with_not(finite) -> str:
    """ "is not", and "cannot": "can not" also reads as a choice ("you can not add X")."""
    return f"{finite.text}not" if finite.lower_ == "can" else f"{finite.text} not"


def some_to_any(verb) -> dict:
    """The some after the verb as any ("is not preparing any food"): "not preparing some food" denies nothing."""
    reach, found = [c for c in kids(verb, "dobj", "dative", "prep") if c.i > verb.i], []  # no verb conj
    while reach:
        t = reach.pop()
        found += [d for d in (t, *t.children) if d.lower_ == "some" and (d.dep_ == "det" or d is t)]
        reach += kids(t, "dobj", "dative", "prep", "pobj", "conj")
    return {d.i: match_case("any", d.text) for d in found}


def _negation_scope(doc, root, finite, negs) -> str | None:
    """Why a not added to (or removed from) the clause would not deny (or restore) its claim."""
    if root.i in roots(doc, "negation.subordinate_clause"):  # its pattern: on the verb
        return "negation.subordinate_clause"  # "reboots after the update is installed": "installed" parsed as the root
    if _comma_clauses(doc):
        return "negation.headline_comma_clauses"  # "Storm hits coast, thousands lose power": one of two negated
    if any(c.i > finite.i for c in kids(root, "nsubj")):
        return "negation.subject_after_verb"  # "Then comes the hard part" -> "Then does not come ..."
    ids = ("negation.list_after_colon", "negation.idiom_after_not", "negation.additive_too", "negation.comment_clause")
    for rid in ids:
        if not negs and any(m.start >= root.i for m in matches(doc, rid)):
            return rid
    for rid, start in (("negation.until_clause", root.i + 1), ("negation.condition_clause", 0)):
        if any(m.start >= start for m in matches(doc, rid)):  # "did not apply until 1990": a delay
            return rid
    for rid in ("negation.report_verb", "negation.perfect_duration"):  # their patterns: on the verb
        if not negs and root.i in roots(doc, rid):
            return rid
    if negs and any(t.lower_ == "because" for t in doc[root.i :]):
        return "negation.because_clause"  # "won't investigate because X": X gives the reason of the not
    subjects = kids(root, "nsubj", "nsubjpass", "expl")
    sayers = [c for v in root.ancestors for c in kids(v, "nsubj", "nsubjpass")]  # "Some say X"
    clauses = {u for s in subjects for a in s.subtree if a.dep_ in ("acl", "relcl") for u in a.subtree}
    aside = clauses | {u for s in subjects for a in s.subtree if a.dep_ == "appos" for u in a.subtree}
    heads = [t for s in subjects for t in s.subtree if t not in aside] + [t for s in sayers for t in (s, *s.children)]
    if any(t.lower_ in words("scope_quantifiers") for t in heads):
        return "negation.quantified_subject"
    bounds = [{m[0], m[-1]} for m in matches(doc, "negation.approximate_count_subject")]  # its pattern: as many as 30
    for subj in subjects:  # "Two men are not fighting" denies the caption; "as many as 30 were not trapped" does not
        definite = any(t.dep_ in ("det", "poss") and t.lower_ in words("definite_determiners") for t in subj.subtree)
        if not definite and any(b <= set(subj.subtree) - clauses for b in bounds):  # not "who slept less than 6 hours"
            return "negation.approximate_count_subject"
        if subj.like_num and {c.dep_ for c in subj.children} <= {"punct"}:  # "Three die": a count of others denied?
            return "negation.number_alone_subject"
        counted = subj.like_num or subj.lower_ in words("plural_scales")  # "Three of the flats", "Hundreds of people"
        participle = headline(doc) and root.tag_ in ("VBN", "VBD")  # "Two of the 12 reported dead": see its own id
        if counted and not participle and any(c.dep_ == "prep" and c.lower_ == "of" for c in subj.children):
            return "negation.partitive_count_subject"
        if kids(subj, "nummod") and not definite and root.lemma_ == "be" and not kids(root, "xcomp"):
            return "negation.counted_subject_of_be"
    if not negs and matches(doc, "negation.frequency_adverb"):
        return "negation.frequency_adverb"
    if not negs and any(m[0] == root or m[0].head == root for m in matches(doc, "negation.yet_to")):
        return "negation.yet_to"  # "has yet to reply" -> "does not have yet to reply"
    if not negs and any(t.lower_ in words("focus_particles") and _in_scope(t, root) for t in doc[finite.i + 1 :]):
        return "negation.not_with_focus_word"  # "has lost only one game" -> "has not lost only one game"
    for rid in ("negation.somewhere_after_verb", "negation.death_with_age"):
        if not negs and any(m.start >= root.i for m in matches(doc, rid)):
            return rid
    if not negs and headline(doc) and finite.i in starts(doc, "negation.headline_death"):
        return "negation.headline_death"
    if not negs and finite.i - 1 in ends(doc, "negation.not_before_adverb"):
        return "negation.not_before_adverb"  # "United already has paid" -> "already has not paid"
    if not negs and finite.lower_ == "must":
        return "negation.must"
    if not negs and saying_alone(root, also=("auxpass", "oprd")):
        return "negation.saying_without_claim"
    if not negs and root.i in roots(doc, "negation.something_object"):
        return "negation.something_object"
    bare = [m[0] for m in dep_matches(doc, "negation.there_is_bare_noun") if not kids(m[-1], "det", "nummod", "poss")]
    if not negs and root in bare:  # its pattern: there, be and a noun, here with no determiner or count
        return "negation.there_is_bare_noun"
    weak = words("weak_modals") | ({"could"} if root.i in roots(doc, "negation.modal_of_possibility") else set())
    if finite.lower_ in weak or any(c.lower_ in weak for c in kids(root, "aux")):
        return "negation.modal_of_possibility"
    if not negs and root.lemma_ == "be" and any(c.ent_type_ in AMOUNT_TYPES for c in kids(root, "attr")):
        return "negation.copula_with_amount"
    if negs and negs[0].i in starts(doc, "negation.not_with_focus_word"):
        return "negation.not_with_focus_word"  # its pattern: "not just X but Y"
    if negs and any(m.start >= negs[0].i for m in matches(doc, "negation.polarity_word")):
        return "negation.polarity_word"
    return None


def _colon_clauses(doc) -> bool:
    """Two clauses split by a colon or semicolon ("Skip the buffet: the eggs were cold"); not a quote or a title."""
    for split in (t for t in doc[1:-1] if t.text in (":", ";") and doc[t.i + 1].text not in ('"', "'", "“")):
        if doc[: split.i].text.count('"') % 2:
            continue  # inside quotes: "X2: X-Men United"
        sides = (doc[: split.i], doc[split.i + 1 :])
        told = [[t for t in s if t.pos_ in ("VERB", "AUX") and kids(t, "nsubj", "nsubjpass")] for s in sides]
        if (told[0] or doc[0].tag_ == "VB") and told[1]:  # a clause, or an instruction first, on each side
            return True
    return False


def _comma_clauses(doc) -> bool:
    """A headline of two clauses split by a comma ("Storm hits coast, thousands lose power"); not a sayer after it."""
    verbs = [m[0] for m in matches(doc, "negation.headline_comma_clauses")] if headline(doc) else []  # its pattern
    for comma in (t for t in doc if t.text == ","):
        after = [t for t in verbs if t.i > comma.i and t.lemma_.lower() not in saying("claim")]
        subjects = [c for t in after for c in kids(t, "nsubj", "nsubjpass")]
        verb_like = [c for c in subjects if c.i < comma.i and c.tag_ == "NNS" and kids(c, "prep", "dobj")]
        fused = any(c.i > comma.i for c in subjects) and any(verb_bases(c.lower_, "VBZ") for c in verb_like)
        if after and (any(t.i < comma.i for t in verbs) or fused):  # "Train derails(NNS) near Paris, dozens hurt"
            return True
    return False


def _in_scope(token, root) -> bool:
    """A word of the clause's own verb phrase, not of a clause within it ("molecules that can only be made")."""
    chain = [token, *token.ancestors]  # up to the sentence's root
    clauses = ("relcl", "acl", "advcl", "ccomp", "pcomp", "csubj", "parataxis", "appos")
    return root in chain and not any(t.dep_ in clauses for t in chain[: chain.index(root)])
