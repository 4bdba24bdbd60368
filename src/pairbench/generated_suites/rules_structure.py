"""Structure rule: entity_swap (two arguments exchanged, the auxiliary between them re-agreed)."""

from __future__ import annotations

from types import SimpleNamespace

from lemminflect import getInflection

from pairbench.generated_suites.edits import (
    Made,
    Refuse,
    finite_verb,
    headline,
    headline_plan,
    kids,
    match_case,
    single_clause,
)
from pairbench.generated_suites.lexicon import table, words
from pairbench.generated_suites.patterns import dep_matches, matches, rooted, starts

_SPAN_OK = {"det", "amod", "compound", "poss", "nummod", "case", "nmod", "quantmod", "punct"}


def _bare(token, marks=("det", "poss", "nummod", "compound", "amod")) -> bool:
    """A singular common noun with no child of ``marks`` (no determiner, count or modifier: "takes office")."""
    return token.tag_ == "NN" and not kids(token, *marks)


def argument(token):
    """The contiguous noun phrase of an argument (determiner, modifiers, head), or refuse."""
    if token.tag_ in ("PRP", "PRP$", "WP", "WDT", "EX") or token.pos_ == "PRON":
        raise Refuse("entity_swap.pronoun_argument")
    if token.pos_ not in ("NOUN", "PROPN"):
        raise Refuse("entity_swap.not_a_noun_phrase")
    span, doc = list(token.subtree), token.doc
    if starts(doc, "entity_swap.pronoun_in_argument") & {t.i for t in span}:  # its pattern
        raise Refuse("entity_swap.pronoun_in_argument")
    inner = {m[1] for m in matches(doc, "entity_swap.symbols_in_argument")}  # its pattern: a hyphen inside a word
    if not all(t.text.replace("-", "").replace(".", "").isalnum() or t.text in ("'s", "'") or t in inner for t in span):
        raise Refuse("entity_swap.symbols_in_argument")
    of_phrase = {t for m in rooted(doc, "entity_swap.complex_argument", token) for t in m[1:]}
    of_phrase = set() if token.lower_ in words("share_nouns") else of_phrase  # a lot of ducks: see the pattern
    if any(t.dep_ not in _SPAN_OK and t.i != token.i and t not in of_phrase for t in span):
        raise Refuse("entity_swap.complex_argument")
    end = span[-1]  # the head, or the object of its "of" (a piece of paper, the mayor of Chicago)
    if end.i - span[0].i + 1 != len(span) or end.i != token.i and not (end.dep_ == "pobj" and end in of_phrase):
        raise Refuse("entity_swap.discontiguous_argument")
    if span[0].lower_ in ("a", "an") and token.tag_ in ("NNS", "NNPS"):
        raise Refuse("entity_swap.a_before_plural")
    if end.i + 1 in starts(doc, "entity_swap.missed_list"):  # its pattern: a comma, a noun
        raise Refuse("entity_swap.missed_list")
    glued = {(m.start, len(m)) for m in matches(doc, "entity_swap.glued_argument")}  # its pattern: the word before
    if (span[0].i - 1, 1) in glued or (end.i, 2) in glued:  # or the argument's last word and the word after
        raise Refuse("entity_swap.glued_argument")
    return doc[span[0].i : end.i + 1]


def plural(token) -> bool:
    return token.tag_ in ("NNS", "NNPS")


def phrase(span, *, first: bool) -> str:
    """The argument's words; a leading determiner takes the case of its new position."""
    text, named = span.text, span[0].ent_type_ in words("named_types")  # "Thai political protests": a name's capital
    if span[0].tag_ == "DT" or span[0].pos_ != "PROPN" and not span[0].text.isupper() and not named:
        text = text[:1].lower() + text[1:]
    return text[:1].upper() + text[1:] if first and span.doc.text[:1].isupper() else text


# The refusals of the clause, before its arguments are read, in order: (id, test of ``s``, a SimpleNamespace)
_CLAUSE_REFUSALS = (
    ("entity_swap.symmetric_verb", lambda s: s.verb in words("symmetric_verbs")),
    ("entity_swap.hyphenated_verb", lambda s: bool(matches(s.root.doc, "entity_swap.hyphenated_verb"))),  # its pattern
    ("entity_swap.no_subject", lambda s: not s.subjects),
    ("entity_swap.two_subjects", lambda s: "," in [t.text for t in s.root.doc[s.subjects[0].i : s.subjects[-1].i]]),
    ("entity_swap.no_second_argument", lambda s: s.obj is None),
    ("entity_swap.time_object", lambda s: s.obj.ent_type_ in ("DATE", "TIME")),
    ("entity_swap.light_verb_idiom", lambda s: s.bare and s.obj.dep_ == "dobj" and s.verb in words("light_verbs")),
    ("entity_swap.bare_object_of_play", lambda s: s.root.lemma_ == "play" and _bare(s.obj, ("det", "poss"))),
    ("entity_swap.object_complement", lambda s: any(c.i > s.obj.i for c in kids(s.root, "xcomp"))),
    ("entity_swap.subject_of_second_verb", lambda s: _second_verb_of_subject(s.root, s.obj)),
)


def entity_swap(doc, ctx=None) -> Made:
    root = single_clause(doc)
    plan = headline_plan(doc, root)  # "Abbas to lead X" -> "X to lead Abbas": an infinitive agrees with no one
    if plan is None:
        finite_verb(root)  # a finite main clause: headlines and fragments parse too loosely
    subjects = kids(root, "nsubj", "nsubjpass")  # two with a comma between: "Boeing, three airlines sign ..."
    subj = next(iter(subjects), None)
    rule = "entity_swap:subject_object" if subj is None or subj.dep_ == "nsubj" else "entity_swap:passive_agent"
    seconds = [m[-1] for m in dep_matches(doc, rule.replace(":", "."))]  # its pattern: the object or by-agent
    obj = min(seconds, key=lambda t: t.i, default=None)
    s = SimpleNamespace(root=root, verb=root.lemma_.lower(), subjects=subjects, obj=obj, bare=obj and _bare(obj))
    for rid, test in _CLAUSE_REFUSALS:
        if test(s):
            raise Refuse(rid)
    a, b = argument(subj), argument(obj)
    if a.start > 0 and doc[a.start - 1].text == ":" and a[0].text[:1].isupper():
        raise Refuse("entity_swap.subject_after_colon")
    if any(t.lower_ in words("place_adverbs") for t in doc[a.end : root.i]):  # "The woman next door took in ..."
        raise Refuse("entity_swap.place_after_subject")  # the subject's place: it would stay behind
    dets = {c.lower_ for c in kids(obj, "det")} - {"some"}  # a zero plural (fish, sheep) with no determiner but some
    if plan is None and obj.lower_ in words("zero_plurals") and not dets and not kids(obj, "nummod"):
        raise Refuse("entity_swap.zero_plural_object")  # its number is a guess
    if any(t.dep_ == "amod" and any(n.dep_ == "nummod" and n.i > t.i for n in span) for span in (a, b) for t in span):
        raise Refuse("entity_swap.adjective_before_count")
    names = [t for t in (subj, obj) if t.tag_ in ("NNP", "NNPS") or t.text[:1].isupper() and t.i > 0]
    if plan is None and any(t.lower_.endswith("s") for t in names):  # an infinitive agrees with neither
        raise Refuse("entity_swap.proper_noun_in_s")
    units = words("body_units") | words("time_units")
    if any(kids(span.root, "nummod") and span.root.lower_ in units for span in (a, b)):
        raise Refuse("entity_swap.measure_argument")  # "lost 8 kilograms": a measure, no participant
    words_a, words_b = ({t.lower_ for t in span if t.is_alpha and not t.is_stop} for span in (a, b))
    if words_a <= words_b or words_b <= words_a:  # "a toy train ... a toy car" keeps two participants
        raise Refuse("entity_swap.shared_word")
    if s.bare and obj.lower_ in words("fixed_bare_nouns"):
        raise Refuse("entity_swap.fixed_phrase")  # "will enter orbit", "encrypted by default": no participant
    # "oil pipeline to the coast": a modified object keeps a phrase of direction (in China, after the vote: the event's)
    unmarked = _bare(obj, ("det", "poss", "nummod"))
    stranded = [m[1] for m in rooted(doc, "entity_swap.object_with_its_phrase", obj)]  # its pattern
    headline_subject = not kids(subj, "det", "poss")
    if headline_subject and any(s.bare or unmarked and p.lower_ in words("direction_prepositions") for p in stranded):
        raise Refuse("entity_swap.object_with_its_phrase")  # "approve pipeline to the coast": the phrase is its
    if not kids(obj, "det", "poss") and rooted(doc, "entity_swap.plural_object_with_its_phrase", obj):  # its pattern
        raise Refuse("entity_swap.plural_object_with_its_phrase")  # "bought shares in the company"
    tokens = [t.text_with_ws for t in doc]
    if plan is not None:
        rule = "entity_swap:headline_plan"
    elif plural(subj) != plural(obj) and (agreed := _agreement(root, a, b)) is not None:
        verb, form = agreed
        tokens[verb.i] = match_case(form, verb.text) + verb.whitespace_
        rule += "_agreement"  # entity_swap:subject_object_agreement, entity_swap:passive_agent_agreement
    out = "".join(tokens[: a.start]) + phrase(b, first=a.start == 0) + a[-1].whitespace_
    out += "".join(tokens[a.end : b.start]) + phrase(a, first=False) + b[-1].whitespace_ + "".join(tokens[b.end :])
    return Made(out.strip(), rule)


def _second_verb_of_subject(root, obj) -> bool:
    """A verb after the object whose unstated subject the swap would make the object ("failed to take the city")."""
    doc, listed = root.doc, headline(root.doc) and not kids(root, "cc")
    for _, c, *pcomp in dep_matches(doc, "entity_swap.subject_of_second_verb"):  # its pattern: the verbs
        comma_joined = listed and c.dep_ == "conj" and doc[c.i - 1].text == ","  # a headline's list stays
        if c.i > obj.i and not comma_joined and not kids((pcomp or [c])[0], "nsubj", "nsubjpass", "expl", "csubj"):
            return True
    return False


def _agreement(root, a, b):
    """In a caption, the verb between the arguments that re-agrees and its new form ("is" -> "are", "cuts" -> "cut")."""
    doc = root.doc
    auxiliaries = kids(root, "aux", "auxpass")  # a past or a modal agrees with neither: cut, will cut
    aux = next((c for c in auxiliaries if c.lower_ in table("auxiliary_agreement")), None)
    agrees_none = aux is None and (root.tag_ == "VBD" and not auxiliaries or any(c.tag_ == "MD" for c in auxiliaries))
    # the main verb's present of the other number: cuts -> cut, cut -> cuts
    forms = {"VBZ": root.lemma_.lower(), "VBP": next(iter(getInflection(root.lemma_, "VBZ")), None)}
    present = forms.get(root.tag_) if aux is None else None
    verb = aux if aux is not None else root if present or agrees_none else None
    if verb is None or not a.end <= verb.i < b.start or aux is None and headline(doc):  # a headline's tense is loose
        raise Refuse("entity_swap.number_disagrees")
    if len(doc) > 12 or any(t.dep_ == "conj" and t.pos_ in ("VERB", "AUX") or t.text in (",", ";") for t in doc):
        raise Refuse("entity_swap.agreement_beyond_caption")
    if any(plural(h) and h.lower_[-1] != "s" and h.lower_ not in words("irregular_plurals") for h in (a.root, b.root)):
        raise Refuse("entity_swap.number_disagrees")
    if agrees_none:
        return None
    return (aux, table("auxiliary_agreement")[aux.lower_]) if aux is not None else (root, present)
