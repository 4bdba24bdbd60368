"""The registry of generated-suite rules and refusals (src/pairbench/generated_suites/registry/):
every example of every record, the registry's validation, its ids against the code's, the
generated docs table and a record added in a throwaway registry folder."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from conftest import REPO
from pairbench.generated_suites import registry
from pairbench.generated_suites.config import SuiteSettings
from pairbench.generated_suites.edits import Made, Refuse
from pairbench.generated_suites.generate import FALLBACKS, RULES, example_context, generate, try_anchor
from pairbench.generated_suites.lexicon import LexiconError, names, words

PACKAGE = REPO / "src" / "pairbench" / "generated_suites"
SUITE_LEVEL = ("check.audit", "positive_control.under_control_min_score")


def _examples():
    for rid, record in sorted(registry.records().items()):
        for i, example in enumerate(record.refuse):
            yield pytest.param(rid, "refuse", example, id=f"{rid}-refuse-{i}")
        for i, example in enumerate(record.keep):
            yield pytest.param(rid, "keep", example, id=f"{rid}-keep-{i}")


def _suite_level(nlp, rid, example):
    """The two refusals a whole suite makes, not one anchor: a positive control scored under
    ``control_min_score`` (the example's pair left out of the scored pairs), and a pair of a rule
    that a graded audit drops (the example is the pair made; tests/test_generated_audit.py drops
    it)."""
    if rid == "check.audit":
        return try_anchor(nlp, example.anchor, example.category)
    other = ("A woman is slicing an onion.", "A woman slices an onion.")
    block = {"data": "d", "split": ["train"], "categories": ["positive_control", "negation"]}
    out = generate(
        "t", [(example.anchor, example.paraphrase), other], nlp, SuiteSettings.from_block(block, "t"), {other}
    )
    return next(iter(out.refusals["positive_control"]))


@pytest.mark.parametrize("rid, kind, example", list(_examples()))
def test_every_registry_example(nlp, rid, kind, example):
    record = registry.records()[rid]
    if rid in SUITE_LEVEL:
        got = _suite_level(nlp, rid, example)
        assert isinstance(got, Made) if rid == "check.audit" else got == rid
        return
    if example.fallback is not None:  # one rule's own refusal, tried alone: a fallback's, or the main
        # rule's where a fallback then makes a pair (the main rule's refusal is the one counted)
        main = RULES[example.category]
        if example.fallback == main.__name__:
            rule = functools.partial(main, ctx=example_context(nlp))
        else:
            rule = next(r for r in FALLBACKS[example.category] if r.__name__ == example.fallback)
        with pytest.raises(Refuse) as refused:
            rule(nlp(example.anchor))
        assert (kind, refused.value.id) == ("refuse", rid), f"{example.anchor!r} ({example.fallback})"
        return
    got = try_anchor(nlp, example.anchor, example.category, paraphrase=example.paraphrase)
    if kind == "refuse":
        assert got == rid, f"{example.anchor!r} ({example.category}): {got!r}, not refused by {rid}"
    elif record.kind == "rule":
        assert isinstance(got, Made), f"{example.anchor!r} ({example.category}): refused by {got!r}"
        assert got.rule == record.rule
        if example.pair is not None:
            assert got.text == example.pair
    else:
        assert got != rid, f"{example.anchor!r} ({example.category}): refused by {rid}"
        if example.pair is not None:
            assert isinstance(got, Made) and got.text == example.pair


def test_each_records_matches_are_spacys_own_on_every_example(nlp):
    """``patterns`` runs a record's matcher only where a quick test says it can match: on every registry example,
    its matches are those of a Matcher (DependencyMatcher) holding the record's patterns, run on every doc."""
    from spacy.matcher import DependencyMatcher, Matcher

    from pairbench.generated_suites import patterns

    texts = sorted({e.anchor for r in registry.records().values() for e in (*r.keep, *r.refuse)})
    docs = list(nlp.pipe(texts))
    for rid, record in registry.records().items():
        for kind, found in (("pattern", patterns.matches), ("dep_pattern", patterns.dep_matches)):
            if getattr(record, kind) is None:
                continue
            spacy_own = (Matcher if kind == "pattern" else DependencyMatcher)(nlp.vocab)
            spacy_own.add(rid, getattr(record, kind))
            for doc in docs:
                want = [doc[a:b] for _, a, b in spacy_own(doc)] if kind == "pattern" else None
                if want is None:
                    want = [[doc[i] for i in ids] for _, ids in spacy_own(doc)]
                assert found(doc, rid) == want, f"{rid} ({kind}) on {doc.text!r}"


@pytest.mark.parametrize(
    "op, optional",
    [
        ("?", True),
        ("*", True),
        ("!", True),
        ("+", False),
        ("{2}", False),
        ("{0,3}", True),
        ("{,2}", True),
        ("{1,}", False),
        (None, False),
    ],
)
def test_a_token_a_match_may_lack_is_not_asked_of_the_doc(op, optional):
    from pairbench.generated_suites.patterns import _optional

    assert _optional({"LOWER": "so", **({"OP": op} if op else {})}) is optional
    assert _optional({"LOWER": "so", **({"op": op} if op else {})}) is optional  # spaCy reads keys in any case


def test_every_record_has_examples_and_a_one_line_reason():
    recs = registry.records()
    assert len(recs) > 50
    for rid, record in recs.items():
        assert rid.split(".")[0] == Path(record.path).stem.split(".")[0]
        assert record.reason and "\n" not in record.reason
        assert record.refuse if record.kind == "refusal" else record.keep and record.rule


def test_no_example_is_a_sentence_of_the_held_out_set():
    """Rules are not tuned on held-out text: no registry example quotes the held-out paraphrase set
    (STS-B test, the other held-out source, is outside the repository and was checked on 2026-11-29)."""
    held = set()
    for line in (REPO / "resources/paraphrases/held-out-styles/all.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        held.update(line.split("\t")[:2])
    quoted = {
        (rid, text)
        for rid, record in registry.records().items()
        for example in (*record.keep, *record.refuse)
        for text in (example.anchor, example.paraphrase, example.pair)
        if text in held
    }
    assert not quoted


def _ids_in_source() -> set[str]:
    """Refusal ids the code raises or returns: ``Refuse("area.id")`` and quoted ``"area.id"``
    literals of a registry area."""
    areas = "|".join(registry.AREAS)
    found = set()
    for path in PACKAGE.glob("*.py"):
        found |= set(re.findall(rf"""["']((?:{areas})\.[a-z0-9_]+)["']""", path.read_text(encoding="utf-8")))
    return found


def test_the_code_uses_only_registered_ids_and_every_refusal_is_used():
    recs = registry.records()
    used = _ids_in_source()
    assert sorted(used - set(recs)) == []
    unused = {rid for rid, r in recs.items() if r.kind == "refusal"} - used
    assert sorted(unused) == []


def test_refuse_gives_the_registered_reason():
    refused = Refuse("anchor.question")
    assert (refused.id, refused.reason) == ("anchor.question", "question")


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_a_new_record_is_validated_and_iterated(tmp_path):
    folder = _write(
        tmp_path,
        "temporal.yaml",
        "- id: temporal.result_before_cause\n  kind: refusal\n  category: temporal\n"
        "  reason: the inverted order puts a result before what causes it\n"
        '  refuse: ["The crowd cheered after the team scored the winning goal."]\n'
        '  keep: [{anchor: "She moved to Lisbon after she finished her degree."}]\n'
        '  pattern: [[{"LOWER": "after"}]]\n',
    )
    recs = registry.load(folder)
    record = recs["temporal.result_before_cause"]
    assert (record.kind, record.category, record.refuse[0].category) == ("refusal", "temporal", "temporal")
    assert record.refuse[0].anchor == "The crowd cheered after the team scored the winning goal."
    assert registry.markdown(recs).count("`temporal.result_before_cause`") == 1


def test_a_pattern_names_a_lexicon_list_and_matches_its_words(tmp_path):
    from spacy.lang.en import English

    from pairbench.generated_suites.lexicon import words

    folder = _write(
        tmp_path,
        "negation.yaml",
        "- {id: negation.x, kind: refusal, category: negation, reason: r, refuse: [a], "
        "pattern: [[{LOWER: {IN: '@negative_words'}}]]}\n",
    )
    record = registry.load(folder)["negation.x"]
    assert record.pattern == [[{"LOWER": {"IN": sorted(words("negative_words"))}}]]
    from spacy.matcher import Matcher

    nlp = English()
    matcher = Matcher(nlp.vocab, validate=True)
    matcher.add("x", record.pattern)
    word = sorted(words("negative_words"))[0]
    assert [nlp.vocab.strings[m] for m, _, _ in matcher(nlp(f"There was {word} reply."))] == ["x"]
    assert matcher(nlp("There was a reply.")) == []


def test_a_pattern_named_same_as_another_records_is_that_pattern(tmp_path):
    folder = _write(
        tmp_path,
        "negation.yaml",
        "- {id: negation.x, kind: refusal, category: negation, reason: r, refuse: [a], "
        "pattern: [[{LOWER: so}, {POS: VERB}]], dep_pattern: [[{RIGHT_ID: v, RIGHT_ATTRS: {POS: VERB}}]]}\n",
    )
    (folder / "hedging.yaml").write_text(
        "- {id: hedging.x, kind: refusal, category: hedging, reason: r, refuse: [a], "
        "pattern: {same_as: negation.x}, dep_pattern: {same_as: negation.x}}\n"
    )
    recs = registry.load(folder)
    assert recs["hedging.x"].pattern == recs["negation.x"].pattern == [[{"LOWER": "so"}, {"POS": "VERB"}]]
    assert recs["hedging.x"].dep_pattern == recs["negation.x"].dep_pattern
    assert list(recs) == ["hedging.x", "negation.x"]  # the files' order
    # a fault in the shared pattern is named under the record that holds it, not the one that names it
    (folder / "negation.yaml").write_text(
        "- {id: negation.x, kind: refusal, category: negation, reason: r, refuse: [a], "
        "pattern: [[{LOWER: {IN: '@no_such_list'}}]]}\n"
    )
    (folder / "hedging.yaml").write_text(
        "- {id: hedging.x, kind: refusal, category: hedging, reason: r, refuse: [a], pattern: {same_as: negation.x}}\n"
    )
    with pytest.raises(registry.RegistryError, match=r"^negation\.yaml: negation\.x: its pattern names lexicon"):
        registry.load(folder)


@pytest.mark.parametrize(
    "name, text, message",
    [
        (
            "temporal.yaml",
            "- {id: negation.x, kind: refusal, category: temporal, reason: r, refuse: [a]}\n",
            "temporal.yaml: negation.x: an id is `temporal.<snake_case>` in temporal.yaml; rename it",
        ),
        (
            "temporal.yaml",
            "- {id: temporal.x, kind: refusal, category: temporal, reason: r}\n",
            "temporal.yaml: temporal.x: a refusal has no `rule` and at least one `refuse` example; add one",
        ),
        (
            "temporal.yaml",
            "- {id: temporal.x, kind: refusal, category: temporal, reason: r, refuse: [a]}\n"
            "- {id: temporal.x, kind: refusal, category: temporal, reason: s, refuse: [b]}\n",
            "temporal.yaml: temporal.x: the id is used twice; give each record its own",
        ),
        (
            "temporal.yaml",
            "- {id: temporal.x, kind: rule, category: negation, reason: r, rule: 'temporal:x', keep: [a]}\n",
            "temporal.yaml: temporal.x: `category` is 'negation'; records of temporal.yaml have 'temporal'",
        ),
        (
            "temporal.yaml",
            "- {id: temporal.x, kind: refusal, category: temporal, reason: r, refuse: [a], "
            "pattern: [[{LOWERCASE: after}]]}\n",
            "temporal.yaml: temporal.x: spaCy refuses its pattern",
        ),
        (
            "temporal.yaml",
            "- {id: temporal.x, kind: refusal, category: temporal, reason: r, refuse: [a], "
            "pattern: [[{LOWER: {IN: '@no_such_list'}}]]}\n",
            "temporal.yaml: temporal.x: its pattern names lexicon '@no_such_list':",
        ),
        (
            "temporal.yaml",
            "- {id: temporal.x, kind: refusal, category: temporal, reason: r, refuse: [a], "
            "pattern: {same_as: temporal.y}}\n",
            "temporal.yaml: temporal.x: `pattern: {same_as: ...}` names 'temporal.y', no record with a `pattern` of "
            "its own; name one",
        ),
        (  # a chain: the record named shares its own pattern, whatever the order of the two
            "temporal.yaml",
            "- {id: temporal.y, kind: refusal, category: temporal, reason: r, refuse: [a], "
            "pattern: {same_as: temporal.x}}\n"
            "- {id: temporal.x, kind: refusal, category: temporal, reason: r, refuse: [a], "
            "pattern: {same_as: temporal.z}}\n"
            "- {id: temporal.z, kind: refusal, category: temporal, reason: r, refuse: [a], pattern: [[{LOWER: a}]]}\n",
            "temporal.yaml: temporal.y: `pattern: {same_as: ...}` names 'temporal.x', no record with a `pattern` of",
        ),
        (
            "temporal.yaml",
            "- {id: temporal.x, kind: refusal, category: temporal, reason: r, refuse: [a], "
            "pattern: {same_as: [temporal.y]}}\n",
            "temporal.yaml: temporal.x: `pattern: {same_as: ...}` names ['temporal.y'], no record with a `pattern`",
        ),
        ("tenses.yaml", "[]\n", "tenses.yaml: no area 'tenses'; name the file after one of anchor, check"),
        (  # the record's schema (workflow/schemas/generated_registry.schema.yaml), in the config's words
            "temporal.yaml",
            "- {id: temporal.x, kind: refusel, category: temporal, reason: r, refuse: [a]}\n",
            "temporal.yaml: temporal.x: kind: 'refusel' is not one of ['rule', 'refusal'] "
            "(workflow/schemas/generated_registry.schema.yaml)",
        ),
        (
            "temporal.yaml",
            "- {id: temporal.x, kind: refusal, category: temporal, reason: r, refuse: [a], paterns: []}\n",
            "temporal.yaml: temporal.x: paterns: unknown key (misspelt?); the keys here are: id, kind, category",
        ),
        (  # YAML keeps the last of two equal keys: the first list of examples would be lost untested
            "temporal.yaml",
            "- id: temporal.x\n  kind: refusal\n  category: temporal\n  reason: r\n  refuse: [a]\n  refuse: [b]\n",
            "temporal.yaml:6:3: key 'refuse' is given twice in one mapping (first on line 5); YAML would keep only "
            "the last: merge the two or delete one",
        ),
    ],
)
def test_a_bad_registry_file_is_named_in_one_line(tmp_path, name, text, message):
    folder = _write(tmp_path, name, text)
    with pytest.raises(registry.RegistryError) as err:
        registry.load(folder)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_every_lexicon_list_loads_and_verbs_of_saying_are_one_list():
    for name in names():
        assert words(name), name
    assert {"say", "tell", "report"} <= words("verbs_of_saying")
    with pytest.raises(LexiconError, match="no such lexicon file"):
        words("no_such_list")


def test_an_included_list_is_written_once_and_its_words_count():
    from pairbench.generated_suites.lexicon import _load

    for name in names():
        for other in _load(name).get("include", []):
            assert words(other) <= words(name), (name, other)
            assert not words(other) & set(_load(name)["words"]), f"{name}.yaml repeats words of {other}.yaml"


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"a": "include: [b]\n", "b": "include: [a]\n"}, "a.yaml: `include` comes back to itself (a -> b -> a)"),
        ({"a": "include: [nothing]\n"}, "a.yaml: `include` names no lexicon file ['nothing']; fix the name"),
        ({"a": "include: b\n", "b": ""}, "a.yaml: `include` is a list of lexicon names, beside `words`"),
        (
            {"a": "incldue: [b]\n", "b": ""},
            "a.yaml: incldue: unknown key (misspelt?); the keys here are: description, words, table, include "
            "(workflow/schemas/generated_lexicon.schema.yaml)",
        ),
    ],
)
def test_a_bad_include_is_named_in_one_line(tmp_path, monkeypatch, files, message):
    from pairbench.generated_suites import lexicon

    for name, text in files.items():
        (tmp_path / f"{name}.yaml").write_text(f"description: d\n{text}words: [{name}word]\n", encoding="utf-8")
    monkeypatch.setattr(lexicon, "FOLDER", tmp_path)
    for cached in (lexicon._load, lexicon.words):
        cached.cache_clear()
    try:
        with pytest.raises(LexiconError) as err:
            lexicon.words("a")
        assert message in str(err.value) and "\n" not in str(err.value)
    finally:
        monkeypatch.undo()
        for cached in (lexicon._load, lexicon.words):
            cached.cache_clear()
    assert lexicon.words("market_moves") >= {"gain", "fall"}  # price_moves's, by its include


def test_the_docs_table_is_current():
    assert registry.DOC.read_text(encoding="utf-8") == registry.markdown(), (
        "docs/generated_rules.md is stale: run `python -m pairbench.generated_suites.registry --markdown`"
    )


def test_the_card_counts_refusals_by_id_with_their_reasons():
    from collections import Counter
    from types import SimpleNamespace

    from pairbench.generated_suites.card import card_markdown, card_payload
    from pairbench.generated_suites.generate import Generated

    generated = Generated(n_anchors=4)
    generated.rows = [
        ("t-a00000-positive_control", "positive_control", "A", "B", "a00000", "positive_control:paraphrase")
    ]
    generated.refusals = {
        "negation": Counter({"anchor.question": 3}),
        "positive_control": Counter({"anchor.question": 3}),
    }
    settings = SuiteSettings.from_block({"data": "d", "split": ["train"]}, "t")
    nlp = SimpleNamespace(meta={"lang": "en", "name": "core_web_sm", "version": "3.8.0"})
    card = card_payload("t", generated, settings, source={}, nlp=nlp)
    assert card["refusals"]["negation"] == {"anchor.question": 3}
    assert card["refusal_reasons"] == {"anchor.question": "question"}
    assert "| negation | `anchor.question` | question | 3 |" in card_markdown(card).splitlines()
