"""The quantifier rules: a quantity word exchanged by its lexicon table (``quantifiers_*``) where nothing refuses it."""

from __future__ import annotations

from lemminflect import getLemma

from pairbench.generated_suites.edits import Made, Refuse, kids, match_case, rebuild, single_clause, verb_lemmas
from pairbench.generated_suites.lexicon import saying, table, words
from pairbench.generated_suites.patterns import dep_matches, ends, matches, roots, starts


def _refuse_quantifier(doc, token, noun=None, unnegated=False) -> None:
    """Refuse quantifier ``token``'s exchange on ``noun`` (its of-object or head): "If many people come, ..."."""
    noun = (_of_object(token) or token.head) if noun is None else noun  # a lot of people, much of the year
    low, head, prev = token.lower_, token.head, doc[token.i - 1].lower_ if token.i > 0 else ""
    clause = next((a for a in token.ancestors if a.pos_ in ("VERB", "AUX")), None)
    months = {m for m in words("month_words") if len(m) > 3 or m == "may"}
    times = words("vague_time_nouns") | words("time_nouns") | words("weekdays") | months  # every night, all day
    # bare plurals joined, all quantified: "no real explosives or harmful devices", "many of her ideas and projects"
    bare = [all(t.tag_ == "NNS" and not kids(t, "det", "poss") for t in kids(x, "conj")) for x in (head, noun)]
    shared = low == "no" and {c.lower_ for c in kids(head, "cc")} == {"or"} and bare[0]
    shared = shared or _of_object(token) == noun and bare[1]
    others = [t for t in doc[token.i + 1 :] if t.lower_ in ("other", "others", "rest", "few", "many", "most")]
    of_noun = head.tag_ == "NNS" and token.i in ends(doc, "quantifier.modified")  # "a feature of most stations"
    hopes = [set(getLemma(a.lower_, "VERB")) & words("wishing_verbs") for a in token.ancestors if a.pos_ == "VERB"]
    results = roots(doc, "quantifier.result_clause")  # so lucrative that many ...
    tests = {  # id -> whether it holds, in order
        "quantifier.modified": prev in words("quantifier_modifiers") and not (of_noun or _a_few(token)),
        "quantifier.intensified": prev in words("quantifier_intensifiers"),
        "quantifier.condition_clause": _condition(doc, token),
        "quantifier.consequence_link": matches(doc, "quantifier.consequence_link"),
        "quantifier.hyphenated": token.i in starts(doc, "quantifier.hyphenated"),
        "quantifier.time_adverbial": {token.ent_type_, noun.ent_type_} & {"DATE", "TIME"} or noun.lower_ in times,
        "quantifier.coordinated_noun": bool(kids(noun, "conj")) and not shared,
        "quantifier.fixed_expression": low == "no" and head.lemma_.lower() in words("no_idioms"),
        "quantifier.polarity_context": low in ("no", "none") and matches(doc, "quantifier.polarity_context"),
        "quantifier.unlicensed_polarity": low in ("few", "no", "none", "little") and _unlicensed(doc, token, clause),
        "quantifier.no_finding": low == "no" and head.tag_ in ("NN", "NNP") and matches(doc, "quantifier.no_finding"),
        "quantifier.result_clause": clause is not None and clause.dep_ != "ROOT" and clause.i in results,
        # all ... not reads as not all: "why some patients do not respond"
        "quantifier.negated_clause": low in ("some", "all") and clause is not None and bool(kids(clause, "neg")),
        # another group set against the noun (in others; not "some other parts")
        "quantifier.contrast": any(not (t.lower_ == "other" and t.head == noun and t.i < noun.i) for t in others)
        # "X, but few Y" or "Most X, but Y": another group set against the amount
        or any(t.lower_ in ("but", "yet") and t.dep_ == "cc" for t in doc),
        "quantifier.hoped_for": any(hopes),
        # "None of it would come off until ...": until of a delay needs the negative
        "quantifier.until_with_negative": low in ("no", "none") and any(t.lower_ == "until" for t in doc[token.i :]),
        # "Most ran on time despite the snow": a concession fits one quantity only
        "quantifier.concession": any(t.lower_ in words("concession_words") for t in doc),
        "quantifier.comment_clause": any(m.start > token.i for m in matches(doc, "quantifier.comment_clause")),
        # "No dogs are allowed except guide dogs": the exception fits no or all only
        "quantifier.exception": bool(matches(doc, "quantifier.exception")),
        # "copies the data first and then checks every record": then asks for a step that happens
        "quantifier.sequence_step": low in ("every", "each", "all") and any(t.lower_ == "then" for t in doc[: token.i]),
        # "No further analgesia was needed": no further, no more and no other are fixed
        "quantifier.no_further": low == "no"
        and doc[token.i + 1 : token.i + 2].text.lower() in ("further", "more", "other"),
        # with ``unnegated``, no negation at all: "did not eat a lot of food" -> "did not eat little food"
        "quantifier.double_negative": unnegated and _negated(doc),
    }
    if rid := next((rid for rid, holds in tests.items() if holds), None):
        raise Refuse(rid)


def _unlicensed(doc, token, clause) -> bool:
    """A negative-polarity item after a downward word in its clause (lexicons polarity_items, polarity_phrases)."""
    span = [t for t in (clause.subtree if clause is not None else doc) if t.i > token.i]
    forms = [f" {' '.join(getattr(t, a).lower() for t in span)} " for a in ("text", "lemma_")]
    items = words("polarity_items") - {"whether"} | words("polarity_phrases")
    return any(f" {w} " in form for w in items for form in forms)


def _a_few(token) -> bool:
    """ "a few" alone (not "only a few": ``quantifier.a_few_to_many``'s patterns), under no negation."""
    return token.i in ends(token.doc, "quantifier.a_few_to_many") and not _negated(token.doc)


def _negated(doc, skip=(), but=()) -> bool:
    """A ``neg`` dependent or a word of ``negative_words`` (less ``but``) in the sentence, indices ``skip`` aside."""
    return any(t.dep_ == "neg" or t.lower_ in words("negative_words") - set(but) for t in doc if t.i not in skip)


def _condition(doc, token=None) -> bool:
    """A condition in the sentence (unless, only if), or ``token`` in an if clause: a quantity in it is its premise."""
    if any(f" {mark} " in f" {' '.join(t.lower_ for t in doc)} " for mark in words("condition_marks")):
        return True
    return token is not None and any(c.dep_ == "mark" and c.lower_ == "if" for a in token.ancestors for c in a.children)


def _of_object(token):
    """The object of the of right after ``token`` ("most of the students": students), or None."""
    prep = next((c for c in kids(token, "prep") if c.lower_ == "of" and c.i == token.i + 1), None)
    return next(iter(kids(prep, "pobj")), None) if prep is not None else None


def _quantifier_table(token):
    low, tag = token.lower_, token.head.tag_
    # "one or both boys", "any and every": a range, not one quantity; not "The roof leaked, and most of the books ..."
    first = token.doc[token.i - 2] if token.i > 1 else token
    phrase = token if token.dep_ in ("nsubj", "nsubjpass") else token.head  # the quantified noun phrase
    ranged = first.like_num or first.lower_ == "any" or first.lower_ in words("quantifiers_exchanged")
    ranged = ranged or not (phrase.dep_ in ("nsubj", "nsubjpass") and phrase.head.dep_ == "conj")
    if token.i > 0 and token.doc[token.i - 1].lower_ in ("or", "and") and ranged:
        return None
    if token.dep_ in ("nsubj", "nsubjpass", "dobj", "pobj") and low in table("quantifiers_partitive"):
        # "Many believe ...", "praised by many": alone (``quantifier.bare``'s pattern, or the last agent), unmodified
        last_agent = token.i + 1 == len(token.doc) and token.dep_ == "pobj" and token.head.dep_ == "agent"
        alone = last_agent or token.i in roots(token.doc, "quantifier.bare")
        alone = alone and not any(c.dep_ in ("det", "amod", "advmod") or c.lower_ == "of" for c in token.children)
        obj = _of_object(token)  # a partitive: "most of the students", "none of them"; not "on each of the counts"
        if obj is not None and not (low == "each" and token.dep_ not in ("nsubj", "nsubjpass")):  # -> "on none of"
            dets = [c for c in kids(obj, "det", "poss") if c.lower_ not in ("a", "an")]  # "little of the harvest"
            if dets or obj.lower_ in ("them", "us", "these", "those"):
                mass = obj.tag_ == "NN" and obj.lemma_.lower() not in words("collective_nouns")
                return table("quantifiers_partitive_mass" if mass else "quantifiers_partitive")
        return table("quantifiers_bare") if low in table("quantifiers_bare") and alone else None
    if token.dep_ == "predet" and low == "all" and tag == "NNS" and token.head.dep_ in ("nsubj", "nsubjpass"):
        nxt = token.doc[token.i + 1]
        return {"all": "some of"} if nxt.lower_ in ("the", "these", "those") and nxt.head == token.head else None
    if token.dep_ not in ("det", "amod") or token.head.pos_ not in ("NOUN", "PROPN") or token.head.i < token.i:
        return None
    if tag in ("NNS", "NNPS"):
        return table("quantifiers_plural")
    subject = token.head.dep_ in ("nsubj", "nsubjpass") and not any(t.lower_ == "there" for t in token.doc)
    if low in ("every", "each") or low == "no" and subject:
        return table("quantifiers_singular")  # "No dog barked" -> "Every dog barked"
    if tag in ("NN", "NNP") and low in table("quantifiers_mass") and (low != "no" or token.head.dep_ == "dobj"):
        return table("quantifiers_mass")  # "some food" -> "no food"; "made no sense" -> "made some sense"
    return {}


def quantifier(doc, ctx=None) -> Made:
    """The first quantifier exchanged within its table (``_quantifier_table``), keeping agreement."""
    single_clause(doc)  # a sentence with a subject: fragments ("..., no casualties") refused
    negated = _negated(doc, but={"no", "none"})
    for token in doc:
        low = token.lower_
        if low in table("quantifiers_pronoun") and token.dep_ in ("nsubj", "nsubjpass") and token.head.dep_ == "ROOT":
            new = table("quantifiers_pronoun")[low]  # "Nobody answered" -> "Everybody answered"
            _pronoun_refusal(doc, token, token, new)
            return Made(rebuild(doc, {token.i: match_case(new, token.text)}), "quantifier:pronoun")
        if (amount := _amount(doc, token)) is not None:
            return amount
        if low not in words("quantifiers_exchanged") or (exchange := _quantifier_table(token)) is None:
            continue
        bare = exchange == table("quantifiers_bare")
        _refuse_quantifier(doc, token, token if bare else None)
        if bare and any(t.lower_ in words("quantifiers_contrast") for t in doc[token.i + 1 :]):
            raise Refuse("quantifier.contrast")  # "praised by many, but some remain wary" -> "by few, but some ..."
        singular = any(v.tag_ == "VBZ" or v.lower_ == "was" for v in (token.head, *kids(token.head, "aux", "auxpass")))
        verb = token.head.head  # of the quantified subject: were, are, have
        plural = any(v.tag_ == "VBP" or v.lower_ == "were" for v in (verb, *kids(verb, "aux", "auxpass")))
        plural = plural and token.head.dep_ in ("nsubj", "nsubjpass")
        # "Most was lost in the fire": a mass, no "few was"; "No staff were paid" -> "Every staff were paid"
        if low not in exchange or bare and singular or exchange[low] in ("every", "each") and plural:
            raise Refuse("quantifier.breaks_agreement")
        if _a_few(token):  # "A few guests left" -> "Many guests left"
            edits = {token.i - 1: match_case("many", doc[token.i - 1].text), token.i: ""}
            return Made(rebuild(doc, edits), "quantifier:a_few_to_many")
        new = exchange[low]
        plain = exchange in (table("quantifiers_mass"), table("quantifiers_plural"))
        if low == "some" and plain and token.head.dep_ in ("dobj", "pobj"):
            new = "all the"  # "is preparing some food" -> "all the food": "preparing no food" is no event
            if token.head.lemma_.lower() in words("body_substances"):  # "coughed up all the blood": the body's own
                raise Refuse("quantifier.body_substance")
        if low == "few" and new == "most" and token.dep_ == "amod" and token.head.dep_ not in ("nsubj", "nsubjpass"):
            new = table("quantifiers_object")[low]  # "have few chances" -> "many": "have most chances" is no English
        if low == "none" and singular:
            raise Refuse("quantifier.singular_verb")  # "All of them has a licence"
        if new in words("quantifiers_downward") and _already(doc):
            raise Refuse("quantifier.already")  # "has already damaged most of" -> "already damaged little of"
        if new in ("no", "none") and any(t.lower_ == "both" and t != token for t in token.head.subtree):
            raise Refuse("quantifier.both")  # "Several players from both teams" -> "No players from both teams"
        if negated and {low, new} & {"no", "none", "little"}:  # not made double, nor left alone (every team cannot)
            raise Refuse("quantifier.double_negative")
        if new in ("no", "none") and matches(doc, "quantifier.obligation_modal"):
            raise Refuse("quantifier.obligation_modal")  # "Each applicant must sign" -> "No applicant must sign"
        if new == "no" and token.head.dep_ == "pobj":
            raise Refuse("quantifier.no_in_phrase")
        after = doc[token.i + 1 : token.i + 2]  # "all their medicines" -> "some of their medicines"
        if new == "some" and after and (after[0].tag_ == "PRP$" or after[0].lower_ in ("the", "these", "those")):
            new = "some of"
        edits = {token.i: match_case(new, token.text)}
        if low == "no" and new == "every" and token.head.lower_ == "one" and token.head.i == token.i + 1:
            edits = {token.i: match_case("everyone", token.text), token.i + 1: ""}  # not "Every one answered"
        return Made(rebuild(doc, edits), "quantifier:bare" if bare else f"quantifier:{low}_to_{new.split()[0]}")
    # "A person is cutting mushrooms" -> "Nobody is cutting mushrooms": a main subject of quantifiers_indefinite
    persons = table("quantifiers_indefinite")
    found = [m for m in dep_matches(doc, "quantifier.a_person_to_nobody") if f"{m[2].lower_} {m[1].lower_}" in persons]
    if not found:
        raise Refuse("quantifier.no_determiner")
    verb, noun, token = min(found, key=lambda m: m[2].i)
    new = persons[f"{token.lower_} {noun.lower_}"]
    if verb_lemmas(verb) & saying("claim") and kids(verb, "ccomp"):
        raise Refuse("quantifier.person_sayer")  # "A person familiar with the talks said ..." -> "Nobody ... said"
    _pronoun_refusal(doc, token, noun, new)
    return Made(rebuild(doc, {token.i: match_case(new, token.text), noun.i: ""}), "quantifier:a_person_to_nobody")


def _amount(doc, token) -> Made | None:
    """ "A lot of people came" -> "Few people came": an amount phrase before a bare noun, or None where none starts."""
    phrases = (p.split() for p in words("amount_phrases"))
    phrase = next((p for p in phrases if [t.lower_ for t in doc[token.i : token.i + len(p)]] == p), None)
    if phrase is None or token.i > 0 and doc[token.i - 1].lower_ in ("such", "what"):
        return None  # "such a lot of friends" -> "such few friends" is no English
    of = doc[token.i + len(phrase) - 1]
    noun = next(iter(kids(of, "pobj")), None)
    bare = noun is not None and not any(t.pos_ in ("DET", "PRON", "NUM") for t in doc[of.i + 1 : noun.i + 1])
    if not bare or noun.tag_ not in ("NN", "NNS"):
        return None  # "a lot of the time", "lots of them", "a lot of 20 somethings": no bare noun
    _refuse_quantifier(doc, token, noun, unnegated=True)
    if token.lower_ == "plenty" and (doc[0].tag_ == "VB" or any(t.lower_ in ("should", "must") for t in doc)):
        raise Refuse("quantifier.plenty")  # "drink plenty of fluids" -> "drink few fluids": advice, no English
    new = "few" if noun.tag_ == "NNS" else "little"
    edits = {token.i: match_case(new, token.text), **{i: "" for i in range(token.i + 1, of.i + 1)}}
    return Made(rebuild(doc, edits), f"quantifier:a_lot_to_{new}")


def _pronoun_refusal(doc, first, last, new) -> None:
    """Refuse the exchange of the person subject ``first``..``last`` into ``new`` where it cannot be made."""
    prev = doc[first.i - 1].lower_ if first.i > 0 else ""
    tests = {  # id -> whether it holds, in order
        "quantifier.modified": prev in words("quantifier_modifiers") | words("quantifier_intensifiers"),  # almost all
        "quantifier.condition_clause": _condition(doc),
        "quantifier.consequence_link": matches(doc, "quantifier.consequence_link"),  # "Nobody came, so we left"
        "quantifier.double_negative": _negated(doc, skip={first.i}),  # "Nobody did not come", "none stayed"
        "quantifier.unlicensed_polarity": _unlicensed(doc, last, last.head),  # "Nobody has ever climbed it"
        "quantifier.obligation_modal": new == "nobody" and matches(doc, "quantifier.obligation_modal"),  # a ban
    }
    if rid := next((rid for rid, holds in tests.items() if holds), None):
        raise Refuse(rid)


def _already(doc) -> bool:
    """Already in the sentence: something has happened, which few, little or no amount of it denies."""
    return any(t.lower_ == "already" for t in doc)


def quantifier_positional(doc, ctx=None) -> Made:
    """The sentence's one quantifier, its plural noun found by position, a finite verb after it."""
    positional = table("quantifiers_positional")
    found = [t for t in doc if t.lower_ in positional or t.lower_ in words("quantifiers_positional_barred")]
    if len(found) != 1 or found[0].lower_ not in positional:
        raise Refuse("quantifier.positional_none")
    token = found[0]
    if _condition(doc, token):
        raise Refuse("quantifier.condition_clause")
    if token.lower_ == "few" and _unlicensed(doc, token, None):
        raise Refuse("quantifier.unlicensed_polarity")
    if matches(doc, "quantifier.consequence_link"):
        raise Refuse("quantifier.consequence_link")
    shapes = (  # as the main rule's: a concession, a contrast, a comment on the amount, already before a few
        ("quantifier.concession", any(t.lower_ in words("concession_words") for t in doc)),
        ("quantifier.contrast", any(t.lower_ in ("but", "yet") and t.dep_ == "cc" for t in doc)),
        ("quantifier.comment_clause", any(m.start > token.i for m in matches(doc, "quantifier.comment_clause"))),
        ("quantifier.already", positional[token.lower_] in words("quantifiers_downward") and _already(doc)),
    )
    if why := next((rid for rid, holds in shapes if holds), None):
        raise Refuse(why)
    # its plural noun by position (the record's pattern: of the, many arriving passengers), no noun after it
    span = next((s for s in matches(doc, "quantifier.positional") if s.start == token.i), None)
    nxt = doc[span.end] if span is not None and span.end < len(doc) else None
    noun = span[-1] if span is not None and (nxt is None or nxt.tag_ != "NNS" and nxt.pos_ != "NOUN") else None
    mods = words("quantifier_modifiers") | words("quantifier_intensifiers") | {"in", "on", "for", "to", "with", "by"}
    if noun is None or token.i > 0 and doc[token.i - 1].lower_ in mods | {"from"}:
        raise Refuse("quantifier.positional_no_noun")  # a preposition before the quantifier reads as its modifier
    excluded = doc.text.rstrip().endswith("?") or noun.lower_ in words("vague_time_nouns") or token.whitespace_ == ""
    if excluded or any(t.dep_ == "neg" for t in doc):
        raise Refuse("quantifier.positional_excluded")
    finite = any(t.i > noun.i and t.tag_ in ("VBP", "VBD", "VBZ", "MD") for t in doc)
    if not finite or not doc.text.rstrip().endswith((".", '"')):
        raise Refuse("quantifier.positional_no_verb")
    # the clause's verb, past the participles between the quantifier and its noun (many arriving passengers)
    clause = next((a for a in token.ancestors if a.pos_ in ("VERB", "AUX") and not token.i < a.i <= noun.i), None)
    results = roots(doc, "quantifier.result_clause")  # so lucrative that many ...
    if clause is not None and clause.dep_ != "ROOT" and (clause.dep_ != "ccomp" or clause.i in results):
        raise Refuse("quantifier.positional_clause")
    return Made(rebuild(doc, {token.i: match_case(positional[token.lower_], token.text)}), "quantifier:positional")


def quantifier_caption(doc, ctx=None) -> Made:
    """ "Room with several computer monitors." -> "Room with no computer monitors.": a noun's one with phrase."""
    heads = [t for t in doc if t.dep_ == "ROOT"]
    captioned = len(heads) == 1 and heads[0].pos_ in ("NOUN", "PROPN") and not doc.text.rstrip().endswith(("?", "!"))
    counted = words("quantifiers_exchanged") | words("quantifiers_pronoun") | {"any", "other", "others"}
    found = [t for t in doc if t.lower_ in counted]
    in_with = len(found) == 1 and found[0].i in roots(doc, "quantifier.caption_with")
    if not captioned or not in_with or any(t.pos_ in ("VERB", "AUX") and t.dep_ != "amod" for t in doc):
        raise Refuse("quantifier.caption_none")  # "Several cows grazing ...": a subject, or a verb's with
    token = found[0]
    _refuse_quantifier(doc, token, unnegated=True)
    new = table("quantifiers_with")[token.lower_]
    if new == "no" and token.head.lemma_.lower() in words("person_sex") | words("person_nouns"):
        raise Refuse("quantifier.caption_with_people")  # "A meeting with several people" -> "with no people"
    return Made(rebuild(doc, {token.i: match_case(new, token.text)}), "quantifier:caption_with")
