"""The last checks on generated pairs (pairbench.generated_suites.vetoes): each refuses the kind of
pair the second blind reading found invalid, keeps a near neighbour that is valid, and only refuses."""

from __future__ import annotations

import csv

import pytest

from conftest import REPO
from pairbench.core.sources import locate_local, parse_source
from pairbench.generated_suites import generate as gen
from pairbench.generated_suites import registry
from pairbench.generated_suites.config import DEFAULT_PARSER, SuiteSettings
from pairbench.generated_suites.edits import Made
from pairbench.generated_suites.vetoes import anchor_veto, changed, fragment_veto, pair_veto, paraphrase_veto

SMOKE = REPO / "resources" / "smoke" / "graded_sts"

PAIRS = [
    # category, anchor, made sentence, rule, expected refusal (None: kept)
    ("near_miss", "Hawaii prepares for its first hurricane in 22 years", "Illinois prepares for its first hurricane in 22 years",
     "near_miss:gpe", "a place beside a natural event, a coast or a railway (Hawaii preps for a hurricane, a Moscow metro fire: the new place may have none)"),
    ("near_miss", "Hawaii prepares for its first election in 22 years", "Illinois prepares for its first election in 22 years",
     "near_miss:gpe", None),
    ("near_miss", "Thousands evacuated in Moscow metro fire", "Thousands evacuated in Nairobi metro fire", "near_miss:gpe",
     "a place beside a natural event, a coast or a railway (Hawaii preps for a hurricane, a Moscow metro fire: the new place may have none)"),
    ("near_miss", "Hundreds of Bangladesh clothes factory workers ill", "Hundreds of France clothes factory workers ill",
     "near_miss:gpe", "a country English names by its adjective before a noun (France clothes factory: French)"),
    ("near_miss", "Hundreds of Bangladesh clothes factory workers ill", "Hundreds of Pakistan clothes factory workers ill",
     "near_miss:gpe", None),
    ("near_miss", "Thousands of workers rallied in Bangladesh", "Thousands of workers rallied in France",
     "near_miss:gpe", None),
    ("hedging", "Rebels will leave the city, officials vow.", "Rebels will leave the city, officials may have vowed.",
     "hedging:add_may", "hedge on a reporting or attitude verb"),
    ("hedging", "The government has accused the company of fraud.", "The government may have accused the company of fraud.",
     "hedging:add_may", "hedge on a reporting or attitude verb"),
    ("hedging", "Storms are considered a growing threat.", "Storms may be considered a growing threat.",
     "hedging:add_may", "hedge on a reporting or attitude verb"),
    ("hedging", "A man plays the guitar and sings.", "A man may play the guitar and sings.",
     "hedging:add_may", "hedge on one of coordinated verbs"),
    ("hedging", "A man plays the guitar.", "A man may play the guitar.", "hedging:add_may", None),
    ("entity_swap", "The minister visited London during the first visit by a minister since 1969.",
     "London visited the minister during the first visit by a minister since 1969.", "entity_swap:subject_object",
     "the verb's event named again (visited London during the first visit by: the swap contradicts it)"),
    ("entity_swap", "The minister visited London in 1969.", "London visited the minister in 1969.",
     "entity_swap:subject_object", None),
    ("hedging", "Palm announced plans to acquire Handspring.", "Palm may have announced plans to acquire Handspring.",
     "hedging:add_may", None),
    ("hedging", "north korea denies involvement in the program.", "north korea may deny involvement in the program.",
     "hedging:add_may", "hedge on a reporting or attitude verb"),
    ("hedging", "The settlement includes $4.1 million in fees and expenses.",
     "The settlement may include $4.1 million in fees and expenses.", "hedging:add_may", None),
    ("hedging", "Bergonzi pleaded guilty and agreed to cooperate.", "Bergonzi may have pleaded guilty and agreed to cooperate.",
     "hedging:add_may_coordinated", None),
    ("numerical", "2 dead, 2 injured in Nevada middle school shooting", "3 dead, 2 injured in Nevada middle school shooting",
     "numerical:small_step", None),
    ("hedging", "A cat opens a drawer and climbs inside.", "A cat may be opening a drawer and climbs inside.",
     "hedging:add_may_progressive", "hedge on one of coordinated verbs"),
    ("negation", "A cat opens a drawer and climbs inside.", "A cat does not open a drawer and climbs inside.",
     "negation:do_support", "negation of one of coordinated verbs"),
    ("hedging", "A man feeds two dogs and three cats.", "A man may be feeding two dogs and three cats.",
     "hedging:add_may_progressive", None),
    ("hedging", "The storm was expected to hit the coast.", "The storm may have been expected to hit the coast.",
     "hedging:add_may", "hedge on a reporting or attitude verb"),
    ("negation", "A woman picks up and holds a baby kangaroo.", "A woman does not pick up and holds a baby kangaroo.",
     "negation:do_support", "negation of one of coordinated verbs"),
    ("negation", "U.S. bans carry-on liquids on flights", "U.S. bans do not carry-on liquids on flights",
     "negation:do_support", "negation inside a noun phrase"),
    ("negation", "A woman holds a baby kangaroo.", "A woman does not hold a baby kangaroo.", "negation:do_support", None),
    ("negation", "Communist rebels ambush Philippine police, kill 7",
     "Communist rebels do not ambush Philippine police, kill 7",
     "negation:do_support", "negation of one of coordinated verbs"),
    ("entity_swap", "The entire thing just makes no sense.", "No sense just makes the entire thing.",
     "entity_swap:subject_object", "swap of a light-verb idiom"),
    ("entity_swap", "The court granted the prisoner conditional bail.", "Conditional bail granted the court the prisoner.",
     "entity_swap:subject_object", "swap around a verb with two objects"),
    ("entity_swap", "A person is picking a lizard and putting it in a box.",
     "A lizard is picking a person and putting it in a box.",
     "entity_swap:subject_object", "a pronoun would refer to the other entity"),
    ("entity_swap", "The dog chases the cat.", "The cat chases the dog.", "entity_swap:subject_object", None),
    ("near_miss", "Ukrainian presidency says deal reached", "Saudi presidency says deal reached",
     "near_miss:norp", "nationality or country with a noun only some countries have"),
    ("near_miss", "Murray ends long wait for British win", "Murray ends long wait for Syrian win",
     "near_miss:norp", "nationality or country that may be a named person's"),
    ("near_miss", "Warnings might go up for Cuba later.", "Warnings might go up for US later.",
     "near_miss:gpe", "place name that takes an article"),
    ("near_miss", "Australia will build the largest marine reserve.", "Israel will build the largest marine reserve.",
     "near_miss:gpe", "place in a superlative claim"),
    ("near_miss", "Warnings might go up for Cuba later.", "Warnings might go up for Haiti later.", "near_miss:gpe", None),
    ("near_miss", "It opened on Friday.", "It opened on Saturday.", "near_miss:day_or_month", None),
    ("quantifier", "The entire thing just makes no sense.", "The entire thing just makes some sense.",
     "quantifier:no_to_some", "fixed expression with no"),
    ("quantifier", "No students came to the talk.", "Some students came to the talk.", "quantifier:no_to_some", None),
    ("temporal", '"It was a test before the launch.', 'It was a test after the launch."',
     "temporal:before", "quotation marks moved"),
    ("temporal", "It was a test before the launch.", "It was a test after the launch.", "temporal:before", None),
    ("near_miss", "Iran, world powers begin new round of nuclear talks", "US, world powers begin new round of nuclear talks",
     "near_miss:gpe", "a world power put beside the world powers (Iran, world powers -> US, world powers: one of them)"),
    ("near_miss", "Iran, world powers begin new round of nuclear talks",
     "India, world powers begin new round of nuclear talks", "near_miss:gpe", None),
]  # fmt: skip

PARAPHRASES = [
    ("Why are Russians in Damascus?", "Russians in Damascus!", "question, exclamation or statement differs"),
    ("If it was not true it would not be news. It is simple.", "If it was not true it would not be news.",
     "sentence count differs"),
    ("A man is playing a guitar.", "He is playing a guitar.", None),
    ('"The gloves are off," said official Rob Neill.', 'Official Rob Neill said: "The gloves are off.',
     "the paraphrase is no fluent sentence where the anchor is (a check of the other paraphrase fails on it alone)"),
    ("I'd offer Iran a deal.", "Chuck I'd offer Iran a deal.", "words added to the other"),
    ("An office with multiple desks and green walls.", "Small office space with bright green walls.",
     "too many content words added or dropped"),
    ("A man is slicing an onion.", "A man slices an onion.", None),
    ("The cat sat on the mat.", "A cat was sitting on the mat.", None),
    ("A man plays the guitar.", "------ ----------- A man is playing the guitar.", "a run of dashes or symbols (------ news text: not fluent)"),
]  # fmt: skip


@pytest.mark.parametrize(
    "category, anchor, made, rule, expected", PAIRS, ids=[f"{p[0]}-{i}" for i, p in enumerate(PAIRS)]
)
def test_pair_veto(nlp, category, anchor, made, rule, expected):
    assert registry.reason(pair_veto(category, nlp(anchor), anchor, Made(made, rule))) == expected


@pytest.mark.parametrize("a, p, expected", PARAPHRASES, ids=[f"p{i}" for i in range(len(PARAPHRASES))])
def test_paraphrase_veto(a, p, expected):
    assert registry.reason(paraphrase_veto(a, p)) == expected


def test_changed_span():
    assert changed("A man plays the guitar.", "A man may play the guitar.") == (6, "plays", "may play")
    assert changed("U.S. bans carry-on liquids", "U.S. bans do not carry-on liquids") == (10, "", "do not")


MISSPELT = (
    "other paraphrase has a word the English word list lacks (a typo, a cut-off word or a rare one: slced, strik)"
)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("A kitten is playing with a blue rope toy.", None),
        ("Asteroid passes Earth in fly-by", None),
        ("Neander's revised version\"?", "other paraphrase has an unbalanced quote (a fragment)"),
        (
            "YOU FOOLS..bought the  cover-up..hook..",
            "other paraphrase has a word lost (two spaces or a space before a full stop: bought the  cover-up)",
        ),
        (
            "he said that the family lived under the protection of the king after iraq issued its",
            "other paraphrase ends in a determiner, preposition or conjunction (cut off)",
        ),
        (
            "A little girl running at on the shore of a beach.",
            "other paraphrase has a doubled word or two words that never meet (at on)",
        ),
        (
            "during the clash 7 seven police officers were killed.",
            "other paraphrase has a doubled word or two words that never meet (at on)",
        ),
        ("Seven police officers were killed, 7 of them in the north.", None),
        ("A hare is running from a eagle.", "other paraphrase has an article that does not agree (a eagle)"),
        ("A American flag is blowing in the wind.", "other paraphrase has an article that does not agree (a eagle)"),
        ("A European leader took a one-day trip and a once-in-a-lifetime photo.", None),
        ("Type A insulin was given to a EU official by a ewe farmer.", None),
        ("The man slced through a thick rope with a sword.", MISSPELT),
        (
            "------ ----------- What do we get in return?",
            "other paraphrase has a run of dashes or symbols (------ news text: not fluent)",
        ),
        (
            "Those may be my top . The money I spent.",
            "other paraphrase has a word lost (two spaces or a space before a full stop: bought the  cover-up)",
        ),
        ("He flew to the U.S. on Monday.", None),
        ("U.S. judge approves force-feeding Californian inmates on hunger strik", MISSPELT),
        ("My neighbour is trialling a new colour for the centre of the catalogue.", None),
        ("the cfe treaty was signed in 1990 by russia.", None),  # all lower case: names are too
        (
            "not well Alright just got in.",
            "other paraphrase runs two sentences together (not well Alright just got in)",
        ),
        ("Alright, he said, we are going home.", None),
        (
            "No, don't support your weight on your arms Your hands are not made for it.",
            "other paraphrase runs two sentences together (not well Alright just got in)",
        ),
        ("It will be published in tomorrow's issue of The New England Journal of Medicine.", None),
        (
            "voted Voted It's definitely not what it used to be.",
            "other paraphrase has a doubled word or two words that never meet (at on)",
        ),
    ],
)
def test_fragment_veto(text, expected):
    assert registry.reason(fragment_veto(text)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Cone threw an  game.", "a word lost in the anchor (two spaces or a space before its full stop: an  game)"),
        (
            "The prime minister has formed a cabinet ten months after taking office, taking in a wide range of"
            " groups after bridging serious divisions am",
            "an anchor cut off (over 20 words and no final stop: news text cut at a length)",
        ),
        ("Lebanon's prime minister forms a unity cabinet after ten months of talks with every party", None),
        (
            "The prime minister has formed a cabinet ten months after taking office, taking in a wide range of"
            " groups after bridging serious divisions.",
            None,
        ),
    ],
)
def test_anchor_veto(text, expected):
    """No pair is made from an anchor with a lost word or one cut off at a length (a headline is short)."""
    assert registry.reason(anchor_veto(text)) == expected


def _rows(path):
    with open(path, encoding="utf-8", newline="") as handle:
        return [tuple(r.values()) for r in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)]


def test_vetoes_only_refuse(nlp, tmp_path, monkeypatch):
    """With the checks the suite is a subset of the suite without them: same pair ids, same sentences."""
    settings = SuiteSettings.from_block(
        {"data": "graded-smoke", "split": ["train", "dev", "test"], "score_max": 5, "min_score": 4.0, "seed": 0}, "s"
    )
    parser = locate_local(parse_source(DEFAULT_PARSER))
    gen.build_suite("smoke", SMOKE, parser, settings, tmp_path / "with.tsv")
    monkeypatch.setattr(gen, "pair_veto", lambda *args: None)
    monkeypatch.setattr(gen, "paraphrase_veto", lambda *args: None)
    gen.build_suite("smoke", SMOKE, parser, settings, tmp_path / "without.tsv")
    kept, before = _rows(tmp_path / "with.tsv"), set(_rows(tmp_path / "without.tsv"))
    assert set(kept) <= before
    assert 0 < len(kept) < len(before)
