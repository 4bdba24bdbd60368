"""Parts of a sentence that presuppose its claim: a not added to the claim would contradict them
("Along with Intel, the companies do not include ...", "was not taken to X, where he later died")."""

from __future__ import annotations

from pairbench.generated_suites.edits import REPORTING_VERBS, has_subject, headline

# Phrases a removed not leaves ungrammatical ("not really all that important", "not X so much as Y").
POLARITY_PHRASES = (" all that ", " so much as ", " much of a ", " in the least ", " one bit ", " a bit ")
# Phrases that say the claim also holds of something else, or refer back to it, or that it held
# against the odds: a not on the claim contradicts them ("Along with Intel, the companies do not
# include ...", "... but others refused to do so", "Protests do not sweep Brazil despite concession").
PRESUPPOSING = (
    " along with ",
    " as well as ",
    " in addition to ",
    " together with ",
    " besides ",
    " do so ",
    " only to ",
    " despite ",
    " in spite of ",
)
PRESUPPOSING += (
    " did so ",
    " does so ",
    " doing so ",
    " done so ",
    " , up from ",
    " , down from ",
    " , up again from ",
    " thanks to ",
    " , well above ",
    " , well below ",
)
# Words of a later event in a clause after the claim (", where he later died": it presupposes it).
LATER_EVENT = {"later", "then", "eventually", "subsequently"}
# Participles that attribute or list after a comma (according to, including, saying): no result.
LINKING_PARTICIPLES = {"according", "including", "excluding", "following", "regarding", "concerning", "depending"}
LINKING_PARTICIPLES |= {
    "citing",
    "saying",
    "adding",
    "noting",
    "arguing",
    "claiming",
    "calling",
    "beginning",
    "starting",
}
# Subjects of a later clause that point back at the claim's object ("but it turned out").
BACK_POINTING = {"it", "this", "that", "they", "figure", "number", "total", "toll", "count"}


def presupposed(doc, root, negs) -> str | None:
    """Why the rest of the sentence would contradict a not added to (or removed from) the claim."""
    text = " " + " ".join(t.lower_ for t in doc) + " "
    if negs and any(p in text for p in POLARITY_PHRASES):
        return "negative-polarity phrase (not all that, not X so much as Y) needs the not"
    if negs:
        return None
    if any(p in text for p in PRESUPPOSING):
        return "a phrase that presupposes the claim (along with, as well as, do so)"
    if headline(doc) and any(t.text in ("-", "--", "–") and doc[t.i - 1].whitespace_ for t in doc[root.i + 1 :]):
        return "a headline's part after a dash (- several casualties: it reports what the claim caused)"
    if any(t.lower_ in ("yes", "yeah") for t in doc):
        return "an emphatic yes (Yes, you can add; so yes - VIOLENT expansion: it affirms the claim)"
    if any(t.lower_ == "because" for t in doc[root.i :]):
        return "a because clause (not ... because Y: the scope of not is ambiguous)"
    if any(
        t.tag_ == "VBG" and doc[t.i - 1].text == "," and t.lower_ not in LINKING_PARTICIPLES for t in doc[root.i + 2 :]
    ):
        return "a participle clause after the claim (..., making X the fastest: it asserts a result)"
    if doc[0].lower_ == "also" or any(t.dep_ == "mark" and t.lower_ == "as" and t.head.i > root.i for t in doc):
        return "also or an as clause beside the claim (as they edged Colorado: it restates the claim)"
    if any(
        t.lower_ == "where" and doc[t.i - 1].text == "," and any(u.lower_ in LATER_EVENT for u in doc[t.i :])
        for t in doc[root.i + 1 :]
    ):
        return "a where clause of a later event (taken to X, where he later died: it presupposes the claim)"
    if any(but_refers_back(root, c) for c in root.children if c.dep_ == "conj" and c.i > root.i):
        return "a but clause about the claim's object (..., but it turned out to be: it presupposes the claim)"
    return None


def but_refers_back(root, conj) -> bool:
    """ "X found a bone, but it turned out ...": the later clause's pronoun is the claim's object."""
    but = any(t.lower_ == "but" and t.dep_ == "cc" for t in conj.doc[root.i + 1 : conj.i])
    return but and any(c.dep_ in ("nsubj", "nsubjpass") and c.lower_ in BACK_POINTING for c in conj.children)


# Nouns whose clause carries a claim ("reiterated its contention that X"): the verb only reports it.
CLAIM_NOUNS = {
    "contention", "claim", "assertion", "allegation", "argument", "belief", "view", "position",
    "statement", "insistence", "suggestion", "conclusion", "finding", "assessment", "prediction",
}  # fmt: skip
# Verbs that frame a claim as a feeling or an appearance ("I feel that X", "It appears that X").
FRAMING = {"feel", "know", "guess", "suppose", "reckon", "realize", "appear", "seem"}
# Participles of saying that restate a claim beside it ("agreed, saying: ...").
SAYING_PARTICIPLES = {"saying", "adding", "noting", "stating", "claiming", "arguing", "insisting", "explaining"}
PERSONAL = {"it", "he", "she", "they", "we", "i", "you"}


def _clause_verb(t) -> bool:
    """A verb that makes a clause of its own: finite, or with an auxiliary ("had reached", not "to repeat")."""
    finite = t.tag_ in ("VBD", "VBZ", "VBP") or any(a.dep_ in ("aux", "auxpass") and a.tag_ != "TO" for a in t.children)
    return finite and t.pos_ in ("VERB", "AUX") and t.dep_ not in ("aux", "auxpass", "amod", "compound")


def framed(doc, root) -> str | None:
    """Why a change of the clause would miss its claim, with or without a not: the claim sits in a
    noun's clause, after a colon, in a frame of feeling or appearance, in a participle of saying or
    a restating as clause; or the parse took a participle for the clause's verb or a typo for its
    subject ("A girl playing is a pile of balls", "A dog swimming with a stick in it's mouth")."""
    children = list(root.children)
    if any(
        c.dep_ == "dobj"
        and c.lemma_.lower() in CLAIM_NOUNS
        and any(g.dep_ in ("acl", "relcl", "ccomp") for g in c.children)
        for c in children
    ):
        return "the claim in a noun's clause (reiterated its contention that X: the change falls on the report)"
    if root.lemma_.lower() in FRAMING and any(
        c.dep_ == "ccomp" or c.dep_ == "nsubj" and c.lower_ == "it" for c in children
    ):
        return "a frame of feeling or appearance (I feel that, it appears that: the change falls on the frame)"
    colon = max((t.i for t in doc[: root.i] if t.text == ":"), default=None)
    if colon is not None and any(_clause_verb(t) and t.lemma_.lower() not in REPORTING_VERBS for t in doc[:colon]):
        return "a claim after a colon that explains an earlier clause (a difficult decision: It was time)"
    bare_past = root.tag_ == "VBD" and not any(a.dep_ in ("aux", "auxpass") for a in children)
    for c in children:
        if c.dep_ in ("advcl", "xcomp") and c.lower_ in SAYING_PARTICIPLES:
            return "a participle of saying beside the claim (agreed, saying: X: it restates the claim)"
        if bare_past and c.dep_ in ("xcomp", "conj") and any(a.tag_ == "MD" for a in c.children) and not has_subject(c):
            return "a participle read as the verb (Texans saddled with X might ...: the claim is the later verb)"
        marks = {m.lower_ for m in c.children if m.dep_ in ("mark", "nsubj")}
        if c.dep_ == "advcl" and "as" in marks and marks & PERSONAL:
            return "an as clause that restates the claim (won ... as they edged Colorado)"
        # "A girl playing is ...": a common noun before an -ing word (not "FBI bugging", "Lessing")
        nouns = [g for g in c.children if g.dep_ == "compound" and g.pos_ == "NOUN"]
        if c.dep_ in ("nsubj", "nsubjpass") and c.tag_ == "NN" and c.lower_.endswith("ing") and nouns:
            return "a caption's participle read as the subject (A girl playing is ...: the verb is a typo)"
    return None
