"""Parts of a sentence that presuppose its claim: a not added to the claim would contradict them
("Along with Intel, the companies do not include ...", "was not taken to X, where he later died")."""

from __future__ import annotations

from pairbench.generated_suites.edits import has_subject, headline
from pairbench.generated_suites.lexicon import saying, words
from pairbench.generated_suites.patterns import matches

AMOUNT_TYPES = ("MONEY", "CARDINAL", "PERCENT", "QUANTITY")


def presupposed(doc, root, negs) -> str | None:
    """Why the rest of the sentence would contradict a not added to (or removed from) the claim."""
    if negs:
        return "negation.polarity_phrase" if matches(doc, "negation.polarity_phrase") else None
    if matches(doc, "negation.presupposing_phrase"):
        return "negation.presupposing_phrase"
    if _presupposing_comment(doc, root):
        return "negation.presupposing_comment"
    if headline(doc) and any(t.text in ("-", "--", "–") and doc[t.i - 1].whitespace_ for t in doc[root.i + 1 :]):
        return "negation.headline_dash"
    if any(t.lower_ in ("yes", "yeah") for t in doc):
        return "negation.emphatic_yes"
    if any(t.lower_ == "because" for t in doc[root.i :]):
        return "negation.because_clause"
    later = [c for c in root.children if c.dep_ == "conj" and not has_subject(c)]
    timed = later and _timed(root, later[0].i) and any(_timed(c, len(doc), True) for c in later)
    if timed or any(g.dep_ == "advmod" and g.lower_ in words("consequence_adverbs") for c in later for g in c.children):
        # "escaped and is now sought", "arrived on Monday and was unpacked by noon"
        return "negation.coordinated_clause"
    joined = any(c.dep_ == "conj" and c.i > root.i for c in root.children)
    text = " ".join(t.lower_ for t in doc if not t.is_punct)
    since = any(text == e or text.endswith(" " + e) for e in words("since_endings"))
    if joined and since:  # "bought the watch and has worn it every day since"
        return "negation.coordinated_clause"
    after = [t for t in doc[root.i + 2 :] if doc[t.i - 1].text == "," and t.lower_ not in words("linking_participles")]
    if any(t.tag_ == "VBG" or t.tag_ == "VBN" and t.head == root for t in after):  # ", making X", ", helped by Y"
        return "negation.participle_clause"
    if doc[0].lower_ == "also" or any(t.dep_ == "mark" and t.lower_ == "as" and t.head.i > root.i for t in doc):
        return "negation.also_or_as"
    wheres = [t for t in doc[root.i + 1 :] if t.lower_ == "where" and doc[t.i - 1].text == ","]
    if any(u.lower_ in words("later_event_words") for t in wheres for u in doc[t.i :]):
        return "negation.where_later"
    if any(but_refers_back(root, c) for c in root.children if c.dep_ == "conj" and c.i > root.i):
        return "negation.but_refers_back"
    return "negation.contrast_clause" if contrasted(root) else None


def contrasted(root) -> bool:
    """A verb or clause set against the claim's by a contrast word ("charges fast but overheats")."""
    contrast, doc = words("contrast_words"), root.doc
    cc = [c for c in root.children if c.dep_ in ("cc", "advmod") and c.lower_ in contrast and c.i > root.i]
    if any(c.dep_ == "conj" and c.i > b.i for b in cc for c in root.children if b.dep_ == "cc"):
        return True
    if any(b.dep_ == "advmod" and b.i + 1 < len(doc) and doc[b.i + 1].tag_ in ("VBZ", "VBD", "VBP", "NNS") for b in cc):
        return True  # "starts easily yet stalls on hills", its second verb parsed as an object
    clauses = [c for c in root.children if c.dep_ in ("advcl", "conj") and c.i > root.i]
    marks = [m for c in clauses for m in c.children if m.dep_ in ("mark", "cc", "advmod") and m.lower_ in contrast]
    return any(m.lower_ != "while" or doc[m.i - 1].text == "," for m in marks)  # "dies while riding": a time


def _presupposing_comment(doc, root) -> bool:
    """A comment after a comma that asserts the claim happened or measures it (", a record", ", longer than
    any before", ", which was longer than ...")."""
    comments = words("presupposing_comments")
    for comma in (t for t in doc[root.i + 1 :] if t.text == "," and t.i + 1 < len(doc)):
        rest = doc[comma.i + 1 : comma.i + 5]
        if any(" ".join(t.lower_ for t in rest[:n]) in comments for n in (2, 3)):
            return True
        compared = rest[0].tag_ in ("JJR", "RBR") and "than" in [t.lower_ for t in rest[1:]]
        if compared or rest[0].lower_ == "the" and len(rest) > 1 and rest[1].tag_ in ("JJS", "RBS"):
            return True  # ", longer than any before", ", the highest since 2001": the comment measures the claim
        which, verb = rest[0], rest[0].head
        that_is = which.lower_ == "that" and len(rest) > 1 and rest[1].lemma_ == "be"
        if (which.lower_ == "which" or that_is) and _measured(doc[root.i + 1 : comma.i], root):
            return True  # "cost 300 dollars, which was twice the quote", however the parse hangs the which
        if which.lower_ != "which" or verb.dep_ != "relcl" or verb.lemma_ != "be":
            continue
        owner = verb.head
        amount = owner.head == root and (owner.like_num or any(c.dep_ == "nummod" for c in owner.children))
        if owner == root or amount:
            return True
    return False


def _measured(span, root) -> bool:
    """A number, amount, price or count in the claim's verb phrase (``span``: after the verb, before a comma)."""
    return any((t.like_num or t.ent_type_ in AMOUNT_TYPES) and root in t.ancestors for t in span)


def _timed(verb, end, after=False) -> bool:
    """A time of the verb's own before ``end`` (on Monday, at nine; ``after``: by noon, the next day)."""
    own = [c for c in verb.children if c.dep_ in ("npadvmod", "advmod", "acomp", "prep", "agent")]
    preps, times = words("time_after_prepositions") if after else (), words("event_time_nouns")
    near = [t for c in own if not preps or c.dep_ not in ("prep", "agent") or c.lower_ in preps for t in c.subtree]
    hits = [
        t for t in near if t.ent_type_ in ("DATE", "TIME") or t.lower_ in times or t.like_num and t.head.lower_ == "at"
    ]
    return any(t.i < end for t in hits)


def but_refers_back(root, conj) -> bool:
    """ "X found a bone, but it turned out ...": the later clause's pronoun is the claim's object."""
    but = any(t.lower_ == "but" and t.dep_ == "cc" for t in conj.doc[root.i + 1 : conj.i])
    return but and any(c.dep_ in ("nsubj", "nsubjpass") and c.lower_ in words("back_pointing") for c in conj.children)


def _clause_verb(t) -> bool:
    """A verb that makes a clause of its own: finite, or with an auxiliary ("had reached", not "to repeat")."""
    finite = t.tag_ in ("VBD", "VBZ", "VBP") or any(a.dep_ in ("aux", "auxpass") and a.tag_ != "TO" for a in t.children)
    return finite and t.pos_ in ("VERB", "AUX") and t.dep_ not in ("aux", "auxpass", "amod", "compound")


def framed(doc, root) -> str | None:
    """Why a change of the clause would miss its claim: the claim is framed elsewhere, or the parse is wrong."""
    children = list(root.children)
    claims = [c for c in children if c.dep_ == "dobj" and c.lemma_.lower() in words("claim_nouns")]
    if any(g.dep_ in ("acl", "relcl", "ccomp") for c in claims for g in c.children):
        return "hedging.claim_noun_clause"
    framing = root.lemma_.lower() in words("framing_verbs")
    if framing and any(c.dep_ == "ccomp" or c.dep_ == "nsubj" and c.lower_ == "it" for c in children):
        return "hedging.feeling_frame"
    colon = max((t.i for t in doc[: root.i] if t.text == ":"), default=None)
    if colon is not None and any(_clause_verb(t) and t.lemma_.lower() not in saying("claim") for t in doc[:colon]):
        return "hedging.colon_claim"
    bare_past = root.tag_ == "VBD" and not any(a.dep_ in ("aux", "auxpass") for a in children)
    for c in children:
        if c.dep_ in ("advcl", "xcomp") and c.lower_ in words("saying_participles"):
            return "hedging.saying_participle"
        if bare_past and c.dep_ in ("xcomp", "conj") and any(a.tag_ == "MD" for a in c.children) and not has_subject(c):
            return "hedging.participle_as_verb"
        marks = {m.lower_ for m in c.children if m.dep_ in ("mark", "nsubj")}
        if c.dep_ == "advcl" and "as" in marks and marks & words("personal_pronouns"):
            return "hedging.as_clause"
        # "A girl playing is ...": a common noun before an -ing word (not "FBI bugging", "Lessing")
        nouns = [g for g in c.children if g.dep_ == "compound" and g.pos_ == "NOUN"]
        if c.dep_ in ("nsubj", "nsubjpass") and c.tag_ == "NN" and c.lower_.endswith("ing") and nouns:
            return "hedging.participle_subject"
    return None
