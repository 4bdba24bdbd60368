"""Structure rule: entity_swap (two arguments exchanged, the auxiliary between them re-agreed)."""

from __future__ import annotations

from pairbench.generated_suites.edits import (
    NAMED_TYPES,
    Made,
    Refuse,
    finite_verb,
    headline_plan,
    match_case,
    single_clause,
)

# Verbs whose two arguments can be exchanged without changing the meaning.
SYMMETRIC = {"meet", "marry", "resemble", "equal", "match", "date", "fight", "hug", "kiss", "battle", "wrestle"}
# Verbs that make idioms with a bare noun (take office, make sense, catch fire, hold power).
LIGHT_VERBS = {
    "take",
    "make",
    "have",
    "give",
    "do",
    "hold",
    "keep",
    "lose",
    "set",
    "pay",
    "catch",
    "gain",
    "seek",
    "win",
    "claim",
    "cut",
    "change",
}
_PRONOUN_TAGS = ("PRP", "PRP$", "WP", "WDT", "EX")
_SPAN_OK = {"det", "amod", "compound", "poss", "nummod", "case", "nmod", "quantmod", "punct"}


def argument(token):
    """The contiguous noun phrase of an argument (determiner, modifiers, head), or refuse."""
    if token.tag_ in _PRONOUN_TAGS or token.pos_ == "PRON":
        raise Refuse("pronoun argument (case would change)")
    if token.pos_ not in ("NOUN", "PROPN"):
        raise Refuse("argument is not a noun phrase")
    span = list(token.subtree)
    if any(t.tag_ in _PRONOUN_TAGS for t in span):
        raise Refuse("pronoun in an argument (its, their, ...)")
    if any(not (t.text.replace("-", "").replace(".", "").isalnum() or t.text in ("'s", "'")) for t in span):
        raise Refuse("argument with symbols or markup")
    if any(t.dep_ not in _SPAN_OK and t.i != token.i for t in span):
        raise Refuse("argument with a clause, coordination or prepositional phrase")
    if span[-1].i - span[0].i + 1 != len(span) or span[-1].i != token.i:
        raise Refuse("argument is not a simple contiguous noun phrase")
    if span[0].lower_ in ("a", "an") and token.tag_ in ("NNS", "NNPS"):
        raise Refuse("a before a plural (a young men: the source disagrees with itself)")
    doc = token.doc
    if token.i + 2 < len(doc) and doc[token.i + 1].text == "," and doc[token.i + 2].tag_ in ("NN", "NNS"):
        raise Refuse("argument followed by a comma and a noun (liquids, gels: a list the parse missed)")
    before = doc[span[0].i - 1] if span[0].i > 0 else None
    after = doc[token.i + 1] if token.i + 1 < len(doc) else None
    if (before is not None and before.whitespace_ == "" and (before.is_alpha or before.text == "-")) or (
        token.whitespace_ == "" and after is not None and (after.is_alpha or after.text == "-")
    ):
        raise Refuse("argument glued to a neighbouring word (re-election)")
    return doc[span[0].i : span[-1].i + 1]


def _number_unsure(token) -> bool:
    """A countable noun whose plural is its singular (shrimp, fish, sheep) with no determiner or
    "some": as a subject its number, and so its verb's, is a guess."""
    dets = {c.lower_ for c in token.children if c.dep_ == "det"}
    counted = any(c.dep_ == "nummod" for c in token.children)
    return token.lower_ in ZERO_PLURAL and dets <= {"some"} and not counted


# Countable nouns whose plural is the singular.
ZERO_PLURAL = {"shrimp", "fish", "sheep", "deer", "salmon", "trout", "cod", "squid", "moose", "bison", "aircraft"}


def plural(token) -> bool:
    return token.tag_ in ("NNS", "NNPS")


def phrase(span, *, first: bool) -> str:
    """The argument's words; a leading determiner takes the case of its new position."""
    words = [t.text_with_ws for t in span]
    named = span[0].ent_type_ in NAMED_TYPES  # "Thai political protests": a name keeps its capital
    if span[0].tag_ == "DT" or span[0].pos_ != "PROPN" and not span[0].text.isupper() and not named:
        words[0] = words[0][:1].lower() + words[0][1:]
    text = "".join(words).rstrip()
    return text[:1].upper() + text[1:] if first and span.doc.text[:1].isupper() else text


def entity_swap(doc, ctx=None) -> Made:
    root = single_clause(doc)
    plan = headline_plan(doc, root)  # "Abbas to lead X" -> "X to lead Abbas": an infinitive agrees with no one
    if plan is None:
        finite_verb(root)  # a finite main clause: headlines and fragments parse too loosely
    if root.lemma_.lower() in SYMMETRIC:
        raise Refuse("symmetric verb (meet, marry, ...)")
    if (root.i + 1 < len(doc) and not root.whitespace_ and doc[root.i + 1].text == "-") or (
        root.i > 0 and doc[root.i - 1].text == "-" and not doc[root.i - 1].whitespace_
    ):
        raise Refuse("verb glued to a neighbour by a hyphen (bans carry-on liquids: a modifier, not the verb)")
    subj = next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subj is None:
        raise Refuse("no subject")
    if subj.dep_ == "nsubj":
        obj = next((c for c in root.children if c.dep_ == "dobj"), None)
        rule = "entity_swap:subject_object"
    else:
        agent = next((c for c in root.children if c.dep_ == "agent"), None)
        obj = next((c for c in agent.children if c.dep_ == "pobj"), None) if agent is not None else None
        rule = "entity_swap:passive_agent"
    if obj is None:
        raise Refuse("no second argument (object or by-agent)")
    if obj.ent_type_ in ("DATE", "TIME"):
        raise Refuse("object is a time expression")
    if (
        obj.dep_ == "dobj"
        and obj.tag_ == "NN"
        and root.lemma_.lower() in LIGHT_VERBS
        and not any(c.dep_ in ("det", "poss", "nummod", "compound", "amod") for c in obj.children)
    ):
        raise Refuse("bare noun object (takes office, takes part: an idiom, not a participant)")
    if root.lemma_ == "play" and obj.tag_ == "NN" and not any(c.dep_ in ("det", "poss") for c in obj.children):
        raise Refuse("bare instrument or game after play (playing guitar: Guitar is playing reads as broken)")
    if any(c.dep_ == "xcomp" and c.i > obj.i for c in root.children):
        raise Refuse("object with a complement after it (sets high bar to change: it goes with the object)")
    a, b = argument(subj), argument(obj)
    if a.start > 0 and doc[a.start - 1].text == ":" and a[0].text[:1].isupper():
        raise Refuse("a capitalised subject after a colon (Sheriff: Man recovers: a headline's capital or a name's?)")
    if plan is None and _number_unsure(obj):
        raise Refuse("a noun of one form for both numbers moved to the subject (Some shrimp is brushing: is or are?)")
    if any(t.dep_ == "amod" and any(n.dep_ == "nummod" and n.i > t.i for n in span) for span in (a, b) for t in span):
        raise Refuse("an adjective before a count (shot dead 30 miners: it goes with the verb)")
    names_in_s = any(
        (t.tag_ in ("NNP", "NNPS") or t.text[:1].isupper() and t.i > 0) and t.lower_.endswith("s") for t in (subj, obj)
    )
    if names_in_s and plan is None:  # an infinitive agrees with neither
        raise Refuse("proper noun ending in s (its number is unsure: Homs, Lucent Technologies)")
    words_a, words_b = ({t.lower_ for t in span if t.is_alpha and not t.is_stop} for span in (a, b))
    if words_a <= words_b or words_b <= words_a:  # "a toy train ... a toy car" keeps two participants
        raise Refuse("arguments share a word (myanmar government ... myanmar)")
    tokens = [t.text_with_ws for t in doc]
    if plan is not None:
        rule = "entity_swap:headline_plan"
    elif plural(subj) != plural(obj):
        aux = _agreeing_auxiliary(root, a, b)
        tokens[aux.i] = match_case(AGREEMENT[aux.lower_], aux.text) + aux.whitespace_
        rule = AGREED_RULES[rule]
    if a.text.lower() == b.text.lower():
        raise Refuse("identical arguments")
    tail_a, tail_b = a[-1].whitespace_, b[-1].whitespace_
    out = "".join(tokens[: a.start]) + phrase(b, first=a.start == 0) + tail_a
    out += "".join(tokens[a.end : b.start]) + phrase(a, first=False) + tail_b + "".join(tokens[b.end :])
    return Made(out.strip(), rule)


# An auxiliary and its form for a subject of the other number: the one verb form a swap of a
# singular and a plural argument changes ("A man is lifting weights" -> "Weights are lifting a man").
AGREEMENT = {"is": "are", "are": "is", "was": "were", "were": "was", "has": "have", "have": "has"}
AGREED_RULES = {
    "entity_swap:subject_object": "entity_swap:subject_object_agreement",
    "entity_swap:passive_agent": "entity_swap:passive_agent_agreement",
}
_IRREGULAR_PLURALS = {"men", "women", "people", "children", "mice", "geese", "feet", "teeth", "police"}


def _agreeing_auxiliary(root, a, b):
    """The auxiliary between the two arguments that a swap of a singular and a plural re-agrees
    ("is" -> "are"), or refuse: a verb without one, a sentence longer than a caption of one verb
    (12 tokens, no comma, no coordinated verb), or a plural without a plural's form (a tagger may
    tag "broccoli" a plural)."""
    doc = root.doc
    aux = next((c for c in root.children if c.dep_ in ("aux", "auxpass") and c.lower_ in AGREEMENT), None)
    if aux is None or not a.end <= aux.i < b.start:
        raise Refuse("arguments differ in number (the verb would disagree)")
    if len(doc) > 12 or any(t.dep_ == "conj" and t.pos_ in ("VERB", "AUX") or t.text in (",", ";") for t in doc):
        raise Refuse("arguments differ in number, in a sentence longer than a caption (one verb form re-agreed)")
    for span in (a, b):
        head = span.root
        if plural(head) and not (head.lower_.endswith("s") or head.lower_ in _IRREGULAR_PLURALS):
            raise Refuse("arguments differ in number (the verb would disagree)")
    return aux
