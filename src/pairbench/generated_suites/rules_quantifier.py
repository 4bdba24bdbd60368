"""The quantifier rules: a quantity word exchanged (all <-> some, every -> no, ...; lexicon ``quantifiers_*``) on a
determiner or partitive, or (``quantifier:positional``) on one the parse left unattached, its noun found by position;
many/few/most alone (``quantifier:bare``), a person subject read as someone (``quantifier:a_person_to_nobody``) and a
caption's with phrase (``quantifier:caption_with``, a fallback)."""

from __future__ import annotations

from lemminflect import getLemma

from pairbench.generated_suites.edits import Made, Refuse, match_case, rebuild, single_clause, verb_lemmas
from pairbench.generated_suites.lexicon import saying, table, words
from pairbench.generated_suites.patterns import matches


def _time_nouns() -> frozenset[str]:
    """Time nouns: "every night", "all day" are adverbials of frequency or duration, not quantities."""
    months = {m for m in words("month_words") if len(m) > 3 or m == "may"}
    return words("vague_time_nouns") | words("time_nouns") | words("weekdays") | months


def _quantifier_refusal(doc, token, noun=None) -> str | None:
    noun = (_of_object(token) or token.head) if noun is None else noun  # a lot of people, much of the year
    modified = token.i > 0 and doc[token.i - 1].lower_ in words("quantifier_modifiers")
    if modified and not _of_noun(doc, token) and not _a_few(doc, token):
        return "quantifier.modified"
    if token.i > 0 and doc[token.i - 1].lower_ in words("quantifier_intensifiers"):
        return "quantifier.intensified"
    if _condition(doc) or _if_clause(token):
        return "quantifier.condition_clause"  # "If many people come, we need more chairs": the premise
    if matches(doc, "quantifier.consequence_link"):
        return "quantifier.consequence_link"  # "Many shirts run small, so order a size up": the advice rests on many
    nxt = doc[token.i + 1] if token.i + 1 < len(doc) else None
    if nxt is not None and (nxt.text == "-" or token.whitespace_ == "" and nxt.is_alpha):
        return "quantifier.hyphenated"
    if {token.ent_type_, noun.ent_type_} & {"DATE", "TIME"} or noun.lower_ in _time_nouns():
        return "quantifier.time_adverbial"
    if any(c.dep_ == "conj" for c in noun.children) and not _shared_by_or(token):
        return "quantifier.coordinated_noun"
    if token.lower_ == "no" and token.head.lemma_.lower() in words("no_idioms"):
        return "quantifier.fixed_expression"
    if token.lower_ in ("no", "none") and matches(doc, "quantifier.polarity_context"):
        return "quantifier.polarity_context"
    clause = next((a for a in token.ancestors if a.pos_ in ("VERB", "AUX")), None)
    if token.lower_ in ("few", "no", "none", "little") and _unlicensed(doc, token, clause):
        return "quantifier.unlicensed_polarity"  # "Few of them ever replied" -> "Most of them ever replied"
    if token.lower_ == "no" and token.head.tag_ in ("NN", "NNP") and matches(doc, "quantifier.no_finding"):
        return "quantifier.no_finding"  # "No significant difference was found" -> "Every ... was found"
    if clause is not None and clause.dep_ != "ROOT" and _result_clause(doc, clause):
        return "quantifier.result_clause"
    if token.lower_ in ("some", "all") and clause is not None and any(c.dep_ == "neg" for c in clause.children):
        return "quantifier.negated_clause"  # "why some patients do not respond": all ... not reads as not all
    others = [t for t in doc[token.i + 1 :] if t.lower_ in ("other", "others", "rest", "few", "many", "most")]
    if any(not (t.lower_ == "other" and t.head == noun and t.i < noun.i) for t in others):
        return "quantifier.contrast"  # another group set against the noun (in others; not "some other parts")
    if any(a.pos_ == "VERB" and words("wishing_verbs") & set(getLemma(a.lower_, upos="VERB")) for a in token.ancestors):
        return "quantifier.hoped_for"
    return None


def _unlicensed(doc, token, clause) -> bool:
    """A negative-polarity item after a downward word in its clause (lexicons polarity_items, polarity_phrases)."""
    span = [t for t in (clause.subtree if clause is not None else doc) if t.i > token.i]
    forms = [f" {' '.join(getattr(t, a).lower() for t in span)} " for a in ("text", "lemma_")]
    items = words("polarity_items") - {"whether"} | words("polarity_phrases")
    return any(f" {w} " in form for w in items for form in forms)


def _a_few(doc, token) -> bool:
    """ "a few" alone (not "only a few": ``quantifier.a_few_to_many``'s patterns), under no negation."""
    alone = any(span[-1].i == token.i for span in matches(doc, "quantifier.a_few_to_many"))
    return alone and not _negated(doc)


def _negated(doc, skip=(), but=()) -> bool:
    """A ``neg`` dependent or a word of ``negative_words`` (less ``but``) in the sentence, token indices ``skip`` aside."""
    return any(t.dep_ == "neg" or t.lower_ in words("negative_words") - set(but) for t in doc if t.i not in skip)


def _of_noun(doc, token) -> bool:
    """ "a feature of most stations": of after a noun that is no share, count or superlative."""
    owner = doc[max(token.i - 2, 0)]
    plain = owner.lemma_.lower() not in words("share_nouns") and not owner.lower_.endswith("iest")  # trickiest of all
    return doc[token.i - 1].lower_ == "of" and owner.pos_ == "NOUN" and token.head.tag_ == "NNS" and plain


def _condition(doc) -> bool:
    """A condition in the sentence (unless, provided, only if): a quantity in it is its premise."""
    return any(f" {mark} " in f" {' '.join(t.lower_ for t in doc)} " for mark in words("condition_marks"))


def _if_clause(token) -> bool:
    """``token`` inside an if clause (a condition, or asked if: a question, no claim)."""
    return any(c.dep_ == "mark" and c.lower_ == "if" for a in token.ancestors for c in a.children)


def _shared_by_or(token) -> bool:
    """ "no real explosives or harmful devices": "no" over bare plurals joined by "or" quantifies all."""
    conjs = [c for c in token.head.children if c.dep_ == "conj"]
    bare = all(c.tag_ == "NNS" and not any(d.dep_ in ("det", "poss") for d in c.children) for c in conjs)
    return token.lower_ == "no" and {c.lower_ for c in token.head.children if c.dep_ == "cc"} == {"or"} and bare


def _result_clause(doc, clause) -> bool:
    """A clause of result or degree ("so lucrative that many ..."), whose quantity the degree explains."""
    marked = any(c.dep_ == "mark" and c.lower_ == "that" for c in clause.children)
    return marked and any(t.lower_ in ("so", "such", "too", "enough") for t in doc[: clause.i])


def _of_object(token):
    """The object of the of right after ``token`` ("most of the students": students), or None."""
    prep = next((c for c in token.children if c.dep_ == "prep" and c.lower_ == "of" and c.i == token.i + 1), None)
    return next((c for c in prep.children if c.dep_ == "pobj"), None) if prep is not None else None


def _partitive(token):
    """The table of a partitive quantifier ("most of the students", "none of them"), or None."""
    if (obj := _of_object(token)) is None:
        return None
    dets = [c for c in obj.children if c.dep_ in ("det", "poss") and c.lower_ not in ("a", "an")]
    definite = obj.lower_ in ("them", "us", "these", "those") or bool(dets)
    if not definite or token.dep_ not in ("nsubj", "nsubjpass", "dobj", "pobj"):
        return None
    if token.lower_ == "each" and token.dep_ not in ("nsubj", "nsubjpass"):
        return None  # "a fine on each of the counts" -> "on none of the counts" reads wrong
    parts = table("quantifiers_partitive")  # a mass noun: "most of the harvest" has no "few of the harvest"
    if obj.tag_ == "NN" and obj.lemma_.lower() not in words("collective_nouns"):
        keep = {k: v for k, v in parts.items() if v not in ("few", "most") and k not in ("few", "many")}
        return keep | {"most": table("quantifiers_mass")["most"]}  # "most of the harvest" -> "little of the harvest"
    return parts


def _quantifier_table(token):
    low, tag = token.lower_, token.head.tag_
    if token.i > 0 and token.doc[token.i - 1].lower_ in ("or", "and"):
        return None  # "one or both boys", "some or all": a range, not one quantity
    if token.dep_ in ("nsubj", "nsubjpass", "dobj", "pobj") and low in table("quantifiers_partitive"):
        if _partitive(token) is None and low in table("quantifiers_bare") and _bare(token):
            return table("quantifiers_bare")  # "Many believe ...", "regarded by many as ..."
        return _partitive(token)
    if token.dep_ == "predet" and low == "all" and tag == "NNS" and token.head.dep_ in ("nsubj", "nsubjpass"):
        nxt = token.doc[token.i + 1]
        return {"all": "some of"} if nxt.lower_ in ("the", "these", "those") and nxt.head == token.head else None
    if token.dep_ not in ("det", "amod") or token.head.pos_ not in ("NOUN", "PROPN") or token.head.i < token.i:
        return None
    if tag in ("NNS", "NNPS"):
        return table("quantifiers_plural")
    if low in ("every", "each"):
        return table("quantifiers_singular")
    if low == "no" and token.head.dep_ in ("nsubj", "nsubjpass") and not any(t.lower_ == "there" for t in token.doc):
        return table("quantifiers_singular")  # "No dog barked" -> "Every dog barked"
    if tag in ("NN", "NNP") and low in table("quantifiers_mass") and (low != "no" or token.head.dep_ == "dobj"):
        return table("quantifiers_mass")  # "some food" -> "no food"; "made no sense" -> "made some sense"
    return {}


def quantifier(doc, ctx=None) -> Made:
    """The first quantifier exchanged within its table (``_quantifier_table``), keeping agreement."""
    single_clause(doc)  # a sentence with a subject: fragments ("..., no casualties") refused
    negated = _negated(doc, but={"no", "none"})
    quantities = words("quantifiers_plural") | words("quantifiers_singular") | words("quantifiers_partitive")
    for token in doc:
        low = token.lower_
        if low in table("quantifiers_pronoun") and token.dep_ in ("nsubj", "nsubjpass") and token.head.dep_ == "ROOT":
            return _pronoun(doc, token)
        if (amount := _amount(doc, token)) is not None:
            return amount
        if low not in quantities:
            continue
        if (exchange := _quantifier_table(token)) is None:
            continue
        bare = exchange == table("quantifiers_bare")
        if (why := _quantifier_refusal(doc, token, token if bare else None)) is not None:
            raise Refuse(why)
        if bare and any(t.lower_ in words("quantifiers_contrast") for t in doc[token.i + 1 :]):
            raise Refuse("quantifier.contrast")  # "praised by many, but some remain wary" -> "by few, but some ..."
        verbs = [token.head, *(c for c in token.head.children if c.dep_ in ("aux", "auxpass"))]
        singular = any(v.tag_ == "VBZ" or v.lower_ == "was" for v in verbs)  # the verbs of the quantified subject
        if low not in exchange or bare and singular:
            raise Refuse("quantifier.breaks_agreement")  # "Most was lost in the fire": a mass, no "few was"
        if _a_few(doc, token):  # "A few guests left" -> "Many guests left"
            edits = {token.i - 1: match_case("many", doc[token.i - 1].text), token.i: ""}
            return Made(rebuild(doc, edits), "quantifier:a_few_to_many")
        new = exchange[low]
        plain = exchange in (table("quantifiers_mass"), table("quantifiers_plural"))
        if low == "some" and plain and token.head.dep_ in ("dobj", "pobj"):
            new = "all the"  # "is preparing some food" -> "all the food": "preparing no food" is no event
        if low == "few" and new == "most" and token.dep_ == "amod" and token.head.dep_ not in ("nsubj", "nsubjpass"):
            new = table("quantifiers_object")[low]  # "have few chances" -> "many": "have most chances" is no English
        if low == "none" and singular:
            raise Refuse("quantifier.singular_verb")  # "All of them has a licence"
        if negated and {low, new} & {"no", "none", "little"}:  # not made double, nor left alone (every team cannot)
            raise Refuse("quantifier.double_negative")
        if new in ("no", "none") and matches(doc, "quantifier.obligation_modal"):
            raise Refuse("quantifier.obligation_modal")  # "Each applicant must sign" -> "No applicant must sign"
        if new == "no" and token.head.dep_ == "pobj":
            raise Refuse("quantifier.no_in_phrase")
        edits = {token.i: match_case(new, token.text)}
        if low == "no" and new == "every" and token.head.lower_ == "one" and token.head.i == token.i + 1:
            edits = {token.i: match_case("everyone", token.text), token.i + 1: ""}  # not "Every one answered"
        return Made(rebuild(doc, edits), "quantifier:bare" if bare else f"quantifier:{low}_to_{new.split()[0]}")
    if (made := _indefinite_person(doc)) is not None:
        return made
    raise Refuse("quantifier.no_determiner")


def _bare(token) -> bool:
    """ "Many believe ...", "praised by many": many, few or most alone, the subject of a verb or the agent after by."""
    subject = token.dep_ in ("nsubj", "nsubjpass") and token.head.pos_ in ("VERB", "AUX") and token.head.i > token.i
    agent = token.dep_ == "pobj" and token.head.dep_ == "agent"
    nxt = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    # a finite verb, an adverb, a preposition or a stop next: not "many arriving passengers" (a missed determiner)
    alone = nxt is None or nxt.tag_ in ("VBD", "VBZ", "VBP", "MD", "RB", "IN", ",", ".", ":")
    heads = any(c.dep_ in ("det", "amod", "advmod") or c.lower_ == "of" for c in token.children)  # of whom
    return (subject or agent) and alone and not heads


def _with_noun(token) -> bool:
    """``token``'s noun is the object of a with on a noun (a room with several monitors), not of a verb's with."""
    noun = token.head
    return noun.dep_ == "pobj" and noun.head.lower_ == "with" and noun.head.head.pos_ in ("NOUN", "PROPN")


def _indefinite_person(doc) -> Made | None:
    """ "A person is cutting mushrooms" -> "Nobody is cutting mushrooms": an indefinite person (lexicon
    quantifiers_indefinite) subject of the main verb, read as someone and exchanged like it; None where none is."""
    persons = table("quantifiers_indefinite")
    for token in doc[:-1]:
        noun = doc[token.i + 1]
        if f"{token.lower_} {noun.lower_}" not in persons or token.dep_ != "det" or token.head != noun:
            continue
        if noun.dep_ not in ("nsubj", "nsubjpass") or noun.head.dep_ != "ROOT":
            continue
        new = persons[f"{token.lower_} {noun.lower_}"]
        if verb_lemmas(noun.head) & saying("claim") and any(c.dep_ == "ccomp" for c in noun.head.children):
            raise Refuse("quantifier.person_sayer")  # "A person familiar with the talks said ..." -> "Nobody ... said"
        _pronoun_refusal(doc, token, noun, new)
        return Made(rebuild(doc, {token.i: match_case(new, token.text), noun.i: ""}), "quantifier:a_person_to_nobody")
    return None


def _amount(doc, token) -> Made | None:
    """ "A lot of people came" -> "Few people came": an amount phrase before a bare noun, or None where none starts."""
    phrases = (p.split() for p in words("amount_phrases"))
    phrase = next((p for p in phrases if [t.lower_ for t in doc[token.i : token.i + len(p)]] == p), None)
    if phrase is None or token.i > 0 and doc[token.i - 1].lower_ in ("such", "what"):
        return None  # "such a lot of friends" -> "such few friends" is no English
    of = doc[token.i + len(phrase) - 1]
    noun = next((c for c in of.children if c.dep_ == "pobj"), None)
    bare = noun is not None and not any(t.pos_ in ("DET", "PRON", "NUM") for t in doc[of.i + 1 : noun.i + 1])
    if not bare or noun.tag_ not in ("NN", "NNS"):
        return None  # "a lot of the time", "lots of them", "a lot of 20 somethings": no bare noun
    if (why := _quantifier_refusal(doc, token, noun)) is not None:
        raise Refuse(why)
    if _negated(doc):
        raise Refuse("quantifier.double_negative")  # "did not eat a lot of food" -> "did not eat little food"
    new = "few" if noun.tag_ == "NNS" else "little"
    edits = {token.i: match_case(new, token.text), **{i: "" for i in range(token.i + 1, of.i + 1)}}
    return Made(rebuild(doc, edits), f"quantifier:a_lot_to_{new}")


def _pronoun(doc, token) -> Made:
    """ "Nobody answered" -> "Everybody answered": a pronoun subject of the main verb, with no other negation."""
    new = table("quantifiers_pronoun")[token.lower_]
    _pronoun_refusal(doc, token, token, new)
    return Made(rebuild(doc, {token.i: match_case(new, token.text)}), "quantifier:pronoun")


def _pronoun_refusal(doc, first, last, new) -> None:
    """Refuse the exchange of the person subject ``first``..``last`` into ``new`` where it cannot be made."""
    prev = doc[first.i - 1].lower_ if first.i > 0 else ""
    if prev in words("quantifier_modifiers") | words("quantifier_intensifiers"):
        raise Refuse("quantifier.modified")  # "almost everyone", "hardly anybody"
    if _condition(doc):
        raise Refuse("quantifier.condition_clause")
    if matches(doc, "quantifier.consequence_link"):
        raise Refuse("quantifier.consequence_link")  # "Nobody came, so we left" -> "Everybody came, so we left"
    if _negated(doc, skip={first.i}):
        raise Refuse("quantifier.double_negative")  # "Nobody did not come", "Everyone left, none stayed"
    if _unlicensed(doc, last, last.head):
        raise Refuse("quantifier.unlicensed_polarity")  # "Nobody has ever climbed it" -> "Everybody has ever ..."
    if new == "nobody" and matches(doc, "quantifier.obligation_modal"):
        raise Refuse("quantifier.obligation_modal")  # "Everyone must leave" -> "Nobody must leave": a ban


def _plural_after(doc, token):
    """The plural noun ``token`` quantifies by position (of the/them/these/those, many arriving passengers), or None."""
    j = token.i + 1
    after = [t.lower_ for t in doc[j : j + 2]]
    if len(after) == 2 and after[0] == "of" and after[1] in ("the", "these", "those", "them", "our", "their"):
        j += 1 if doc[j + 1].lower_ == "them" else 2
        if doc[j - 1].lower_ == "them":
            return doc[j - 1] if token.i == 0 else None
    while j < len(doc) and doc[j].tag_ in ("JJ", "VBG", "VBN") and doc[j].whitespace_:
        j += 1
    nxt = doc[j + 1] if j + 1 < len(doc) else None
    alone = nxt is None or nxt.tag_ != "NNS" and nxt.pos_ != "NOUN"
    return doc[j] if j < len(doc) and doc[j].tag_ == "NNS" and alone else None


def quantifier_positional(doc, ctx=None) -> Made:
    """The sentence's one quantifier, its noun found by position (``_plural_after``), a finite verb after it."""
    positional = table("quantifiers_positional")
    others = ("every", "each", "no", "none", "any", "both", "other", "others", "rest")
    found = [t for t in doc if t.lower_ in positional or t.lower_ in others]
    if len(found) != 1 or found[0].lower_ not in positional:
        raise Refuse("quantifier.positional_none")
    token = found[0]
    if _condition(doc) or _if_clause(token):
        raise Refuse("quantifier.condition_clause")
    if token.lower_ == "few" and _unlicensed(doc, token, None):
        raise Refuse("quantifier.unlicensed_polarity")
    if matches(doc, "quantifier.consequence_link"):
        raise Refuse("quantifier.consequence_link")
    noun = _plural_after(doc, token)  # a preposition before the quantifier reads as its modifier
    mods = words("quantifier_modifiers") | words("quantifier_intensifiers") | {"in", "on", "for", "to", "with", "by"}
    if noun is None or token.i > 0 and doc[token.i - 1].lower_ in mods | {"from"}:
        raise Refuse("quantifier.positional_no_noun")
    excluded = doc.text.rstrip().endswith("?") or noun.lower_ in words("vague_time_nouns") or token.whitespace_ == ""
    if excluded or any(t.dep_ == "neg" for t in doc):
        raise Refuse("quantifier.positional_excluded")
    finite = any(t.i > noun.i and t.tag_ in ("VBP", "VBD", "VBZ", "MD") for t in doc)
    if not finite or not doc.text.rstrip().endswith((".", '"')):
        raise Refuse("quantifier.positional_no_verb")
    # the clause's verb, past the participles between the quantifier and its noun (many arriving passengers)
    clause = next((a for a in token.ancestors if a.pos_ in ("VERB", "AUX") and not token.i < a.i <= noun.i), None)
    if clause is not None and clause.dep_ != "ROOT" and (clause.dep_ != "ccomp" or _result_clause(doc, clause)):
        raise Refuse("quantifier.positional_clause")
    return Made(rebuild(doc, {token.i: match_case(positional[token.lower_], token.text)}), "quantifier:positional")


def quantifier_caption(doc, ctx=None) -> Made:
    """ "Room with several computer monitors." -> "Room with no computer monitors.": a caption with a noun at its root
    (no verb for the clause rules), its one quantifier in a with phrase on a noun (lexicon quantifiers_with)."""
    roots = [t for t in doc if t.dep_ == "ROOT"]
    if len(roots) != 1 or roots[0].pos_ not in ("NOUN", "PROPN") or doc.text.rstrip().endswith(("?", "!")):
        raise Refuse("quantifier.caption_none")
    quantities = words("quantifiers_plural") | words("quantifiers_singular") | words("quantifiers_partitive")
    found = [t for t in doc if t.lower_ in quantities | words("quantifiers_pronoun") | {"any", "other", "others"}]
    with_table = table("quantifiers_with")
    if len(found) != 1 or found[0].lower_ not in with_table:
        raise Refuse("quantifier.caption_none")
    token = found[0]
    plain = token.dep_ in ("amod", "det") and token.head.tag_ == "NNS" and token.head.i > token.i
    if not plain or not _with_noun(token) or any(t.pos_ in ("VERB", "AUX") and t.dep_ != "amod" for t in doc):
        raise Refuse("quantifier.caption_none")  # "Several cows grazing ...": a subject, or a verb's with
    if (why := _quantifier_refusal(doc, token)) is not None:
        raise Refuse(why)
    if _negated(doc):
        raise Refuse("quantifier.double_negative")
    new = with_table[token.lower_]
    people = set(table("person_sex")) | {"person", "people", "child", "kid", "adult"}
    if new == "no" and token.head.lemma_.lower() in people:
        raise Refuse("quantifier.caption_with_people")  # "A meeting with several people" -> "with no people"
    return Made(rebuild(doc, {token.i: match_case(new, token.text)}), "quantifier:caption_with")
