"""Structure rule: entity_swap (two arguments exchanged, the auxiliary between them re-agreed)."""

from __future__ import annotations

from pairbench.generated_suites.edits import (
    Made,
    Refuse,
    finite_verb,
    headline,
    headline_plan,
    match_case,
    single_clause,
)
from pairbench.generated_suites.lexicon import table, words
from pairbench.generated_suites.patterns import dep_matches, matches

_PRONOUN_TAGS = ("PRP", "PRP$", "WP", "WDT", "EX")
_SPAN_OK = {"det", "amod", "compound", "poss", "nummod", "case", "nmod", "quantmod", "punct"}


def argument(token):
    """The contiguous noun phrase of an argument (determiner, modifiers, head), or refuse."""
    if token.tag_ in _PRONOUN_TAGS or token.pos_ == "PRON":
        raise Refuse("entity_swap.pronoun_argument")
    if token.pos_ not in ("NOUN", "PROPN"):
        raise Refuse("entity_swap.not_a_noun_phrase")
    span, doc = list(token.subtree), token.doc
    speaker = [t for t in span if t.tag_ == "PRP$" and t.lower_ not in words("third_person_pronouns")]  # my, our
    if any(t.tag_ in _PRONOUN_TAGS and t not in speaker for t in span):
        raise Refuse("entity_swap.pronoun_in_argument")
    inner = {m[1] for m in matches(doc, "entity_swap.symbols_in_argument")}  # its pattern: a hyphen inside a word
    if not all(t.text.replace("-", "").replace(".", "").isalnum() or t.text in ("'s", "'") or t in inner for t in span):
        raise Refuse("entity_swap.symbols_in_argument")
    of_phrase = {t for m in dep_matches(doc, "entity_swap.complex_argument") if m[0] == token for t in m[1:]}
    of_phrase = set() if token.lower_ in words("share_nouns") else of_phrase  # a lot of ducks: see the pattern
    if any(t.dep_ not in _SPAN_OK and t.i != token.i and t not in of_phrase for t in span):
        raise Refuse("entity_swap.complex_argument")
    end = span[-1]  # the head, or the object of its "of" (a piece of paper, the mayor of Chicago)
    if end.i - span[0].i + 1 != len(span) or end.i != token.i and not (end.dep_ == "pobj" and end in of_phrase):
        raise Refuse("entity_swap.discontiguous_argument")
    if span[0].lower_ in ("a", "an") and token.tag_ in ("NNS", "NNPS"):
        raise Refuse("entity_swap.a_before_plural")
    if any(m.start == end.i + 1 for m in matches(doc, "entity_swap.missed_list")):  # its pattern: a comma, a noun
        raise Refuse("entity_swap.missed_list")
    glued = {(m.start, len(m)) for m in matches(doc, "entity_swap.glued_argument")}  # its pattern: the word before
    if (span[0].i - 1, 1) in glued or (end.i, 2) in glued:  # or the argument's last word and the word after
        raise Refuse("entity_swap.glued_argument")
    return doc[span[0].i : end.i + 1]


def _number_unsure(token) -> bool:
    """A zero plural (fish, sheep) with no determiner but "some": its number is a guess."""
    dets = {c.lower_ for c in token.children if c.dep_ == "det"}
    counted = any(c.dep_ == "nummod" for c in token.children)
    return token.lower_ in words("zero_plurals") and dets <= {"some"} and not counted


def plural(token) -> bool:
    return token.tag_ in ("NNS", "NNPS")


def phrase(span, *, first: bool) -> str:
    """The argument's words; a leading determiner takes the case of its new position."""
    pieces = [t.text_with_ws for t in span]
    named = span[0].ent_type_ in words("named_types")  # "Thai political protests": a name keeps its capital
    if span[0].tag_ == "DT" or span[0].pos_ != "PROPN" and not span[0].text.isupper() and not named:
        pieces[0] = pieces[0][:1].lower() + pieces[0][1:]
    text = "".join(pieces).rstrip()
    return text[:1].upper() + text[1:] if first and span.doc.text[:1].isupper() else text


def entity_swap(doc, ctx=None) -> Made:
    root = single_clause(doc)
    plan = headline_plan(doc, root)  # "Abbas to lead X" -> "X to lead Abbas": an infinitive agrees with no one
    if plan is None:
        finite_verb(root)  # a finite main clause: headlines and fragments parse too loosely
    if root.lemma_.lower() in words("symmetric_verbs"):
        raise Refuse("entity_swap.symmetric_verb")
    if matches(doc, "entity_swap.hyphenated_verb"):  # its pattern: the root glued to a hyphen
        raise Refuse("entity_swap.hyphenated_verb")
    subj = next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subj is None:
        raise Refuse("entity_swap.no_subject")
    rule = "entity_swap:subject_object" if subj.dep_ == "nsubj" else "entity_swap:passive_agent"
    seconds = [m[-1] for m in dep_matches(doc, rule.replace(":", "."))]  # its pattern: the object or by-agent
    obj = min(seconds, key=lambda t: t.i, default=None)
    if obj is None:
        raise Refuse("entity_swap.no_second_argument")
    if obj.ent_type_ in ("DATE", "TIME"):
        raise Refuse("entity_swap.time_object")
    bare = obj.tag_ == "NN" and not any(c.dep_ in ("det", "poss", "nummod", "compound", "amod") for c in obj.children)
    if bare and obj.dep_ == "dobj" and root.lemma_.lower() in words("light_verbs"):
        raise Refuse("entity_swap.light_verb_idiom")
    if root.lemma_ == "play" and obj.tag_ == "NN" and not any(c.dep_ in ("det", "poss") for c in obj.children):
        raise Refuse("entity_swap.bare_object_of_play")
    if any(c.dep_ == "xcomp" and c.i > obj.i for c in root.children):
        raise Refuse("entity_swap.object_complement")
    if _second_verb_of_subject(root, obj):
        raise Refuse("entity_swap.subject_of_second_verb")
    a, b = argument(subj), argument(obj)
    if a.start > 0 and doc[a.start - 1].text == ":" and a[0].text[:1].isupper():
        raise Refuse("entity_swap.subject_after_colon")
    if plan is None and _number_unsure(obj):
        raise Refuse("entity_swap.zero_plural_object")
    if any(t.dep_ == "amod" and any(n.dep_ == "nummod" and n.i > t.i for n in span) for span in (a, b) for t in span):
        raise Refuse("entity_swap.adjective_before_count")
    names_in_s = any(
        (t.tag_ in ("NNP", "NNPS") or t.text[:1].isupper() and t.i > 0) and t.lower_.endswith("s") for t in (subj, obj)
    )
    if names_in_s and plan is None:  # an infinitive agrees with neither
        raise Refuse("entity_swap.proper_noun_in_s")
    words_a, words_b = ({t.lower_ for t in span if t.is_alpha and not t.is_stop} for span in (a, b))
    if words_a <= words_b or words_b <= words_a:  # "a toy train ... a toy car" keeps two participants
        raise Refuse("entity_swap.shared_word")
    if bare and obj.lower_ in words("fixed_bare_nouns"):
        raise Refuse("entity_swap.fixed_phrase")  # "will enter orbit", "encrypted by default": no participant
    headline = not any(c.dep_ in ("det", "poss") for c in subj.children)
    # "oil pipeline to the coast": a modified object keeps a phrase of direction (in China, after the vote: the event's)
    unmarked = obj.tag_ == "NN" and not any(c.dep_ in ("det", "poss", "nummod") for c in obj.children)
    towards = ("to", "into", "toward", "towards", "across", "between")
    stranded = [m for m in dep_matches(doc, "entity_swap.object_with_its_phrase") if m[0] == obj]
    if headline and any(bare or unmarked and m[1].lower_ in towards for m in stranded):
        raise Refuse("entity_swap.object_with_its_phrase")  # "approve pipeline to the coast": the phrase is its
    tokens = [t.text_with_ws for t in doc]
    if plan is not None:
        rule = "entity_swap:headline_plan"
    elif plural(subj) != plural(obj):
        aux = _agreeing_auxiliary(root, a, b)
        tokens[aux.i] = match_case(table("auxiliary_agreement")[aux.lower_], aux.text) + aux.whitespace_
        rule += "_agreement"  # entity_swap:subject_object_agreement, entity_swap:passive_agent_agreement
    tail_a, tail_b = a[-1].whitespace_, b[-1].whitespace_
    out = "".join(tokens[: a.start]) + phrase(b, first=a.start == 0) + tail_a
    out += "".join(tokens[a.end : b.start]) + phrase(a, first=False) + tail_b + "".join(tokens[b.end :])
    return Made(out.strip(), rule)


def _second_verb_of_subject(root, obj) -> bool:
    """A verb after the object whose unstated subject is the root's ("failed to take the city", "to force
    talks", "before leaving"): the swap would give it the object. A headline's comma-joined one stays."""
    doc = root.doc
    listed = headline(doc) and not any(c.dep_ == "cc" for c in root.children)
    for _, c, *pcomp in dep_matches(doc, "entity_swap.subject_of_second_verb"):  # its pattern: the verbs
        if c.i <= obj.i or c.dep_ == "prep" and c.lower_ not in words("subject_adverbials"):
            continue
        if listed and c.dep_ == "conj" and doc[c.i - 1].text == ",":
            continue
        if not any(k.dep_ in ("nsubj", "nsubjpass", "expl", "csubj") for k in (pcomp or [c])[0].children):
            return True
    return False


def _agreeing_auxiliary(root, a, b):
    """The auxiliary between the arguments that a swap of numbers re-agrees ("is" -> "are") in a caption."""
    doc = root.doc
    aux = next(
        (c for c in root.children if c.dep_ in ("aux", "auxpass") and c.lower_ in table("auxiliary_agreement")), None
    )
    if aux is None or not a.end <= aux.i < b.start:
        raise Refuse("entity_swap.number_disagrees")
    if len(doc) > 12 or any(t.dep_ == "conj" and t.pos_ in ("VERB", "AUX") or t.text in (",", ";") for t in doc):
        raise Refuse("entity_swap.agreement_beyond_caption")
    for span in (a, b):
        head = span.root
        if plural(head) and not (head.lower_.endswith("s") or head.lower_ in words("irregular_plurals")):
            raise Refuse("entity_swap.number_disagrees")
    return aux
