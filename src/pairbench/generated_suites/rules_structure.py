"""Structure rules: entity_swap (two arguments exchanged) and near_miss (one entity replaced)."""

from __future__ import annotations

from pairbench.generated_suites.edits import Made, Refuse, finite_verb, single_clause

# Verbs whose two arguments can be exchanged without changing the meaning.
SYMMETRIC = {"meet", "marry", "resemble", "equal", "match", "date", "fight", "hug", "kiss", "battle", "wrestle"}
_PRONOUN_TAGS = ("PRP", "PRP$", "WP", "WDT", "EX")
_SPAN_OK = {"det", "amod", "compound", "poss", "nummod", "case", "nmod", "quantmod", "punct"}


def _argument(token):
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
    return token.doc[span[0].i : span[-1].i + 1]


def _plural(token) -> bool:
    return token.tag_ in ("NNS", "NNPS")


def _phrase(span, *, first: bool) -> str:
    """The argument's words; a leading determiner takes the case of its new position."""
    words = [t.text_with_ws for t in span]
    if span[0].tag_ == "DT":
        words[0] = words[0][:1].lower() + words[0][1:]
    text = "".join(words).rstrip()
    return text[:1].upper() + text[1:] if first and span.doc.text[:1].isupper() else text


def entity_swap(doc, ctx=None) -> Made:
    root = single_clause(doc)
    finite_verb(root)  # a finite main clause: headlines and fragments parse too loosely
    if root.lemma_.lower() in SYMMETRIC:
        raise Refuse("symmetric verb (meet, marry, ...)")
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
    a, b = _argument(subj), _argument(obj)
    if _plural(subj) != _plural(obj):
        raise Refuse("arguments differ in number (the verb would disagree)")
    if a.text.lower() == b.text.lower():
        raise Refuse("identical arguments")
    tokens = [t.text_with_ws for t in doc]
    tail_a, tail_b = a[-1].whitespace_, b[-1].whitespace_
    out = "".join(tokens[: a.start]) + _phrase(b, first=a.start == 0) + tail_a
    out += "".join(tokens[a.end : b.start]) + _phrase(a, first=False) + tail_b + "".join(tokens[b.end :])
    return Made(out.strip(), rule)


ENTITY_TYPES = ("PERSON", "GPE", "ORG", "NORP", "LOC", "FAC", "PRODUCT", "EVENT", "LANGUAGE", "CARDINAL", "MONEY", "PERCENT")


_NUMERIC_TYPES = ("CARDINAL", "MONEY", "PERCENT")


def well_formed(ent) -> bool:
    """An entity the parser is likely right about: a name in capitals (at most four words), or a
    number of one or two tokens."""
    if ent.label_ in _NUMERIC_TYPES:
        return len(ent) <= 2 and any(t.like_num for t in ent)
    words = [t for t in ent if t.is_alpha]
    return 0 < len(ent) <= 4 and len(words) == len(ent) and all(t.text[:1].isupper() for t in words)


def entity_inventory(docs) -> dict[str, list[str]]:
    """The well-formed entity texts seen as that type in at least two anchors, sorted per type
    (the replacement pool of near_miss)."""
    counts: dict[tuple[str, str], int] = {}
    for doc in docs:
        for key in {(e.label_, e.text) for e in doc.ents if e.label_ in ENTITY_TYPES and well_formed(e)}:
            counts[key] = counts.get(key, 0) + 1
    pool: dict[str, list[str]] = {}
    for (label, text), n in sorted(counts.items()):
        if n >= 2:
            pool.setdefault(label, []).append(text)
    return pool


def same_number_form(old: str, new: str) -> bool:
    """A number is replaced only by one written the same way (digits or words) and of the same
    grammatical number ("one" or "1" against any other), so the sentence keeps its agreement."""
    def has_digits(text):
        return any(c.isdigit() for c in text)

    def is_one(text):
        return text.strip().lower() in ("1", "one")

    return has_digits(old) == has_digits(new) and is_one(old) == is_one(new)


def near_miss(doc, ctx) -> Made:
    """One named entity (or number) replaced by another of its type from the corpus."""
    ents = [e for e in doc.ents if e.label_ in ENTITY_TYPES]
    if not ents:
        raise Refuse("no named entity or number")
    ents = [e for e in ents if well_formed(e)]
    if not ents:
        raise Refuse("entity not in capitals or too long (the tagger may be wrong)")
    for ent in ents:
        pool = [
            t for t in ctx.entities.get(ent.label_, [])
            if t.lower() != ent.text.lower() and t.lower() not in doc.text.lower()
            and (ent.label_ not in _NUMERIC_TYPES or same_number_form(ent.text, t))
        ]
        if not pool:
            continue
        new = pool[int(ctx.rng.integers(len(pool)))]
        if ent.start == 0 and not ent.text[:1].isupper():
            new = new[:1].lower() + new[1:]
        text = doc.text[: ent.start_char] + new + doc.text[ent.end_char :]
        return Made(text, f"near_miss:{ent.label_.lower()}")
    raise Refuse("no other entity of the same type in the corpus")
