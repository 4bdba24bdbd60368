"""Fallback rules (``generate.FALLBACKS``) for captions with no finite verb ("A man walking down the stairs.")."""

from __future__ import annotations

from lemminflect import getAllLemmas

from pairbench.generated_suites.edits import Made, Refuse, headline, kids, noun_phrase_head, rebuild
from pairbench.generated_suites.lexicon import saying, words
from pairbench.generated_suites.patterns import matches, roots
from pairbench.generated_suites.rules_clause import some_to_any, verb_base, verb_bases, verb_forms
from pairbench.generated_suites.rules_structure import argument, phrase, plural

_SUBJECT_TAGS = {"DT", "CD", "JJ", "JJR", "JJS", "NN", "NNS", "NNP", "VBN", "HYPH", "PRP$", "POS", "CC"}


def _caption_parts(doc, wide=False):
    """(subject tokens, participle) of "<noun phrase> <participle> ..." or refuse; ``wide``: "Group of men sitting"."""
    heads = [t for t in doc if t.dep_ == "ROOT"]
    if len(heads) != 1 or doc.text.rstrip().endswith(("?", "!")):
        raise Refuse("negation.caption_not_one_sentence")
    root = heads[0]
    capital = wide and root.i == 0 and root.tag_ == "NNP" and root.text[:1].isupper() and root.text[1:].islower()
    if root.tag_ == "VBG" and not kids(root, "aux", "auxpass"):
        participle = root  # "A passenger train waiting in a station."
        if not kids(root, "nsubj"):
            raise Refuse("negation.caption_without_subject")
    elif root.tag_ in ("NN", "NNS") or capital and "NOUN" in getAllLemmas(root.lower_):  # "Group of horses": no name
        participle = next((c for c in kids(root, "acl") if c.tag_ == "VBG"), None)
        if participle is None or participle.i != root.i + 1 and not (wide and _phrase_between(root, participle)):
            raise Refuse("negation.caption_without_participle")
    else:
        raise Refuse("negation.not_a_caption")
    subject = doc[: participle.i]
    tags = _SUBJECT_TAGS | ({"IN"} if wide else set())
    last = ("NN", "NNS", "NNP") if root.tag_ == "NNP" else ("NN", "NNS")  # "Group of horses": its pobj is last
    loose = [t for t in subject if t.tag_ == "IN" and not (t.dep_ == "prep" and t.head.i < t.i)]  # of no noun before
    if not subject or subject[-1].tag_ not in last or any(t.tag_ not in tags for t in subject) or loose:
        raise Refuse("negation.caption_subject")
    return subject, participle


def _phrase_between(head, participle) -> bool:
    """Only the head noun's prepositional phrases between it and its participle ("group of people sitting")."""
    between = range(head.i + 1, participle.i)
    phrases = [c for c in kids(head, "prep") if c.i in between]
    odd = any(t.dep_ in ("nmod", "appos", "npadvmod") for t in participle.doc[head.i : participle.i])  # "white water"
    last = participle.doc[participle.i - 1]
    ends = last.dep_ == "pobj" or last.dep_ == "conj" and last.head.dep_ == "pobj"  # not "people white water"
    return not odd and bool(phrases) and ends and {t.i for p in phrases for t in p.subtree} == set(between)


def negation_caption(doc, ctx=None) -> Made:
    """ "A man walking down the stairs." -> "A man not walking down the stairs."; else ``_missed_present``."""
    try:
        subject, participle = _caption_parts(doc, wide=True)
    except Refuse:
        made = _missed_present(doc) or _headline_missed_present(doc) or _headline_passive_on_noun(doc)
        if made is None:
            raise
        return made
    if any(t.lower_ in words("negative_words") | words("near_negative_words") or t.dep_ == "neg" for t in doc):
        raise Refuse("negation.other_negative_words")
    if any(t.lower_ in words("scope_quantifiers") for t in subject):
        raise Refuse("negation.quantified_subject")
    if any(t.pos_ in ("VERB", "AUX") and (t.tag_ != "VBN" or t.dep_ != "amod") for t in doc[participle.i + 1 :]):
        raise Refuse("negation.caption_second_verb")
    edits = {participle.i: f"not {participle.text}", **some_to_any(participle)}
    return Made(rebuild(doc, edits), "negation:caption_not")


def _missed_present(doc) -> Made | None:
    """ "A woman slices tofu." with "slices" parsed a plural noun: a verb form after a noun that agrees with it."""
    plain = (doc[0].lower_ in ("a", "an") or doc[0].tag_ == "CD") and doc.text.rstrip().endswith(".") and len(doc) <= 18
    found = next(((t.i, v) for t in doc[2:] if doc[t.i - 1].tag_ in ("NN", "NNS") and (v := _verb_after(doc, t))), None)
    tags = ("JJ", "NN", "NNS", "HYPH", "VBN", "CC", "DT", "PRP$")
    if not plain or found is None or any(t.tag_ not in tags for t in doc[1 : found[0]]):
        return None
    i, (plural, bases) = found
    more = any(t.tag_ in ("VBZ", "VBP", "VBD", "MD") or t.lower_ in ("and", "or") for t in doc[i + 1 :])
    if more or doc[i].pos_ == "AUX" or {"be", "have", "do"} & set(bases) or matches(doc, "negation.caption_do_support"):
        return None
    return Made(rebuild(doc, {i: f"{'do' if plural else 'does'} not {bases[0]}"}), "negation:caption_do_support")


def _headline_missed_present(doc) -> Made | None:
    """ "Snowden thanks Russia for asylum" with "thanks" parsed a plural noun (not "Iran talks in Geneva")."""
    if not headline(doc) or matches(doc, "negation.headline_do_support"):
        return None
    found = [t for t in doc[1:-1] if t.tag_ in ("NNS", "NN") and verb_bases(t.lower_, "VBZ") and _headline_verb(doc, t)]
    bases = [verb_bases(t.lower_, "VBZ")[0] for t in found]
    if len(found) != 1 or bases[0] in saying("claim") | {"be", "have", "do", "die"}:
        return None
    return Made(rebuild(doc, {found[0].i: f"does not {bases[0]}"}), "negation:headline_do_support")


def _headline_passive_on_noun(doc) -> Made | None:
    """ "Palestinian diplomat injured in explosion" with "injured" hung on "diplomat": a reduced passive."""
    root = next(t for t in doc if t.dep_ == "ROOT")
    caption = doc[-1].text == "."  # a caption: "A blue bird perched on a hand."
    if not (headline(doc) or caption) or root.tag_ not in ("NN", "NNS", "NNP", "NNPS"):
        return None
    verb = next((c for c in kids(root, "acl") if c.tag_ == "VBN"), None)
    if verb is None or not verb.is_lower or verb.lower_ not in verb_forms(verb):
        return None
    act = caption and verb.lower_ not in words("state_participles")  # "A man sliced through the bottles."
    if act or verb.i != root.i + 1 and not _phrase_between(root, verb):
        return None
    counted = words("plural_scales") | words("scope_quantifiers")
    if any(t.tag_ not in _SUBJECT_TAGS | {"IN", "NNPS"} or t.like_num or t.lower_ in counted for t in doc[: verb.i]):
        return None
    if verb_base(verb) in words("no_passive_verbs") | saying("claim") or verb.lower_ in words("move_adverbs"):
        return None
    after = any(m.start > verb.i for m in matches(doc, "negation.headline_passive"))
    marks = any(t.is_punct and t.tag_ not in ("HYPH", "``", "''") for t in doc[: len(doc) - caption])  # "Agribusiness:"
    if after or marks or verb.i in roots(doc, "negation.headline_passive"):  # marks: a second clause or a label
        return None
    return Made(rebuild(doc, {verb.i: f"not {verb.text}"}), "negation:headline_passive")


def _headline_verb(doc, verb) -> bool:
    """A singular noun phrase before ``verb`` (not "North Korea test fires") and an object with no verb after it."""
    last, after = doc[verb.i - 1], doc[verb.i + 1 :]
    lemmas = getAllLemmas(last.lower_)
    name = last.text[:1].isupper() and (last.tag_ == "NNP" or last.tag_ == "JJ" and "ADJ" not in lemmas)
    name &= last.text not in words("nationalities") | words("peoples")  # "Syrian rebels skeptical": an adjective
    plain = last.tag_ == "NN" and last.is_lower and last.lower_ not in lemmas.get("VERB", ())
    if not (name or plain) or any(t.tag_ not in ("DT", "CD", "JJ", "NN", "NNP", "HYPH", "POS") for t in doc[: verb.i]):
        return False
    first = after[0]
    opens = first.tag_ in ("DT", "PRP$", "CD") or first.text[:1].isupper()  # "Snowden thanks Russia"
    objects = {"DT", "PRP$", "CD", "JJ", "JJR", "JJS", "NN", "NNS", "NNP", "NNPS", "HYPH", "POS", "IN", "CC"}  # tags
    opens |= first.tag_ in objects - {"IN", "CC", "HYPH", "POS"} and "VERB" not in getAllLemmas(first.lower_)
    if not opens or any(t.tag_ not in objects for t in after):  # "Bailout terms prompt run": a verb
        return False
    head = next((t for t in after if t.tag_ not in ("JJ", "JJR", "JJS", "HYPH", "CD", "DT", "PRP$")), None)
    if head is None or head.tag_ not in ("NN", "NNS", "NNP", "NNPS"):
        return False  # an adjective with no noun: "stocks higher at midday" is no object
    return not any(t.tag_ == "NNS" and verb_bases(t.lower_, "VBZ") and not noun_phrase_head(doc, t) for t in after)


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
    if matches(doc, "hedging.caption_not_plain") or any(t.pos_ in ("VERB", "AUX") and t.i > participle.i for t in doc):
        raise Refuse("hedging.caption_not_plain")
    return Made(rebuild(doc, {participle.i: f"may be {participle.text}"}), "hedging:add_may_progressive")


def entity_swap_caption(doc, ctx=None) -> Made:
    """ "A woman slicing an onion." -> "An onion slicing a woman." (articles go with their nouns)."""
    subject, participle = _caption_parts(doc)
    if participle.lemma_.lower() in words("symmetric_verbs"):
        raise Refuse("entity_swap.symmetric_verb")
    obj = next(iter(kids(participle, "dobj")), None)
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
    out = phrase(thing, first=True) + subject[-1].whitespace_ + doc[subject.end : thing.start].text_with_ws
    out += phrase(subject, first=False) + thing[-1].whitespace_ + doc[thing.end :].text_with_ws
    return Made(out.strip(), "entity_swap:caption")
