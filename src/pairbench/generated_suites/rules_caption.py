"""Fallback rules (``generate.FALLBACKS``, deterministic) for captions that leave out "is" ("A man
walking down the stairs."), which have no finite verb for the clause rules."""

from __future__ import annotations

from pairbench.generated_suites.edits import Made, Refuse, rebuild
from pairbench.generated_suites.lexicon import words
from pairbench.generated_suites.rules_clause import some_to_any, verb_bases
from pairbench.generated_suites.rules_structure import argument, phrase, plural

# Words the subject of a caption may hold: articles, counts, adjectives, nouns.
_SUBJECT_TAGS = {"DT", "CD", "JJ", "JJR", "JJS", "NN", "NNS", "NNP", "VBN", "HYPH", "PRP$", "POS", "CC"}


def _caption_parts(doc):
    """(subject tokens, participle) of "<noun phrase> <participle> ...", or refuse."""
    roots = [t for t in doc if t.dep_ == "ROOT"]
    if len(roots) != 1 or doc.text.rstrip().endswith(("?", "!")):
        raise Refuse("negation.caption_not_one_sentence")
    root = roots[0]
    if root.tag_ == "VBG" and not any(c.dep_ in ("aux", "auxpass") for c in root.children):
        participle = root  # "A passenger train waiting in a station."
        if not any(c.dep_ == "nsubj" for c in root.children):
            raise Refuse("negation.caption_without_subject")
    elif root.tag_ in ("NN", "NNS"):
        participle = next((c for c in root.children if c.dep_ == "acl" and c.tag_ == "VBG"), None)
        if participle is None or participle.i != root.i + 1:
            raise Refuse("negation.caption_without_participle")
    else:
        raise Refuse("negation.not_a_caption")
    subject = doc[: participle.i]
    if not subject or subject[-1].tag_ not in ("NN", "NNS") or any(t.tag_ not in _SUBJECT_TAGS for t in subject):
        raise Refuse("negation.caption_subject")
    return subject, participle


def negation_caption(doc, ctx=None) -> Made:
    """ "A man walking down the stairs." -> "A man not walking down the stairs."; else ``_missed_present``."""
    try:
        subject, participle = _caption_parts(doc)
    except Refuse:
        if (made := _missed_present(doc)) is None:
            raise
        return made
    if any(t.lower_ in words("negative_words") | words("near_negative_words") or t.dep_ == "neg" for t in doc):
        raise Refuse("negation.other_negative_words")
    if any(t.lower_ in words("scope_quantifiers") for t in subject):
        raise Refuse("negation.quantified_subject")
    verbs = [t for t in doc if t.pos_ in ("VERB", "AUX") and t.i != participle.i and t.i >= participle.i]
    if any(t.tag_ != "VBN" or t.dep_ != "amod" for t in verbs):
        raise Refuse("negation.caption_second_verb")
    return Made(
        rebuild(doc, {participle.i: f"not {participle.text}", **some_to_any(participle)}), "negation:caption_not"
    )


def _missed_present(doc) -> Made | None:
    """ "A woman slices tofu." with "slices" parsed a plural noun: a verb's -s form after "a" and a singular noun,
    or its base form after a plural, can only be the verb. A short plain one-clause caption only."""
    counted = doc[0].lower_ in ("a", "an") or doc[0].tag_ == "CD"
    if not doc.text.rstrip().endswith(".") or not counted or len(doc) > 18:
        return None
    found = next(((t.i, v) for t in doc[2:] if doc[t.i - 1].tag_ in ("NN", "NNS") and (v := _verb_after(doc, t))), None)
    tags = ("JJ", "NN", "NNS", "HYPH", "VBN", "CC", "DT", "PRP$")
    if found is None or any(t.tag_ not in tags for t in doc[1 : found[0]]):
        return None
    i, (plural, bases) = found
    plain = words("negative_words") | words("near_negative_words") | words("some_words") | {"some"}
    plain |= words("frequency_adverbs")
    marked = any(t.lower_ in plain or t.text in (",", ";", ":") or t.dep_ == "neg" for t in doc)
    if doc[i].pos_ == "AUX" or {"be", "have", "do"} & set(bases) or marked:
        return None
    if any(t.tag_ in ("VBZ", "VBP", "VBD", "MD") or t.lower_ in ("and", "or") for t in doc[i + 1 :]):
        return None
    return Made(rebuild(doc, {i: f"{'do' if plural else 'does'} not {bases[0]}"}), "negation:caption_do_support")


def _verb_after(doc, token) -> tuple[bool, list[str]] | None:
    """(plural, the verb's bases) where ``token`` is a verb's form that agrees with the subject before it, or None."""
    subject = doc[: token.i]
    singular = doc[0].lower_ in ("a", "an") and not any(t.tag_ in ("NNS", "CC", "CD") for t in subject)
    plural = subject[-1].tag_ == "NNS" or any(t.lower_ == "and" for t in subject)
    if singular == plural or plural and token.lower_.endswith("s"):
        return None
    bases = verb_bases(token.lower_, "VBP" if plural else "VBZ")
    return (plural, bases) if bases else None


def hedging_caption(doc, ctx=None) -> Made:
    """ "A man walking down the stairs." -> "A man may be walking down the stairs." (as it is seen)."""
    subject, participle = _caption_parts(doc)
    plain = words("negative_words") | words("near_negative_words") | words("hedge_words") | words("hedge_adverbs")
    if any(t.lower_ in plain or t.dep_ == "neg" or t.pos_ in ("VERB", "AUX") and t.i > participle.i for t in doc):
        raise Refuse("hedging.caption_not_plain")
    return Made(rebuild(doc, {participle.i: f"may be {participle.text}"}), "hedging:add_may_progressive")


def entity_swap_caption(doc, ctx=None) -> Made:
    """ "A woman slicing an onion." -> "An onion slicing a woman." (articles go with their nouns)."""
    subject, participle = _caption_parts(doc)
    if participle.lemma_.lower() in words("symmetric_verbs"):
        raise Refuse("entity_swap.symmetric_verb")
    obj = next((c for c in participle.children if c.dep_ == "dobj"), None)
    if obj is None:
        raise Refuse("entity_swap.no_second_argument")
    thing = argument(obj)
    if any(t.pos_ in ("VERB", "AUX") and t.i > participle.i and t.dep_ != "amod" for t in doc):
        raise Refuse("entity_swap.caption_second_verb")
    if any(span[0].lower_ not in ("a", "an", "the") for span in (subject, thing)):
        raise Refuse("entity_swap.caption_without_article")
    if plural(subject[-1]) != plural(obj):
        raise Refuse("entity_swap.number_disagrees")
    if {t.lower_ for t in subject if not t.is_stop} & {t.lower_ for t in thing if not t.is_stop}:
        raise Refuse("entity_swap.shared_word")
    tokens = [t.text_with_ws for t in doc]
    out = phrase(thing, first=True) + subject[-1].whitespace_ + "".join(tokens[subject.end : thing.start])
    out += phrase(subject, first=False) + thing[-1].whitespace_ + "".join(tokens[thing.end :])
    return Made(out.strip(), "entity_swap:caption")
