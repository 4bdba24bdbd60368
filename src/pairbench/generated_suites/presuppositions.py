"""Parts of a sentence that presuppose its claim: a not added to the claim would contradict them
("Along with Intel, the companies do not include ...", "was not taken to X, where he later died")."""

from __future__ import annotations

from pairbench.generated_suites.edits import headline

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
    if any(t.lower_ == "yes" for t in doc[root.i + 1 :]):
        return "an emphatic yes after the claim (so yes - VIOLENT expansion: it restates the claim)"
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
    but = any(c.lower_ == "but" and c.dep_ == "cc" and c.i < conj.i for c in root.children)
    return but and any(c.dep_ in ("nsubj", "nsubjpass") and c.lower_ in BACK_POINTING for c in conj.children)
