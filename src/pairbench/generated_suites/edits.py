"""Rebuilding a sentence from a spaCy Doc with a few token edits; shared refusal type."""

from __future__ import annotations

import re
from dataclasses import dataclass

from lemminflect import getAllLemmas, getInflection, getLemma

from pairbench.generated_suites.lexicon import saying, table
from pairbench.generated_suites.patterns import dep_matches, ends, matches, rooted, roots, starts
from pairbench.generated_suites.registry import reason


class Refuse(Exception):
    """A rule is not sure of its output: no pair. ``id``: a registry id, counted in the card."""

    def __init__(self, rid: str):
        super().__init__(rid)
        self.id = rid

    @property
    def reason(self) -> str:
        return reason(self.id)


@dataclass(frozen=True)
class Made:
    """A generated sentence and the rule (``category:variant``) that made it."""

    text: str
    rule: str


def match_case(new: str, old: str) -> str:
    """``new`` capitalised like ``old`` (first letter only)."""
    if len(old) > 1 and old.isupper():
        return new.upper()
    return new[:1].upper() + new[1:] if old[:1].isupper() else new


def rebuild(doc, replace: dict[int, str]) -> str:
    """The text of ``doc`` with token i replaced by ``replace[i]`` ("" deletes it)."""
    pieces = [[t.text, t.whitespace_] for t in doc]
    for i in sorted(replace, reverse=True):
        if replace[i] == "":
            if i > 0 and pieces[i - 1][1] == "":
                pieces[i - 1][1] = pieces[i][1]
            del pieces[i]
        else:
            pieces[i][0] = replace[i]
    text = "".join(t + ws for t, ws in pieces).strip()
    return text[:1].upper() + text[1:] if doc.text[:1].isupper() else text


def reads_title_case(rule):
    """Mark a rule that reads Title-Case headlines: ``generate.apply_rule`` refuses them for any other."""
    rule.reads_title_case = True
    return rule


def title_case(doc) -> bool:
    """A Title-Case (or all-capitals) headline, whose verbs the tagger takes for names ("EU Widen Sanctions"); not
    names before a verb in lower case, with no capitalised verb ("James Murdoch quits BSkyB")."""
    if "pairbench.title_case" in doc.user_data:  # asked of each doc by many rules: kept with it
        return doc.user_data["pairbench.title_case"]
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    names = root is not None and root.i > 0 and root.tag_.startswith("VB") and root.text[:1].islower()
    names = names and not any(t.text[:1].isupper() and t.tag_.startswith(("VB", "MD")) for t in doc[1:])
    named = {t.i for e in doc.ents for t in e}
    words = [t for t in doc[1:] if t.is_alpha and len(t) > 3]
    plain = [t for t in words if t.i not in named]
    capitals = len(words) >= 3 and all(t.text[:1].isupper() for t in words)
    capitals = capitals or len(plain) >= 2 and sum(t.text[:1].isupper() for t in plain) >= 0.5 * len(plain)
    doc.user_data["pairbench.title_case"] = title = not names and capitals
    return title


def claim_clause(doc):
    """The root, or the reported clause of a verb of saying ("Druce will face charges, Conte said")."""
    root = single_clause(doc)
    if not _saying_claim(root):
        return root
    reported = kids(root, "ccomp")
    if len(reported) != 1:
        if root.i in starts(doc, "anchor.saying_claim_missed"):
            raise Refuse("anchor.saying_claim_missed")
        if root.i in ends(doc, "anchor.reporting_clause_alone"):
            raise Refuse("anchor.reporting_clause_alone")
        return root
    clause = reported[0]
    if _saying_claim(clause):
        raise Refuse("anchor.report_of_report")
    if clause.pos_ not in ("VERB", "AUX") or not has_subject(clause):
        raise Refuse("anchor.reported_claim_verbless")
    return clause


def verb_lemmas(token) -> set[str]:
    """The parser's lemma and, for a verb's tag, lemminflect's (the parser reads "hopes" as a form of "hop")."""
    return {token.lemma_.lower(), *(getLemma(token.lower_, upos="VERB") if token.tag_.startswith("VB") else ())}


def _saying_claim(verb) -> bool:  # a verb of saying or attitude whose clause is the claim
    lemmas = verb_lemmas(verb)
    that = any(m.dep_ == "mark" and m.lower_ == "that" for c in kids(verb, "ccomp") for m in c.children)
    return bool(lemmas & saying("claim") or that and lemmas & saying("claim_that"))  # held, ruled: before a that


def kids(token, *deps) -> list:
    return [c for c in token.children if c.dep_ in deps]


def has_subject(verb) -> bool:
    """A subject of the verb's own (a noun, a passive's subject or an expletive there/it)."""
    return bool(kids(verb, "nsubj", "nsubjpass", "expl"))


def single_clause(doc):
    """The root of a one-sentence declarative clause with a subject, or refuse."""
    heads = [t for t in doc if t.dep_ == "ROOT"]
    if len(heads) != 1:
        raise Refuse("anchor.several_sentences")
    if doc.text.rstrip().endswith("?"):
        raise Refuse("anchor.question")
    root = heads[0]
    if matches(doc, "anchor.several_sentences"):  # "... kills himself The son of ...": a missed full stop
        raise Refuse("anchor.several_sentences")
    if root.pos_ not in ("VERB", "AUX"):
        raise Refuse("anchor.verbless_root")
    if not kids(root, "nsubj", "nsubjpass", "expl", "csubj"):
        raise Refuse("anchor.no_subject")
    return root


def clear_scope(doc, root) -> None:
    """Refuse a clause whose change would rest on a doubtful parse ("Rogers, Videotron extend reach")."""
    verb = min([c for c in kids(root, "aux", "auxpass") if c.i < root.i] + [root], key=lambda t: t.i)
    if verb.i in ends(doc, "anchor.two_verbs_in_a_row"):
        raise Refuse("anchor.two_verbs_in_a_row")
    if any(m[1] == root for m in dep_matches(doc, "anchor.unattached_finite_verb")):
        raise Refuse("anchor.unattached_finite_verb")
    if (headline(doc) or doc.text.islower()) and _noun_verb_doubt(doc, root, verb):
        raise Refuse("anchor.headline_verb_may_be_noun")
    if verb.i in ends(doc, "anchor.subordinator_before_verb"):
        raise Refuse("anchor.subordinator_before_verb")
    if any(subject_read_as_verb(s, verb) for s in kids(root, "nsubj")):
        raise Refuse("anchor.subject_read_as_verb")


def subject_read_as_verb(subject, verb) -> bool:
    """A plural subject after its noun, then a verb in -s it may be ("The service stores logs", logs the verb)."""
    shape = any(m[2] == verb for m in rooted(subject.doc, "anchor.subject_read_as_verb", subject))
    return shape and "VERB" in getAllLemmas(subject.lower_)  # "logs": lemminflect knows no noun


def headline(doc) -> bool:
    """A headline or caption without a full stop (its present tense reports past events)."""
    return not doc.text.rstrip().endswith((".", "!", '"', "'", "?"))


def scare_quoted(text: str) -> bool:
    """A span of one to six words in quotes ("North Korea 'postpones' reunions")."""
    return bool(re.search(r"(?:^|\s)['‘\"“](\w+(?:[ -]\w+){0,5})[,.!?]?['’\"”](?=[\s,.;:!?]|$)", text))


def headline_plan(doc, root):
    """The "to" of a headline's "X to VERB" ("Abbas to lead unity government"), not of "Stocks to watch", or None."""
    if not headline(doc) or title_case(doc) or root.tag_ not in ("VB", "VBN"):
        return None
    auxes = [c for c in kids(root, "aux", "auxpass") if c.i < root.i]
    forms = [a.lower_ for a in auxes]  # "to" or "to be", right before the verb
    if forms != (["to"] if root.tag_ == "VB" else ["to", "be"]) or auxes[0].i != root.i - len(auxes):
        return None
    subject = next((c for c in kids(root, "nsubj", "nsubjpass") if c.i < auxes[0].i), None)
    if subject is None or doc[auxes[0].i - 1].tag_ in ("``", "''"):
        return None
    bare = subject.tag_ == "NNS" and not kids(subject, "det", "poss", "nummod", "compound", "amod")
    objects = kids(root, "dobj", "attr", "acomp", "xcomp", "ccomp", "dative", "oprd", "prt")
    return None if bare and not objects else auxes[0]  # "Stocks to watch": the plural may be the object


def _noun_verb_doubt(doc, root, verb) -> bool:
    """A headline whose verb may be the word before ("FAA lifts ban") or a later plural ("girl returns to uk")."""

    def can_be(token, upos, unknown=True):
        lemmas = getAllLemmas(token.lower_)
        return upos in lemmas if lemmas else unknown  # a word lemminflect does not know: a name

    if verb is not root or verb.lemma_.lower() in ("be", "have"):
        return False
    if not can_be(root, "VERB"):
        return True  # "Sussanne part ways": the tagger's verb is no verb
    before = doc[verb.i - 1]  # "rebels leave besieged Homs": with an object, a verb
    if verb.i > 0 and before.tag_ in ("NN", "NNS", "NNP") and can_be(root, "NOUN") and not kids(root, "dobj"):
        mistagged = before.tag_ != "NNP" and not can_be(before, "NOUN")  # "Videotron extend reach"
        mistagged |= before.lower_.endswith("ing") and before.i == 0  # "Housing starts": one noun
        subject = before.i in ends(doc, "anchor.headline_verb_may_be_noun")  # "FAA lifts", "Rogers, X extend"
        if mistagged or (subject and can_be(before, "VERB", unknown=False)):
            return True
    later = [t for t in doc[root.i + 1 :] if t.tag_ == "NNS" and t.lower_.endswith("s") and t.dep_ != "pobj"]
    return any(can_be(t, "VERB", unknown=False) and not noun_phrase_head(doc, t) for t in later)


def noun_phrase_head(doc, word) -> bool:
    """A plural with a noun's modifier ("new sanctions", "US hacking claims"): a noun, never the missed verb."""
    return word.i in roots(doc, "anchor.headline_verb_may_be_noun")


def finite_verb(root):
    """The main clause's first auxiliary, or the root, and whether it has one; refuse a non-finite one."""
    auxes = [c for c in kids(root, "aux", "auxpass") if c.i < root.i]
    finite = auxes[0] if auxes else root
    if finite.tag_ not in ("MD", "VBZ", "VBP", "VBD") or finite.pos_ not in ("VERB", "AUX"):
        raise Refuse("anchor.no_finite_verb")
    if finite.i in starts(finite.doc, "anchor.contracted_auxiliary"):
        raise Refuse("anchor.contracted_auxiliary")
    return finite, bool(auxes)


def inflect(lemma: str, tag: str) -> str:
    participle = tag == "VBN" and table("participles").get(lemma)  # "may have borne", not lemminflect's "born"
    return participle or getInflection(lemma, tag=tag)[0]  # lemminflect inflects any lemma for VBN, VBG, VBZ/VBP/VBD
