"""Registry files kept beside one module (``<area>.<part>.yaml``), fallback examples, and the
temporal and quantifier tables of the lexicon (src/pairbench/generated_suites/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pairbench.generated_suites import registry
from pairbench.generated_suites.lexicon import table
from pairbench.generated_suites.rules_temporal import phrases

RECORD = "- {id: negation.x, kind: refusal, category: negation, reason: r, refuse: [a]}\n"


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_a_part_file_is_read_as_its_area(tmp_path):
    folder = _write(tmp_path, "negation.presuppositions.yaml", RECORD)
    _write(folder, "negation.yaml", RECORD.replace("negation.x", "negation.y"))
    recs = registry.load(folder)
    assert sorted(recs) == ["negation.x", "negation.y"]
    assert (recs["negation.x"].area, Path(recs["negation.x"].path).name) == (
        "negation",
        "negation.presuppositions.yaml",
    )


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("tenses.part.yaml", "[]\n", "tenses.part.yaml: no area 'tenses'; name the file after one of anchor"),
        (
            "negation.part.yaml",
            RECORD.replace("negation.x", "temporal.x"),
            "negation.part.yaml: temporal.x: an id is `negation.<snake_case>` in negation.part.yaml; rename it",
        ),
        (
            "negation.part.yaml",
            RECORD,
            "negation.yaml: negation.x: the id is used twice; give each record its own",
        ),
    ],
)
def test_a_bad_part_file_is_named_in_one_line(tmp_path, name, text, message):
    folder = _write(tmp_path, name, text)
    _write(folder, "negation.yaml", RECORD if "twice" in message else "[]\n")
    with pytest.raises(registry.RegistryError) as err:
        registry.load(folder)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_fallback_example_names_its_rule(tmp_path):
    folder = _write(
        tmp_path,
        "temporal.yaml",
        "- id: temporal.no_opening\n  kind: refusal\n  category: temporal\n  reason: r\n"
        "  refuse: [{anchor: The cat sat on the mat., fallback: temporal_opening}]\n",
    )
    example = registry.load(folder)["temporal.no_opening"].refuse[0]
    assert (example.anchor, example.category, example.fallback) == (
        "The cat sat on the mat.",
        "temporal",
        "temporal_opening",
    )
    # every fallback example of the package names a fallback of its category
    from pairbench.generated_suites.generate import FALLBACKS, RULES

    named = {(e.category, e.fallback) for r in registry.records().values() for e in r.refuse if e.fallback}
    assert {("temporal", "temporal_opening"), ("temporal", "temporal_headline")} <= named
    assert ("quantifier", "quantifier_positional") in named
    assert all(f in {r.__name__ for r in (RULES[c], *FALLBACKS[c])} for c, f in named)


def test_temporal_relations_invert_each_other_and_phrases_invert_to_one_word():
    relations = table("temporal_relations")
    assert {"before": "after", "earlier": "later"}.items() <= dict(relations).items()
    assert all(relations[relations[w]] == w for w in relations)
    # each phrase becomes one relation word (ahead of -> after, during -> after)
    assert phrases() and all(into in relations for into in phrases().values())
    assert ("ahead", "of") in phrases() and all(p[0] not in relations for p in phrases())


@pytest.mark.parametrize("kind", ["plural", "singular", "mass", "partitive", "positional"])
def test_every_quantifier_exchange_changes_the_word(kind):
    exchange = table(f"quantifiers_{kind}")
    assert exchange and all(new.split()[0] != old for old, new in exchange.items())
    if kind == "positional":  # the fallback keeps the plural and adds no negation
        assert not {"no", "none", "every", "each"} & set(exchange.values())
