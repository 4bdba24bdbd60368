"""Generated suites: every rule on hard sentences, the token diff of every generated row,
determinism, one-line errors, the suite loader's optional columns and the anchored statistics."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from conftest import (
    REPO,
    SHARED_STSB,
    copy_workflow,
    planned_jobs,
    snakemake,
    write_config,
)
from pairbench.core.errors import PairbenchError
from pairbench.core.sources import locate_local, parse_source
from pairbench.generated_suites.check import check_pair, tokens
from pairbench.generated_suites.config import DEFAULT_PARSER, SuiteSettings
from pairbench.generated_suites.edits import Refuse
from pairbench.generated_suites.generate import (
    FALLBACKS,
    Context,
    Generated,
    apply_rule,
    apply_rules,
    build_suite,
    load_parser,
)
from pairbench.generated_suites.rules_caption import entity_swap_caption, negation_caption
from pairbench.generated_suites.rules_fallback import near_miss_attribute
from pairbench.generated_suites.rules_lexical import indefinite_article
from pairbench.generated_suites.rules_near_miss import entity_inventory
from pairbench.generated_suites.rules_quantifier import quantifier_positional
from pairbench.generated_suites.rules_step import numerical_step, small_step
from pairbench.generated_suites.rules_temporal import temporal_opening
from pairbench.generated_suites.vetoes import fragment_veto
from pairbench.study.anchored import (
    anchor_wins,
    anchored,
    anchored_comparison,
    mcnemar_exact,
)
from pairbench.study.suite import load_suite

SMOKE = REPO / "resources" / "smoke" / "graded_sts"

# (category, anchor, expected A' or None when the rule must refuse, rule or refusal reason)
# Kinds of pair a blind reader found invalid in the third audit: each now refused, with its reason.
# The fifth reading's failures, each refused or written otherwise, and the caption fragments read.
# Headlines the tagger reads right are no longer refused for a verb that may be a noun; the ones
# whose other reading is possible still are, and early/late moves a named time (a fallback).
# A caption's present is hedged as what is seen ("may be moving"; "may move" read as a forecast);
# prose and habits keep "may" + base.
ROUND_SEVEN_CASES = [
    ("hedging", "A black train moves down the tracks.", "A black train may be moving down the tracks.",
     "hedging:add_may_progressive"),
    ("hedging", "Someone slices a bottle with a sword.", "Someone may be slicing a bottle with a sword.",
     "hedging:add_may_progressive"),
    ("hedging", "Two dogs swim in a pool.", "Two dogs may be swimming in a pool.", "hedging:add_may_progressive"),
    ("hedging", "The clinic treats about 40 children every week.",
     "The clinic may treat about 40 children every week.", "hedging:add_may"),
    ("hedging", "A dog sleeps on the sofa every night.", "A dog may sleep on the sofa every night.", "hedging:add_may"),
    ("hedging", "A man owns a red car.", "A man may own a red car.", "hedging:add_may"),
    ("negation", "He will be paid $395,000 per year, up from his current salary of $361,400.", None,
     "a phrase that presupposes the claim (along with, as well as, do so)"),
    ("negation", "The victim was taken to the hospital, where he later died.", None,
     "a where clause of a later event (taken to X, where he later died: it presupposes the claim)"),
    ("negation", "Miami must decide by June 30.", None, "must (must not forbids: it does not deny must)"),
    ("negation", "North Korea says to put US citizen on trial", None,
     "verb of saying without its claim (says to put: not would deny the saying)"),
    ("negation", "The election results were announced later than expected.",
     "The election results were not announced later than expected.", "negation:insert_not"),
    ("negation", "Armstrong steps down from Livestrong", "Armstrong does not step down from Livestrong",
     "negation:do_support"),
]  # fmt: skip

# The full reading of the negation and hedging pairs no reading had seen: each failure's kind, and
# the neighbour each refusal keeps.
# Coverage regained where a reading vouched for it: a hedge on verbs that share the first one's
# auxiliary, will -> may, did not -> might not have, a verb of announcing with its object alone, a
# noun after a modified plural; a count in a Title-Case headline or a decimal amount takes a small
# step; a swap of a singular and a plural re-agrees its auxiliary.
ROUND_NINE_CASES = [
    ("hedging", "Two women are posing for the camera and giving the thumbs up sign.",
     "Two women may be posing for the camera and giving the thumbs up sign.", "hedging:add_may_coordinated"),
    ("hedging", "Bergonzi pleaded guilty on June 5 and agreed to cooperate with prosecutors.",
     "Bergonzi may have pleaded guilty on June 5 and agreed to cooperate with prosecutors.",
     "hedging:add_may_coordinated"),
    ("hedging", "The children swam and ran along the beach.", None,
     "coordinated verbs (the hedge would cover one of them only)"),
    ("hedging", "The company will release a statement.", "The company may release a statement.",
     "hedging:will_to_may"),
    ("hedging", "The minister did not attend the meeting.", "The minister might not have attended the meeting.",
     "hedging:add_may_negated"),
    ("hedging", "The goal was not just to win but to rebuild.", None, "not with a focus word (not just X but Y)"),
    ("hedging", "The man spread butter on the loaf of bread.", "The man may have spread butter on the loaf of bread.",
     "hedging:add_may"),
    ("hedging", "a man walks two dogs on leashes down the street",
     "a man may be walking two dogs on leashes down the street", "hedging:add_may_progressive"),
    ("hedging", "EU heaps new sanctions on Syria", "EU may have heaped new sanctions on Syria", "hedging:add_may"),
    ("hedging", "Red grapes and blueberries boost immune system, scientists say", None,
     "a finding reported after it in a headline (grapes boost, scientists say: may have boosted?)"),
    ("negation", "The storm was expected to hit somewhere along the coast.", None,
     "somewhere after the verb (not expected to hit somewhere: a denial needs anywhere)"),
    ("negation", "Nelson Mandela dies aged 95", None,
     "a death with its age (does not die aged 74: is the death or the age denied?)"),
    ("entity_swap", "A man is lifting weights.", "Weights are lifting a man.", "entity_swap:subject_object_agreement"),
    ("entity_swap", "A toy train is striking a toy car.", "A toy car is striking a toy train.",
     "entity_swap:subject_object"),
    ("entity_swap", "A man cuts mushrooms.", None,
     "arguments differ in number (the verb would disagree)"),
]  # fmt: skip

# The tenth round: refusals for the pairs earlier readings found invalid that the suites still wrote.
ROUND_TEN_CASES = [
    ("hedging", "Scuba diver submerged in water.", None,
     "a caption's past form with no object (diver submerged in water: a state, may have submerged an act)"),
    ("hedging", "Eight bottles of Harp lager lined up on the floor.", None,
     "a caption's past form with no object (diver submerged in water: a state, may have submerged an act)"),
    ("hedging", "Thousands of people marched through the city.",
     "Thousands of people may have marched through the city.", "hedging:add_may"),
    ("hedging", "Former Zambian president arrested", "Former Zambian president may have been arrested",
     "hedging:add_may_passive"),
    ("hedging", "She wood have asked her if she is up for it.", None,
     "a word the parse hangs on a pronoun (I wood have asked: may goes where?)"),
    ("negation", "Amnesty International has said that over the past 20 years it has collected information about "
     "17,000 disappearances in Iraq but the actual figure may be much higher.", None,
     "a but clause about the claim's object (..., but it turned out to be: it presupposes the claim)"),
    ("entity_swap", "U.S. bans carry-on liquids, gels on flights to Russia", None,
     "verb glued to a neighbour by a hyphen (bans carry-on liquids: a modifier, not the verb)"),
    ("numerical", "The patient takes 2 inhalers a day.", "The patient takes 3 inhalers a day.", "numerical:small_step"),
    ("numerical", "The factory produces about 400 cars a day.", "The factory produces about 4000 cars a day.",
     "numerical:digits_x10"),
]  # fmt: skip


ROUND_ELEVEN_CASES = [
    ("quantifier", "Ridge said no real explosives or harmful devices will be used in the exercise.",
     "Ridge said some real explosives or harmful devices will be used in the exercise.", "quantifier:no_to_some"),
    ("quantifier", "No states and the federal government passed similar bans.", None,
     "coordinated noun (several states and the government)"),
    ("quantifier", "While some other parts of Africa have been used as staging grounds, Malawi has not.",
     "While all other parts of Africa have been used as staging grounds, Malawi has not.", "quantifier:some_to_all"),
    ("quantifier", "The coach gave no details other than to say the passengers were of mixed ages.", None,
     "contrast with the others (some cases ... others): the exchange contradicts it"),
    ("quantifier", "Courts allowed the displays in some cases and banned them in others.", None,
     "contrast with the others (some cases ... others): the exchange contradicts it"),
    ("quantifier", "Turkish authorities have said all the suicide bombers were Turks.",
     "Turkish authorities have said some of the suicide bombers were Turks.", "quantifier:all_to_some"),
    ("quantifier", "But in the end, all the worm did was visit a pornography site.", None,
     "no quantifier determiner (all, every, some, no, most, few)"),
    ("quantifier", "Jim Williams said that by the middle of November, many arriving passengers in Atlanta will be "
     "fingerprinted.", "Jim Williams said that by the middle of November, few arriving passengers in Atlanta will be "
     "fingerprinted.", "quantifier:positional"),
    ("numerical", "Ukrainian weightlifter gets four-year doping ban", "Ukrainian weightlifter gets five-year doping ban",
     "numerical:small_step"),
    ("numerical", "Investigators uncovered a 4-inch bone fragment from beneath the slab.",
     "Investigators uncovered a 5-inch bone fragment from beneath the slab.", "numerical:small_step"),
    ("numerical", "Now her husband, 63-year-old Roger Strunk, faces a murder indictment.", None,
     "number in an identifier, score, ratio or age (type 1, 3-2, age 15)"),
    ("numerical", "He projected Vanderpool will be available within the next five years.",
     "He projected Vanderpool will be available within the next six years.", "numerical:small_step"),
    ("numerical", "Lucent Technologies is being investigated by two federal agencies for possible bribery.",
     "Lucent Technologies is being investigated by three federal agencies for possible bribery.",
     "numerical:small_step"),
    ("numerical", "She left last Friday, two days after the department introduced a plan.",
     "She left last Friday, three days after the department introduced a plan.", "numerical:small_step"),
]  # fmt: skip


ROUND_TWELVE_CASES = [
    ("temporal", "Several states and the federal government later passed similar or more strict bans.",
     "Several states and the federal government earlier passed similar or more strict bans.", "temporal:later"),
    ("temporal", "Russian stocks fell after the arrest last Saturday of the company's chief executive.",
     "Russian stocks fell before the arrest last Saturday of the company's chief executive.", "temporal:after"),
    ("temporal", "Prosecutors asked that the reports be unsealed after portions of the report were leaked to the media.",
     "Prosecutors asked that the reports be unsealed before portions of the report were leaked to the media.",
     "temporal:after"),
    ("temporal", "South Sudan accuses Sudan of bombings ahead of talks",
     "South Sudan accuses Sudan of bombings after talks", "temporal:ahead_of"),
    ("temporal", "U.S. troops killed two dozen militants after coming under fire.",
     "U.S. troops killed two dozen militants before coming under fire.", "temporal:after"),
    ("temporal", "The midwife visited the mother two days after the birth.",
     "The midwife visited the mother two days before the birth.", "temporal:after"),
    ("temporal", "The shooting victim was taken to the hospital, where he later died, the police said.", None,
     "earlier/later without than (= previously, afterwards, later Thursday)"),
    ("temporal", "He later learned that the incident was caused by a sonic boom.", None,
     "earlier/later on a result or a discovery (where he later died, later learned)"),
    ("temporal", "The firm later died out.", None,
     "earlier/later on a result or a discovery (where he later died, later learned)"),
    ("temporal", "The ambulance arrived ten minutes after the call.", None,
     "a result after its cause (flooded after the rain, arrested after the robbery)"),
    ("temporal", "State police said 30 workers were trapped after the garage collapsed.", None,
     "after + a clause (its event may be the cause of the result)"),
    ("temporal", "Oil prices rose after the storm hit the coast.", None,
     "after + a clause (its event may be the cause of the result)"),
    ("temporal", "The blast killed two soldiers after the convoy left.", None,
     "a result after its cause (died after a stroke, released after)"),
    ("temporal", "The patient died after the surgery last Saturday.", None,
     "a result after its cause (died after a stroke, released after)"),
    ("temporal", "The company announced job cuts ahead of next Sunday's vote.", None,
     "a date tied to now in the relation's object (ahead of next Sunday's election)"),
    # the blind reading of 2026-11-26: its failures refused, their neighbours kept
    ("temporal", "Japan defends dolphin hunt after US criticism", None,
     "a result after its cause (flooded after the rain, arrested after the robbery)"),
    ("temporal", "Hollande threatens legal action after affair allegations", None,
     "a result after its cause (flooded after the rain, arrested after the robbery)"),
    ("temporal", "The team won the match after extra time.", None,
     "a duration, date or period of play as the object (after two days, before 2001, after extra time)"),
    ("temporal", "The players trained after the match.", "The players trained before the match.", "temporal:after"),
    ("negation", "Three die after car crash at Tian'anmen", None,
     "a number alone as the subject (Three do not die: three others may have)"),
    ("negation", "There are dogs in the forest.", None,
     "there is + a bare noun (there are not dogs: a denial needs no)"),
    ("negation", "There is a dog in the forest.", "There is not a dog in the forest.", "negation:insert_not"),
    ("negation", "The man cut some carpet with a knife.", "The man did not cut any carpet with a knife.",
     "negation:do_support"),
    ("negation", "Two women are wrestling.", "Two women are not wrestling.", "negation:insert_not"),
    ("negation", "The three nurses were on duty.", "The three nurses were not on duty.", "negation:insert_not"),
    ("hedging", "Iran hopes nuclear talks will yield 'roadmap'", None,
     "a verb of wishing in the present (Iran may hope talks will yield: a hope is no event)"),
    ("hedging", "Bush wanted to see an aircraft landing.", "Bush may have wanted to see an aircraft landing.",
     "hedging:add_may"),
    ("hedging", '"We condemn the council," the cleric said in a sermon.', None,
     "the speaker's own present act or state (I am not giving, we condemn: the speaker knows it)"),
    ("hedging", "Shumaker said, ''I am not giving any consideration to resignation.", None,
     "the speaker's own present act or state (I am not giving, we condemn: the speaker knows it)"),
    ("hedging", "I saw the film last year.", "I may have seen the film last year.", "hedging:add_may"),
    ("hedging", "ONA stated that it did not receive the intelligence material.", None,
     "what the sayer tells of itself (stated that it did not receive: the sayer knows it)"),
    ("hedging", "Lawyers say it remains focused on Campbell.", "Lawyers say it may remain focused on Campbell.",
     "hedging:add_may"),
    ("hedging", "The minister said he will attend the summit.", "The minister said he may attend the summit.",
     "hedging:will_to_may"),
    ("negation", "I'm so sorry to hear this Kelly.", None,
     "not before an adverb that does not take it (not also, not now, not pretty)"),
    ("negation", "China has so far balked at the pressure.", "China has not so far balked at the pressure.",
     "negation:insert_not"),
    ("quantifier", "A man is slicing some onions.", "A man is slicing all the onions.", "quantifier:some_to_all"),
    ("quantifier", "He said the FDA was hoping the courts would bring some relief to consumers.", None,
     "a quantifier in what someone hopes for (hoping the courts would bring no relief)"),
]  # fmt: skip


ROUND_EIGHT_CASES = [
    ("negation", "A cat is eating something.", None,
     "something as the object (is not eating something: a denial needs anything)"),
    ("negation", "A cat is eating some fish.", "A cat is not eating any fish.", "negation:insert_not"),
    ("negation", "The firm reiterated its contention that the fees were fair.", None,
     "the claim in a noun's clause (reiterated its contention that X: the change falls on the report)"),
    ("negation", "The firm reiterated its support for the plan.", "The firm did not reiterate its support for the plan.",
     "negation:do_support"),
    ("negation", "Kenyan police say suspect arrested at border", None,
     "verb of saying without its claim (says to put: not would deny the saying)"),
    ("negation", "Thanks to the rally, the index was at 117.24, well above its overnight low.", None,
     "a phrase that presupposes the claim (along with, as well as, do so)"),
    ("negation", "Yes, you can add the peel to the compost.", None,
     "an emphatic yes (Yes, you can add; so yes - VIOLENT expansion: it affirms the claim)"),
    ("negation", "You can add the peel to the compost.", "You cannot add the peel to the compost.",
     "negation:insert_not"),
    ("negation", "A girl playing is a pile of colorful balls.", None,
     "a caption's participle read as the subject (A girl playing is ...: the verb is a typo)"),
    ("negation", "The painting is a fake.", "The painting is not a fake.", "negation:insert_not"),
    ("negation", "At 15 she had reached a hard decision: it was time to move.", None,
     "a claim after a colon that explains an earlier clause (a difficult decision: It was time)"),
    ("hedging", "To repeat: they are as strong as they were before.",
     "To repeat: they may be as strong as they were before.", "hedging:add_may"),
    ("negation", 'The spokeswoman agreed, saying: "It looks like an isolated event."', None,
     "a participle of saying beside the claim (agreed, saying: X: it restates the claim)"),
    ("hedging", "The Dodgers won their sixth game as they edged Colorado, 3-2.", None,
     "an as clause that restates the claim (won ... as they edged Colorado)"),
    ("hedging", '"I feel that these messages are infringing on my rights," said the lawyer.', None,
     "a frame of feeling or appearance (I feel that, it appears that: the change falls on the frame)"),
    ("hedging", '"It appears from our report that this was a textbook landing," the official said.', None,
     "a frame of feeling or appearance (I feel that, it appears that: the change falls on the frame)"),
    ("negation", "Workers saddled with heavy debts might finally be getting relief.", None,
     "a participle read as the verb (Texans saddled with X might ...: the claim is the later verb)"),
    ("hedging", "Massive storm bears down on East Coast", "Massive storm may have borne down on East Coast",
     "hedging:add_may"),
    ("hedging", "Veteran coach quits as England manager", "Veteran coach may have quit as England manager",
     "hedging:add_may"),
    ("negation", "Salvador Dali painting snatched from New York gallery",
     "Salvador Dali painting not snatched from New York gallery", "negation:insert_not"),
    ("negation", "A poll showed that the FBI bugging of the mayor had given a boost to his campaign.",
     "A poll showed that the FBI bugging of the mayor had not given a boost to his campaign.", "negation:insert_not"),
]  # fmt: skip

ROUND_SIX_CASES = [
    ("negation", "Storm delays start of Republican convention", "Storm does not delay start of Republican convention",
     "negation:do_support"),
    ("hedging", "Syrian troops push into strategic rebelheld town",
     "Syrian troops may have pushed into strategic rebelheld town", "hedging:add_may"),
    ("hedging", "Two dogs are running in a grassy field", "Two dogs may be running in a grassy field",
     "hedging:add_may"),
    ("negation", "FAA lifts ban on U.S. flights to Tel Aviv", None,
     "headline whose verb may be a noun (the parse may be wrong)"),
    ("hedging", "Rogers, Videotron extend reach with network-sharing deal", None,
     "headline whose verb may be a noun (the parse may be wrong)"),
    ("negation", "Hrithik Roshan, wife Sussanne part ways", None,
     "headline whose verb may be a noun (the parse may be wrong)"),
    ("negation", "Housing starts up 6.8% in May", None, "headline whose verb may be a noun (the parse may be wrong)"),
    ("temporal", "Earlier Thursday, the board formally rejected the bid.", None,
     "earlier/later without than (= previously, afterwards, later Thursday)"),
    ("temporal", "An hour later, the helicopter fired two missiles.",
     "An hour earlier, the helicopter fired two missiles.", "temporal:opening"),
    ("temporal", "Warnings might go up for Cuba later Thursday.", None,
     "earlier/later without than (= previously, afterwards, later Thursday)"),
    ("hedging", "Power crisis continues in Seemandhra", None,
     "an ongoing verb in a headline (crisis continues: may have continued moves it to the past)"),
    ("hedging", "They are now lucky to catch one.", None,
     "an adverb after be (are now lucky: may be now lucky, the adverb goes before be)"),
    ("hedging", "The clinic was being targeted by the police.", None,
     "a progressive passive (was being targeted: may have been being is no English)"),
    ("negation", "Protests sweep Brazil despite concession", None,
     "a phrase that presupposes the claim (along with, as well as, do so)"),
    ("negation", "Police helicopter crashes into pub in Glasgow - several casualties", None,
     "a headline's part after a dash (- several casualties: it reports what the claim caused)"),
    ("negation", (
        "On Wednesday, the total of National Guard and Reserve members called to active duty worldwide stood at"
        " 154,603."
    ), None,
     "a finite verb the parse left unattached (members called to duty stood at: the parse may be wrong)"),
    ("negation", "Two reported dead in shooting at Empire State Building", None,
     "a number alone as the subject (Three do not die: three others may have)"),
    ("temporal", "The king died late Friday after a long illness.", None,
     "a result after its cause (died after a stroke, released after)"),
]  # fmt: skip

ROUND_FIVE_CASES = [
    ("hedging", "The people had awakened.", None, "a past perfect (had reached: may have had reached is no English)"),
    (
        "hedging",
        "The new toilets were to be unveiled this summer.",
        None,
        "be + to (were to be unveiled: a plan, may have been to be is no English)",
    ),
    ("hedging", "I hope everything is OK!", None, "a claim someone hopes for (I hope everything may be OK: no hedge)"),
    (
        "negation",
        "Congress passed similar restrictions only to see the president veto them.",
        None,
        "a phrase that presupposes the claim (along with, as well as, do so)",
    ),
    (
        "negation",
        "The ideology was built around expansion, so yes - VIOLENT expansion.",
        None,
        "an emphatic yes (Yes, you can add; so yes - VIOLENT expansion: it affirms the claim)",
    ),
    (
        "negation",
        "He projected the drug will be available within five years.",
        "He projected the drug will not be available within five years.",
        "negation:insert_not",
    ),
    (
        "entity_swap",
        "Carney sets high bar to change at BoE",
        None,
        "object with a complement after it (sets high bar to change: it goes with the object)",
    ),
    (
        "negation",
        "A woman rapidly fires a handgun.",
        None,
        "an adverb before the verb (rapidly does not fire: not lands on the adverb)",
    ),
    (
        "negation",
        "The patient reportedly stopped taking the medicine.",
        "The patient reportedly did not stop taking the medicine.",
        "negation:do_support",
    ),
    (
        "negation",
        "Investigators uncovered a bone fragment on Thursday, but it turned out to be an animal bone.",
        None,
        "a but clause about the claim's object (..., but it turned out to be: it presupposes the claim)",
    ),
    (
        "negation",
        "Sometimes I fantasize about having power.",
        None,
        "a frequency adverb (sometimes I do not: both can be true)",
    ),
    (
        "negation",
        "It's also a strategic win for the company.",
        None,
        "not before an adverb that does not take it (not also, not now, not pretty)",
    ),
    (
        "negation",
        "It's pretty difficult to imagine.",
        None,
        "not before an adverb that does not take it (not also, not now, not pretty)",
    ),
    ("negation", "A man walking down the stairs.", "A man not walking down the stairs.", "negation:caption_not"),
    ("negation", "Two dogs running through a field.", "Two dogs not running through a field.", "negation:caption_not"),
    ("entity_swap", "A woman slicing an onion.", "An onion slicing a woman.", "entity_swap:caption"),
    (
        "entity_swap",
        "A man is playing guitar.",
        None,
        "bare instrument or game after play (playing guitar: Guitar is playing reads as broken)",
    ),
    (
        "entity_swap",
        "A young men jumps off rocks.",
        None,
        "a before a plural (a young men: the source disagrees with itself)",
    ),
    (
        "hedging",
        "The ideology was built around expansion, so yes, expansion.",
        None,
        "a certainty adverb (definitely may: the hedge contradicts it)",
    ),
    (
        "quantifier",
        "Several relatives were in court, but few neighbours attended the trial.",
        None,
        "contrast with the others (some cases ... others): the exchange contradicts it",
    ),
    (
        "near_miss",
        "Qatar's emir hands power to his son",
        None,
        "an office or institution the entity names (Ukrainian parliament, UN security council)",
    ),
]

ROUND_FOUR_CASES = [
    (
        "negation",
        "Along with chipmaker Intel, the companies include Sony Corp. and Nokia Corp.",
        None,
        "a phrase that presupposes the claim (along with, as well as, do so)",
    ),
    (
        "negation",
        "Russia ratified the treaty in 2004 but the other members have refused to do so.",
        None,
        "a phrase that presupposes the claim (along with, as well as, do so)",
    ),
    (
        "negation",
        "China opposes the plan because the peaceful use of energy is a crucial objective.",
        None,
        "a because clause (not ... because Y: the scope of not is ambiguous)",
    ),
    (
        "negation",
        "The island reported 65 new cases on Friday, making its epidemic the fastest-growing in the world.",
        None,
        "a participle clause after the claim (..., making X the fastest: it asserts a result)",
    ),
    (
        "negation",
        "The company has expanded into other services, including payment services.",
        "The company has not expanded into other services, including payment services.",
        "negation:insert_not",
    ),
    (
        "negation",
        "the riyadh-based naif arab academy for security sciences said in a statement that it was running a two-week workshop for 50 anti-terrorism experts.",
        None,
        "verb of saying whose claim the parse missed (said in a statement that ...)",
    ),
    (
        "negation",
        "Vietnam has among the world's strictest drug laws.",
        None,
        "have before a preposition (has among the strictest: no do-support)",
    ),
    (
        "negation",
        "The president is not really all that important for German people.",
        None,
        "negative-polarity phrase (not all that, not X so much as Y) needs the not",
    ),
    (
        "negation",
        "Three nurses were on duty during the night.",
        None,
        "a counted subject of be (three nurses were not on duty: three others were)",
    ),
    (
        "negation",
        "Former spokesman for U.S. President Ronald Reagan dies",
        "Former spokesman for U.S. President Ronald Reagan does not die",
        "negation:do_support",
    ),
    ("negation", "Two women are wrestling.", "Two women are not wrestling.", "negation:insert_not"),
    (
        "negation",
        "The Dodgers won their sixth consecutive game as they edged Colorado, 3-2, Wednesday.",
        None,
        "also or an as clause beside the claim (as they edged Colorado: it restates the claim)",
    ),
    (
        "negation",
        "Also weighing on the market was news that General Motors planned to issue debt.",
        None,
        "also or an as clause beside the claim (as they edged Colorado: it restates the claim)",
    ),
    (
        "negation",
        "a siemens spokesman in germany stated that heinrich von pierer stated that siemens was beginning talks.",
        None,
        "a report of a report (stated that he stated: the claim is two clauses down)",
    ),
    (
        "negation",
        "Red Cross says negotiating halt to fighting in Syria to take aid",
        None,
        "verb of saying whose claim the parse missed (said in a statement that ...)",
    ),
    (
        "hedging",
        "US gov't officially designates Haqqani network as terrorists",
        None,
        "an adverb before the verb (officially may have designated)",
    ),
    (
        "entity_swap",
        "South Africa police shot dead 30 miners",
        None,
        "an adjective before a count (shot dead 30 miners: it goes with the verb)",
    ),
    (
        "hedging",
        "Deaths confirmed after helicopter crashes into pub",
        None,
        "a participle of reporting or scheduling (confirmed, set for: the hedge shifts the event)",
    ),
    (
        "hedging",
        "You definitely do not want to support your weight with your arms.",
        None,
        "a certainty adverb (definitely may: the hedge contradicts it)",
    ),
    (
        "hedging",
        "Over 100 dead as typhoon slams central Philippines",
        None,
        "a subordinator before the verb (Over 100 dead as typhoon slams: a subordinate clause)",
    ),
    (
        "numerical",
        "But at age 15, she had reached 260 pounds.",
        None,
        "ten times a weight or a height passes what a body or a load allows (2,600 pounds at 15)",
    ),
    (
        "numerical",
        "FBI agents arrested a former partner of Big Four accounting firm Ernst & Young.",
        None,
        "number in a name, date, time or duration (S&P 500, June 30, 20 years)",
    ),
]

CASES = [
    ("negation", "The man doesn't like cheese.", "The man likes cheese.", "negation:remove_do"),
    ("negation", "She plays the piano.", "She does not play the piano.", "negation:do_support"),
    ("negation", "The children played in the park.", "The children did not play in the park.", "negation:do_support"),
    ("negation", "He can't swim.", "He can swim.", "negation:remove_not"),
    ("negation", "They won't come.", "They will come.", "negation:remove_not"),
    ("negation", "A man is playing a guitar.", "A man is not playing a guitar.", "negation:insert_not"),
    ("negation", "The cat was chased by the dog.", "The cat was not chased by the dog.", "negation:insert_not"),
    ("negation", "She can swim.", "She cannot swim.", "negation:insert_not"),
    ("negation", "The dog isn't barking.", "The dog is barking.", "negation:remove_not"),
    ("negation", "I'm tired.", "I'm not tired.", "negation:insert_not"),
    ("negation", "The man did not cut the paper.", "The man cut the paper.", "negation:remove_do"),
    ("negation", "He never eats meat.", None, "negated with a word other than not/n't"),
    ("negation", "Is the man playing?", None, "question"),
    ("negation", "A man playing a guitar.", "A man not playing a guitar.", "negation:caption_not"),
    ("negation", "He'd left early.", None, "contracted auxiliary ('d, 'll, 've)"),
    ("negation", "No one came.", None, "other negative words in the sentence"),
    (
        "negation",
        "Druce will face murder charges, Conte said.",
        "Druce will not face murder charges, Conte said.",
        "negation:insert_not",
    ),
    (
        "negation",
        "Conte said that Druce faces murder charges.",
        "Conte said that Druce does not face murder charges.",
        "negation:do_support",
    ),
    (
        "negation",
        "Cleveland Kidnapper Ariel Castro Found Hanged in Prison Cell",
        None,
        "Title-Case headline (the tagger is unreliable there)",
    ),
    (
        "negation",
        "Glee star Cory Monteith found dead in hotel room",
        "Glee star Cory Monteith not found dead in hotel room",
        "negation:insert_not",
    ),
    (
        "hedging",
        "Former Zambian president arrested",
        "Former Zambian president may have been arrested",
        "hedging:add_may_passive",
    ),
    (
        "negation",
        "Alleged cop killer died from shot to head",
        None,
        "past-tense headline (may be a reduced passive)",
    ),
    ("negation", "Ski instructor vanished in Alps", None, "past-tense headline (may be a reduced passive)"),
    ("negation", "Asian shares closed lower on Monday", None, "past-tense headline (may be a reduced passive)"),
    (
        "negation",
        "US believes Syria has probably used chemical weapons.",
        None,
        "not before a hedge adverb (not probably: no denial)",
    ),
    ("negation", "He hardly eats meat.", None, "other negative words in the sentence"),
    ("hedging", "A cat is drinking milk.", "A cat may be drinking milk.", "hedging:add_may"),
    ("hedging", "A person plays a keyboard.", "A person may be playing a keyboard.", "hedging:add_may_progressive"),
    (
        "hedging",
        "The man hit the other man with a stick.",
        "The man may have hit the other man with a stick.",
        "hedging:add_may",
    ),
    ("hedging", "They were arrested.", "They may have been arrested.", "hedging:add_may"),
    ("hedging", "Reportedly, the president resigned.", "The president resigned.", "hedging:remove_adverb"),
    ("hedging", "The president reportedly resigned.", "The president resigned.", "hedging:remove_adverb"),
    ("hedging", "She might leave.", None, "modal or adjectival hedge (removal would need re-agreement)"),
    ("hedging", "The dog is not barking.", "The dog might not be barking.", "hedging:add_may_negated"),
    ("hedging", "She does not like cheese.", "She might not like cheese.", "hedging:add_may_negated"),
    ("hedging", "The patient does not smoke.", "The patient might not smoke.", "hedging:add_may_negated"),  # no ban
    ("hedging", "The dog isn't barking.", None, "negated clause (other than a present-tense auxiliary + not)"),
    ("hedging", "He can swim.", None, "already has a modal"),
    (
        "hedging",
        "Druce will face murder charges, Conte said.",
        "Druce may face murder charges, Conte said.",
        "hedging:will_to_may",
    ),
    (
        "hedging",
        "Druce faces murder charges, Conte said.",
        "Druce may face murder charges, Conte said.",
        "hedging:add_may",
    ),
    ("hedging", "Yellow striped cat.", None, "verb lemma unknown"),
    (
        "numerical",
        "Two young women shear a sheep.",
        None,
        "a handful in words (twenty women shear a sheep): ten times it passes what the scene allows",
    ),
    ("numerical", "The shop sold 30 bikes.", "The shop sold 300 bikes.", "numerical:digits_x10"),
    (
        "numerical",
        "The company hired 5 workers in 2010.",
        "The company hired 50 workers in 2010.",
        "numerical:digits_x10",
    ),
    (
        "numerical",
        "He earned 1,200 dollars last week.",
        None,
        "ten times a large total may pass what exists (box office, a population, a workforce)",
    ),
    (
        "numerical",
        "He earned 1,200 dollars and spent 350 dollars.",
        None,
        "more than one number (the others may depend on it)",
    ),
    (
        "numerical",
        "He earned 120 dollars in 3.5 hours.",
        "He earned 1200 dollars in 3.5 hours.",
        "numerical:digits_x10",
    ),
    (
        "numerical",
        "The three workers were two men and a woman.",
        None,
        "more than one number (the others may depend on it)",
    ),
    (
        "numerical",
        "Dotson, 21, was arrested.",
        None,
        "number in a name, date, time or duration (S&P 500, June 30, 20 years)",
    ),
    (
        "numerical",
        "Shares in the S&P 500 index rose.",
        None,
        "number that counts no noun (an age, a rank, a value on a scale)",
    ),
    (
        "numerical",
        "Sales rose 37 percent.",
        None,
        "ten times the value is out of bounds (a share over 100%, 100 cents or more)",
    ),
    (
        "numerical",
        "Two girls hug each other.",
        None,
        "a pair (each other, between, both): ten times two contradicts the sentence",
    ),
    (
        "numerical",
        "South Africa has 4.7 million people infected.",
        None,
        "ten times a large total may pass what exists (box office, a population, a workforce)",
    ),
    ("numerical", "The score was 3-2.", None, "more than one number (the others may depend on it)"),
    (
        "numerical",
        "He has type 1 diabetes.",
        None,
        "number in an identifier, score, ratio or age (type 1, 3-2, age 15)",
    ),
    ("numerical", "One man is running.", None, "number that counts no noun (an age, a rank, a value on a scale)"),
    ("numerical", "The meeting is at 7.", None, "number that counts no noun (an age, a rank, a value on a scale)"),
    ("temporal", "He left before the storm arrived.", "He left after the storm arrived.", "temporal:before"),
    ("temporal", "She ate after the meeting.", "She ate before the meeting.", "temporal:after"),
    ("temporal", "He arrived earlier than expected.", "He arrived later than expected.", "temporal:earlier"),
    ("temporal", "She looked after the children.", None, "phrasal verb (look after, ...)"),
    (
        "temporal",
        "He left soon after the meeting.",
        None,
        "modified temporal word (soon after, the day before, 42 years later)",
    ),
    (
        "temporal",
        "A man recovered his stolen car 42 years later.",
        None,
        "earlier/later without than (= previously, afterwards, later Thursday)",
    ),
    (
        "temporal",
        "Congress twice before passed similar bans.",
        None,
        "before/after as an adverb (= previously, afterwards)",
    ),
    (
        "temporal",
        "The singer died after a stroke.",
        None,
        "a result after its cause (died after a stroke, released after)",
    ),
    ("temporal", "Schumacher in a coma after ski accident", None, "no verb at the root (a fragment or headline)"),
    ("quantifier", "All students passed the exam.", "Some students passed the exam.", "quantifier:all_to_some"),
    ("quantifier", "Every student passed the exam.", "No student passed the exam.", "quantifier:every_to_no"),
    ("quantifier", "Some men are fighting.", "All men are fighting.", "quantifier:some_to_all"),
    ("quantifier", "A chef is preparing some food.", "A chef is preparing all the food.", "quantifier:some_to_all"),
    ("quantifier", "Some food is on the table.", "No food is on the table.", "quantifier:some_to_no"),
    ("quantifier", "No dogs are barking.", "Some dogs are barking.", "quantifier:no_to_some"),
    ("quantifier", "A few people came.", None, "modified quantifier (a few, the most, how many, ...)"),
    ("quantifier", "How many people came?", None, "question"),
    (
        "quantifier",
        "Most of the students passed the exam.",
        "Few of the students passed the exam.",
        "quantifier:most_to_few",
    ),
    ("quantifier", "Some of the people are dancing.", "All of the people are dancing.", "quantifier:some_to_all"),
    (
        "quantifier",
        "None of the patients reported pain.",
        "All of the patients reported pain.",
        "quantifier:none_to_all",
    ),
    ("quantifier", "Several patients reported pain.", "No patients reported pain.", "quantifier:several_to_no"),
    ("quantifier", "No patient reported pain.", "Every patient reported pain.", "quantifier:no_to_every"),
    (
        "quantifier",
        "The company admitted no wrongdoing.",
        "The company admitted some wrongdoing.",
        "quantifier:no_to_some",
    ),
    ("quantifier", "He visits his mother every night.", None, "time adverbial (every night, all day), not a quantity"),
    ("quantifier", "The euro hit an all-time high.", None, "part of a hyphenated word (all-time)"),
    (
        "quantifier",
        "Several patients did not report pain.",
        None,
        "negated sentence (the exchange would make a double negative)",
    ),
    ("entity_swap", "The dog chased the cat.", "The cat chased the dog.", "entity_swap:subject_object"),
    ("entity_swap", "The cat was chased by the dog.", "The dog was chased by the cat.", "entity_swap:passive_agent"),
    ("entity_swap", "A woman is slicing an onion.", "An onion is slicing a woman.", "entity_swap:subject_object"),
    ("entity_swap", "He loves her.", None, "pronoun argument (case would change)"),
    ("entity_swap", "Obama met Putin.", None, "symmetric verb (meet, marry, ...)"),
    ("entity_swap", "The dogs chased the cat.", None, "arguments differ in number (the verb would disagree)"),
    ("entity_swap", "A man and a woman are dancing.", None, "no second argument (object or by-agent)"),
    ("near_miss", "Barack Obama spoke at the meeting.", "Vladimir Putin spoke at the meeting.", "near_miss:person"),
    (
        "near_miss",
        "Obama visited Paris.",
        None,
        "another name in the sentence (the place may be tied to it: rebels leave besieged Homs)",
    ),
    (
        "near_miss",
        "Bombing Aimed at Hezbollah Hits Southern Beirut",
        None,
        "Title-Case headline (the tagger is unreliable there)",
    ),
    ("near_miss", "Officials met in Paris.", "Officials met in London.", "near_miss:gpe"),
    ("entity_swap", "The mayor won the re-election.", None, "argument glued to a neighbouring word (re-election)"),
    ("near_miss", "A man is running.", None, "no named entity or number"),
    # refusals of the kinds a blind reading found invalid
    (
        "hedging",
        "Saudi Arabia arrests suspected militants with al-Qaeda links",
        "Saudi Arabia may have arrested suspected militants with al-Qaeda links",
        "hedging:add_may",
    ),
    (
        "hedging",
        "Rogers, Videotron extend reach with network-sharing deal",
        None,
        "headline whose verb may be a noun (the parse may be wrong)",
    ),
    ("hedging", "He said at every level.", None, "verb of saying without its claim (the hedge would doubt the saying)"),
    ("hedging", "Obama owns the company", None, "stative verb in a headline (may + present reads as a forecast)"),
    (
        "negation",
        "Some of the flights were delayed by fog.",
        None,
        "quantified subject (some/many ... not does not deny the claim)",
    ),
    (
        "negation",
        "Five ducks are swimming on the pond.",
        "Five ducks are not swimming on the pond.",
        "negation:insert_not",
    ),
    (
        "negation",
        "At least 30 workers were trapped.",
        None,
        "approximate count as subject (as many as, at least, up to ...: not does not deny it)",
    ),
    ("negation", "The three workers were trapped.", "The three workers were not trapped.", "negation:insert_not"),
    (
        "negation",
        "Most of the patients reported headaches.",
        "Most of the patients did not report headaches.",
        "negation:do_support",
    ),
    ("negation", "The bridge may reopen next month.", None, "modal of possibility (may not does not deny may)"),
    ("negation", "Her goal was not just to win but to learn.", None, "not with a focus word (not just X but Y)"),
    (
        "negation",
        "We didn't want to see anyone take a cut in pay.",
        None,
        "negative-polarity word (any, ever, yet) needs the not",
    ),
    (
        "negation",
        "The revenues were $1.45 billion.",
        None,
        "copula with an amount (the rest of the sentence may describe it)",
    ),
    ("negation", "Son of evangelist kills himself The son has killed himself.", None, "more than one sentence"),
    *ROUND_FOUR_CASES,
    *ROUND_FIVE_CASES,
    *ROUND_SIX_CASES,
    *ROUND_SEVEN_CASES,
    *ROUND_EIGHT_CASES,
    *ROUND_NINE_CASES,
    *ROUND_TEN_CASES,
    (
        "temporal",
        "The river flooded the fields after the heavy rain.",
        None,
        "a result after its cause (flooded after the rain, arrested after the robbery)",
    ),
    (
        "temporal",
        "The police arrested two men after the robbery.",
        None,
        "a result after its cause (flooded after the rain, arrested after the robbery)",
    ),
    (
        "temporal",
        "The treaty was amended in 1999 after the collapse of the union.",
        None,
        "a date or time beside the relation (the inversion may contradict it)",
    ),
    (
        "temporal",
        "Warnings might go up later Thursday.",
        None,
        "earlier/later without than (= previously, afterwards, later Thursday)",
    ),
    (
        "temporal",
        "After the protesters left, the speaker finished.",
        None,
        "after + a clause (its event may be the cause of the result)",
    ),
    ("temporal", "The family had dinner after the film.", "The family had dinner before the film.", "temporal:after"),
    (
        "numerical",
        "The referee sent off two players.",
        None,
        "ten times the count passes what the noun allows (players on a side, states)",
    ),
    (
        "numerical",
        "Microsoft will cut 18,000 jobs.",
        None,
        "ten times a large total may pass what exists (box office, a population, a workforce)",
    ),
    (
        "numerical",
        "The film took in $62.6 million.",
        None,
        "ten times a large total may pass what exists (box office, a population, a workforce)",
    ),
    (
        "numerical",
        "The ward admitted 12 patients.",
        None,
        "ten times the count passes what the noun allows (players on a side, states)",
    ),
    (
        "entity_swap",
        "The interim leader takes office.",
        None,
        "bare noun object (takes office, takes part: an idiom, not a participant)",
    ),
    (
        "entity_swap",
        "Rebels leave besieged Homs.",
        None,
        "proper noun ending in s (its number is unsure: Homs, Lucent Technologies)",
    ),
    (
        "entity_swap",
        "Angry farmers chased hungry wolves.",
        "Hungry wolves chased angry farmers.",
        "entity_swap:subject_object",
    ),
    (
        "entity_swap",
        "The man hit the other man with a stick.",
        None,
        "arguments share a word (myanmar government ... myanmar)",
    ),
    ("quantifier", "The farmer sold most of the harvest.", None, "quantifier whose exchange would break agreement"),
    ("quantifier", "Moore had no immediate comment.", None, "fixed expression (no comment, no doubt, no longer)"),
    (
        "quantifier",
        "It was so lucrative that many of those arrested lived in big homes.",
        None,
        "quantifier in a result clause (so lucrative that many ...: the exchange may break its link)",
    ),
    (
        "near_miss",
        "Ukrainian parliament dismisses president.",
        None,
        "an office or institution the entity names (Ukrainian parliament, UN security council)",
    ),
    (
        "near_miss",
        "Syrian forces moved to retake Aleppo.",
        None,
        "an office or institution the entity names (Ukrainian parliament, UN security council)",
    ),
    (
        "hedging",
        "Syria says suicide bomber kills 10 in Damascus",
        "Syria says suicide bomber may have killed 10 in Damascus",
        "hedging:add_may",
    ),
    (
        "hedging",
        "Egypt and Jordan have signed the treaty and have long called for talks.",
        None,
        "coordinated verbs (the hedge would cover one of them only)",
    ),
    (
        "near_miss",
        "Treasury proposal raised the income tax.",
        None,
        "an organisation used as a modifier (Treasury proposal, Fed's next chair)",
    ),
    (
        "near_miss",
        "Senators confirmed Yellen as Fed's next chair.",
        None,
        "an organisation used as a modifier (Treasury proposal, Fed's next chair)",
    ),
    (
        "near_miss",
        "Analysts praised chipmaker Intel.",
        None,
        "a describing noun before the name (chipmaker Intel, author Doris Lessing)",
    ),
    (
        "near_miss",
        "Also weighing on the market was news that General Motors GM.N planned to issue debt.",
        None,
        "name beside another capitalised word (part of a longer name: Tropical Storm Andrea)",
    ),
    (
        "near_miss",
        "Microsoft planned to issue debt, traders of MSFT.O said.",
        None,
        "a ticker or exchange in the sentence (tied to one company)",
    ),
]


# Fallback rules, tried only where the category's main rule refused: (category, anchor,
# expected A' or None when main rule and fallbacks all refuse, rule or the main rule's refusal)
FALLBACK_CASES = [
    *ROUND_ELEVEN_CASES,
    *ROUND_TWELVE_CASES,
    (
        "numerical",
        "Gunman kills 6 in shooting at a temple.",
        "Gunman kills 7 in shooting at a temple.",
        "numerical:small_step",
    ),
    ("numerical", "Sales rose 37 percent.", "Sales rose 39 percent.", "numerical:small_step"),
    (
        "numerical",
        "Gunmen Kill 11 Foreign Tourists in Pakistan",
        "Gunmen Kill 13 Foreign Tourists in Pakistan",
        "numerical:small_step",
    ),
    (
        "numerical",
        "Jeff Bezos Bets $250 Million on Reviving Washington Post",
        "Jeff Bezos Bets $260 Million on Reviving Washington Post",
        "numerical:small_step",
    ),
    ("numerical", "Apollo 11 Astronauts Return Home", None, "Title-Case headline (the tagger is unreliable there)"),
    (
        "numerical",
        "The settlement includes $4.1 million in fees.",
        "The settlement includes $4.2 million in fees.",
        "numerical:small_step",
    ),
    (
        "numerical",
        "The ratio stood at 4.1 last year.",
        None,
        "number in a name, date, time or duration (S&P 500, June 30, 20 years)",
    ),
    ("numerical", "19 hurt in New Orleans shooting", "21 hurt in New Orleans shooting", "numerical:small_step"),
    (
        "numerical",
        "Mexico has sent 2800 agents to Sinaloa.",
        "Mexico has sent 2900 agents to Sinaloa.",
        "numerical:small_step",
    ),
    (
        "numerical",
        "Heat win Game 7 in Miami.",
        None,
        "number in a name, date, time or duration (S&P 500, June 30, 20 years)",
    ),
    ("numerical", "The writer died at 91.", None, "number that counts no noun (an age, a rank, a value on a scale)"),
    ("numerical", "He spent seven years in prison.", "He spent eight years in prison.", "numerical:small_step"),
    ("numerical", "The death toll now tops 100,000.", "The death toll now tops 110,000.", "numerical:small_step"),
    ("numerical", "Two girls hug each other.", "Three girls hug each other.", "numerical:small_step"),
    # a sentence with more numbers: the first takes its step when no other is tied to it
    (
        "numerical",
        "7 police officers were killed and 4 officers were wounded.",
        "8 police officers were killed and 4 officers were wounded.",
        "numerical:small_step",
    ),
    (
        "numerical",
        "Police arrested more than 130 people and seized more than $17 million.",
        "Police arrested more than 140 people and seized more than $17 million.",
        "numerical:small_step",
    ),
    (
        "numerical",
        "Revenue rose to 616 dollars from 610 dollars.",
        None,
        "more than one number (the others may depend on it)",
    ),
    (
        "numerical",
        "Three workers were two men and a woman.",
        None,
        "more than one number (the others may depend on it)",
    ),
    (
        "numerical",
        "Seven of the 14 members voted for the plan.",
        None,
        "more than one number (the others may depend on it)",
    ),
    (
        "numerical",
        "The firm earned $54 million, or 22 cents a share.",
        None,
        "more than one number (the others may depend on it)",
    ),
    ("numerical", "Prices rose from 5 to 6 dollars.", None, "more than one number (the others may depend on it)"),
    (
        "numerical",
        "The party will contest from five seats in the north.",
        "The party will contest from six seats in the north.",
        "numerical:small_step",
    ),
    (
        "numerical",
        "Both of the two girls hug their mother.",
        None,
        "a pair (each other, between, both): ten times two contradicts the sentence",
    ),
    (
        "numerical",
        "Sales rose 99 percent.",
        None,
        "ten times the value is out of bounds (a share over 100%, 100 cents or more)",
    ),
    (
        "numerical",
        "He has type 1 diabetes.",
        None,
        "number in an identifier, score, ratio or age (type 1, 3-2, age 15)",
    ),
    ("numerical", "The shop sold 30 bikes.", "The shop sold 300 bikes.", "numerical:digits_x10"),  # main rule first
    ("numerical", "Two young women shear a sheep.", "Three young women shear a sheep.", "numerical:small_step"),
    ("numerical", "He lost 8 kg over the summer.", "He lost 9 kg over the summer.", "numerical:small_step"),
    ("near_miss", "A black dog is running in the grass.", "A white dog is running in the grass.", "near_miss:colour"),
    (
        "near_miss",
        "The man in the red shirt is climbing a rock.",
        "The man in the blue shirt is climbing a rock.",
        "near_miss:colour",
    ),
    ("near_miss", "A brown horse is eating hay.", "A black horse is eating hay.", "near_miss:colour"),
    (
        "near_miss",
        "A black man is running.",
        "A black woman is running.",
        "near_miss:person_sex",
    ),  # never a person's colour
    ("near_miss", "A black and white dog is running.", None, "no named entity or number"),
    ("near_miss", "A dark blue car is parked.", None, "no named entity or number"),
    ("near_miss", "The white snow covers the field.", None, "no named entity or number"),
    ("near_miss", "The bank raised rates on Friday.", "The bank raised rates on Thursday.", "near_miss:day_or_month"),
    (
        "near_miss",
        "The landlord raised the rent in January.",
        "The landlord raised the rent in February.",
        "near_miss:day_or_month",
    ),
    (
        "near_miss",
        "The mayor opened the bridge on Saturday.",
        "The mayor opened the bridge on Sunday.",
        "near_miss:day_or_month",
    ),
    ("near_miss", "The landlord raised the rent on March 31.", None, "no named entity or number"),
    ("near_miss", "The shop opens on Monday and closes on Friday.", None, "no named entity or number"),
    ("quantifier", "Several of the windows were open.", "Most of the windows were open.", "quantifier:positional"),
    (
        "quantifier",
        "By November, many arriving passengers in Atlanta will be fingerprinted.",
        "By November, few arriving passengers in Atlanta will be fingerprinted.",
        "quantifier:positional",
    ),
    (
        "quantifier",
        "Several of the windows were not open.",
        None,
        "no quantifier determiner (all, every, some, no, most, few)",
    ),
    (
        "quantifier",
        "Some of the staff stayed while others left.",
        None,
        "contrast with the others (some cases ... others): the exchange contradicts it",
    ),
    ("near_miss", "A man is slicing a potato.", "A woman is slicing a potato.", "near_miss:person_sex"),
    ("near_miss", "Two young girls are playing chess.", "Two young boys are playing chess.", "near_miss:person_sex"),
    ("near_miss", "A man is shaving his beard.", None, "no named entity or number"),
    ("near_miss", "A man and a woman are dancing.", None, "no named entity or number"),
    ("near_miss", "The best man gave a speech.", None, "no named entity or number"),
    (
        "near_miss",
        "Janet Yellen became the first woman to lead the bank.",
        None,
        "person of unknown sex (a name of the other sex may contradict the sentence)",
    ),
    (
        "near_miss",
        "A man is walking in Paris.",
        None,
        "no other entity of the same fine type in the corpus",
    ),  # beside a name
    ("numerical", "The coach picked nine players.", "The coach picked ten players.", "numerical:small_step"),
    (
        "numerical",
        "The team fielded 10 players.",
        None,
        "ten times the count passes what the noun allows (players on a side, states)",
    ),
    (
        "quantifier",
        "The police said that many of the protesters were arrested.",
        "The police said that few of the protesters were arrested.",
        "quantifier:many_to_few",
    ),
]


# The fallback rules keep the main rules' stricter refusals: (rule, anchor, its refusal)
FALLBACK_REFUSALS = [
    (
        temporal_opening,
        "The warnings went up later Thursday.",
        "no opening earlier/later after a duration, or a second time word",
    ),
    (
        temporal_opening,
        "A man recovers his stolen car 42 years later.",
        "no opening earlier/later after a duration, or a second time word",
    ),
    (near_miss_attribute, "A man is walking in Paris.", "no colour, weekday, month or person word it can change"),
    (near_miss_attribute, "A man is talking to Obama.", "no colour, weekday, month or person word it can change"),
    (
        near_miss_attribute,
        "Yesterday a Swiss man was arrested.",
        "no colour, weekday, month or person word it can change",
    ),
    (
        numerical_step,
        "The team fielded 10 players.",
        "the count passes what the noun allows (players on a side, states)",
    ),
    (numerical_step, "A spider has eight legs.", "the count passes what the noun allows (players on a side, states)"),
    (
        numerical_step,
        "The spacecraft entered orbit around Mars after a seven-month journey.",
        "an article that would not agree (a seven-month journey -> a eight-month)",
    ),
    (
        quantifier_positional,
        "The drug trade was so lucrative that many of the dealers lived in mansions.",
        "quantifier in a dependent clause other than a reported one (the exchange may break its link)",
    ),
    (
        quantifier_positional,
        "Officials who met many arriving passengers were tested.",
        "quantifier in a dependent clause other than a reported one (the exchange may break its link)",
    ),
]


@pytest.fixture(scope="module")
def nlp():
    return load_parser(locate_local(parse_source(DEFAULT_PARSER)))


@pytest.fixture(scope="module")
def smoke_suite(nlp, tmp_path_factory):
    out = tmp_path_factory.mktemp("gen") / "smoke.tsv"
    settings = SuiteSettings.from_block(
        {"data": "graded-smoke", "split": ["train", "dev", "test"], "score_max": 5, "min_score": 4.0, "seed": 0}, "s"
    )
    generated, _ = build_suite("smoke", SMOKE, locate_local(parse_source(DEFAULT_PARSER)), settings, out)
    return out, generated


@pytest.mark.parametrize("category, anchor, expected, outcome", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_rule_on_hard_sentences(nlp, category, anchor, expected, outcome):
    # near_miss draws from entities seen in at least two anchors: Vladimir Putin is the only other
    # full name (a man, as the pronouns show), London the only other city
    inventory = [
        "Vladimir Putin said he visited London.",
        "Vladimir Putin met his wife in London.",
        "Barack Obama said he would visit Paris.",
        "Barack Obama met his wife in Paris.",
    ]
    ctx = Context(entity_inventory([nlp(s) for s in inventory]), np.random.default_rng(0))
    if expected is None:  # the main rule's reason (a fallback's refusals: test_caption_rules_refuse)
        with pytest.raises(Refuse) as refused:
            apply_rule(category, nlp(anchor), ctx)
        assert refused.value.reason == outcome
    else:
        made = apply_rules(category, nlp(anchor), ctx, Generated())
        assert (made.text, made.rule) == (expected, outcome)


@pytest.mark.parametrize(
    "category, anchor, expected, outcome",
    FALLBACK_CASES,
    ids=[f"{c[0]}-fallback-{i}" for i, c in enumerate(FALLBACK_CASES)],
)
def test_fallback_rule_on_hard_sentences(nlp, category, anchor, expected, outcome):
    ctx, out = Context({}, np.random.default_rng(0)), Generated()
    state = ctx.rng.bit_generator.state
    if expected is None:
        with pytest.raises(Refuse) as refused:
            apply_rules(category, nlp(anchor), ctx, out)
        assert refused.value.reason == outcome  # the main rule's reason is the one counted
    else:
        made = apply_rules(category, nlp(anchor), ctx, out)
        assert (made.text, made.rule) == (expected, outcome)
        try:
            main = apply_rule(category, nlp(anchor), Context({}, np.random.default_rng(0))).rule
        except Refuse:
            main = None
        assert out.fallback_rules == (set() if main == outcome else {outcome})
        assert check_pair(made.rule, anchor, made.text)
    assert ctx.rng.bit_generator.state == state  # fallbacks never draw from the generator's stream


@pytest.mark.parametrize(
    "rule, anchor, reason", FALLBACK_REFUSALS, ids=[f"{r.__name__}-{i}" for i, (r, *_) in enumerate(FALLBACK_REFUSALS)]
)
def test_fallback_rules_keep_the_main_rules_refusals(nlp, rule, anchor, reason):
    with pytest.raises(Refuse) as refused:
        rule(nlp(anchor))
    assert refused.value.reason == reason


@pytest.mark.parametrize(
    "number, article",
    [("eight", "an"), ("seven", "a"), ("8", "an"), ("18", "an"), ("11,000", "an"), ("110", "a"), ("1,800", "a")],
)
def test_indefinite_article_follows_the_number_as_said(number, article):
    assert indefinite_article(number) == article


def test_small_step_keeps_form_and_magnitude():
    steps = {
        "two": "three",
        "Nine": "Ten",
        "twelve": "fifteen",
        "6": "7",
        "19": "21",
        "116": "117",
        "100": "110",
        "9,000": "9,100",
        "154,603": "164,603",
        "1": "2",
        "99": None,
        "995": "996",
        "999": None,
        "3.5": None,
        "07": None,
    }
    assert {k: small_step(k) for k in steps} == steps
    assert all(len(rules) >= 1 for rules in FALLBACKS.values())


@pytest.mark.parametrize(
    "rule, anchor, reason",
    [
        (
            negation_caption,
            "Some dogs running through a field.",
            "quantified subject (some/many ... not does not deny the claim)",
        ),
        (
            negation_caption,
            "A man walking while a woman watches.",
            "caption with a second verb (the not would cover one of them only)",
        ),
        (negation_caption, "A man is walking down the stairs.", "not a caption fragment"),
        (negation_caption, "A dog with a red collar running on sand.", "no participle right after the caption's noun"),
        (
            entity_swap_caption,
            "Man riding a surfboard on a wave.",
            "caption argument without an article (Man riding a surfboard: the swap reads as broken)",
        ),
        (entity_swap_caption, "The two dogs chasing a ball.", "arguments differ in number (the verb would disagree)"),
        (entity_swap_caption, "A man walking down the stairs.", "no second argument (object or by-agent)"),
    ],
)
def test_caption_rules_refuse(nlp, rule, anchor, reason):
    with pytest.raises(Refuse) as refused:
        rule(nlp(anchor))
    assert refused.value.reason == reason


def _diff_as_rule_says(rule: str, a: str, b: str) -> bool:
    """An independent reading of the rule: which tokens may appear or disappear."""
    category, _, variant = rule.partition(":")
    ta, tb = Counter(tokens(a)), Counter(tokens(b))
    gone, new = ta - tb, tb - ta
    if category == "entity_swap" and variant.endswith("_agreement"):  # one auxiliary re-agreed
        return sum(gone.values()) == sum(new.values()) == 1 and {*gone, *new} in ({"is", "are"}, {"was", "were"})
    if category == "entity_swap":
        return not gone and not new and tokens(a) != tokens(b)
    if category == "quantifier" and (gone, new) == (Counter({"all": 1}), Counter({"some": 1, "of": 1})):
        return True  # "all the bombers" -> "some of the bombers": a partitive opened
    if category == "quantifier" and (gone, new) == (Counter({"some": 1}), Counter({"all": 1, "the": 1})):
        return True  # "some food" -> "all the food": an object's some
    if category == "temporal" and variant in ("ahead_of", "prior_to"):  # "ahead of talks" -> "after talks"
        return gone == Counter(variant.split("_")) and new == Counter({"after": 1})
    if category == "temporal" and variant == "headline":  # "Meet Ahead of Deadline" -> "Meet After Deadline"
        relations = ({"before": 1}, {"ahead": 1, "of": 1}, {"prior": 1, "to": 1})
        return new == Counter({"after": 1}) and any(gone == Counter(r) for r in relations)
    if category in ("numerical", "temporal", "quantifier"):
        return sum(gone.values()) == 1 and sum(new.values()) == 1 and len(tokens(a)) == len(tokens(b))
    if category == "negation":
        neg = {"not", "n't"}
        if gone["some"] == 1 and new["any"] == 1:  # "preparing some food" -> "not preparing any food"
            gone, new = gone - Counter({"some": 1}), new - Counter({"any": 1})
        if variant in ("insert_not", "caption_not", "headline_plan"):
            return (not gone and new == Counter({"not": 1})) or (gone, new) == (
                Counter({"can": 1}),
                Counter({"cannot": 1}),
            )
        if variant == "remove_not":
            return not new and set(gone) <= neg | {"ca", "wo"} or set(new) <= {"can", "will"}
        # do-support: one verb form becomes do + not + base (or back)
        small, big = (gone, new) if variant == "do_support" else (new, gone)
        return sum(small.values()) <= 1 and {"not", "n't"} & set(big) and {"do", "does", "did"} & set(big)
    if category == "hedging":
        if variant == "remove_adverb":
            return not new and 1 <= sum(gone.values()) <= 3
        hedge = "might" if variant == "add_may_negated" else "may"
        changed = 2 if variant == "add_may_negated" else 1  # "did not go" -> "might not have gone"
        return hedge in new and sum(gone.values()) <= changed and sum(new.values()) <= 3
    if category == "near_miss":
        return gone != new
    return True


def _check_every_row(suite_path: Path) -> Counter:
    suite = load_suite(suite_path)
    assert suite.columns == ["pair_id", "category", "sentence1", "sentence2", "anchor", "rule"]
    seen = Counter()
    for row in suite.iter_rows(named=True):
        assert row["rule"].split(":")[0] == row["category"], row
        assert check_pair(row["rule"], row["sentence1"], row["sentence2"]), row
        assert _diff_as_rule_says(row["rule"], row["sentence1"], row["sentence2"]), row
        seen[row["category"]] += 1
    per_anchor = suite.group_by("anchor", "category").len()
    assert per_anchor["len"].max() == 1  # at most one pair per (anchor, category)
    positives = suite.filter(pl.col("category") == "positive_control")
    assert positives["anchor"].n_unique() == positives.height
    return seen


def test_every_generated_row_differs_only_as_its_rule_says(smoke_suite):
    path, generated = smoke_suite
    seen = _check_every_row(path)
    assert generated.n_anchors == len(set(load_suite(path)["anchor"]))
    # every anchor has its positive control or a refusal of it, and keeps its other pairs either way
    refused = sum(generated.refusals.get("positive_control", {}).values())
    assert seen["positive_control"] + refused == generated.n_anchors
    assert seen["positive_control"] > 0
    assert seen["negation"] > 0 and seen["hedging"] > 0


@pytest.mark.shared_data
@pytest.mark.skipif(not SHARED_STSB.exists(), reason=f"reads the English STS-B at {SHARED_STSB}: not there")
def test_every_row_of_the_stsb_suite(tmp_path):
    settings = SuiteSettings.from_block(
        {"data": "stsb", "split": ["train", "dev"], "score_max": 5, "min_score": 4.0, "seed": 0}, "s"
    )
    generated, _ = build_suite(
        "stsb", SHARED_STSB, locate_local(parse_source(DEFAULT_PARSER)), settings, tmp_path / "s.tsv"
    )
    # 1,605 anchors (5 source pairs refused for their language); 424 of them pass the
    # positive-control checks, word and parse checks (2026-11-26); the others keep their changed pairs
    assert generated.n_anchors >= 1600
    seen = _check_every_row(tmp_path / "s.tsv")
    refused = sum(generated.refusals["positive_control"].values())
    assert seen["positive_control"] + refused == generated.n_anchors
    assert seen["positive_control"] >= 400
    assert seen["negation"] >= 0.5 * generated.n_anchors  # quantified subjects and possibility modals refused
    assert seen["hedging"] >= 0.45 * generated.n_anchors  # 759 of 1,605 (2026-11-24)
    # a negative control is a fluent sentence: no other paraphrase with an unbalanced quote (a fragment)
    assert all(row[3].count('"') % 2 == 0 for row in generated.rows if row[1] == "negative_control")
    assert generated.refusals["negative_control"]["other paraphrase has an unbalanced quote (a fragment)"] > 0
    # nor one cut off, with a word lost (two spaces) or with two words that never meet
    controls = [row[3] for row in generated.rows if row[1] == "negative_control"]
    assert not any(fragment_veto(text) for text in controls)
    assert (
        generated.refusals["negative_control"][
            "other paraphrase has a word lost (two spaces or a space before a full stop: bought the  cover-up)"
        ]
        > 0
    )
    # an anchor with a lost word (two spaces) makes no pair at all
    assert not any("  " in row[2].strip() for row in generated.rows)
    # 8 anchors with two spaces, 1 with a space before its full stop ("... Sprint FON.N .")
    assert (
        generated.refusals["negation"][
            "a word lost in the anchor (two spaces or a space before its full stop: an  game)"
        ]
        == 9
    )


def test_control_min_score_keeps_controls_of_the_higher_scored_pairs_only(smoke_suite, tmp_path):
    from pairbench.generated_suites.anchors import read_pairs, select_anchors

    path, generated = smoke_suite
    block = {"data": "g", "split": ["train", "dev", "test"], "score_max": 5, "min_score": 4.0, "seed": 0}
    settings = SuiteSettings.from_block({**block, "control_min_score": 4.8}, "s")
    strict, _ = build_suite("smoke", SMOKE, locate_local(parse_source(DEFAULT_PARSER)), settings, tmp_path / "s.tsv")
    high = set(read_pairs(SMOKE, block["split"], min_score=4.8, score_max=5))
    controls = [(r[2], r[3]) for r in strict.rows if r[1] == "positive_control"]
    before = [(r[2], r[3]) for r in generated.rows if r[1] == "positive_control"]
    assert controls and set(controls) <= high and len(controls) < len(before)
    assert set(controls) == {pair for pair in before if pair in high}  # the other checks still hold
    reason = "scored under control_min_score 4.8 (may add or drop a detail)"
    anchors = select_anchors(read_pairs(SMOKE, block["split"], min_score=4.0, score_max=5))
    assert strict.refusals["positive_control"][reason] == sum(pair not in high for pair in anchors) > 0
    # every other pair stays: the anchors below 4.8 keep their changed pairs
    assert [r for r in strict.rows if r[1] != "positive_control"] == [
        r for r in generated.rows if r[1] != "positive_control"
    ]


def test_same_seed_gives_a_byte_identical_suite(smoke_suite, tmp_path):
    path, _ = smoke_suite
    settings = SuiteSettings.from_block(
        {"data": "graded-smoke", "split": ["train", "dev", "test"], "score_max": 5, "min_score": 4.0, "seed": 0}, "s"
    )
    build_suite("smoke", SMOKE, locate_local(parse_source(DEFAULT_PARSER)), settings, tmp_path / "again.tsv")
    assert (tmp_path / "again.tsv").read_bytes() == path.read_bytes()


def test_check_refuses_changes_beyond_the_rule():
    assert not check_pair("negation:insert_not", "A man is running.", "A man is not running fast.")
    assert not check_pair("numerical:digits_x10", "He has 5 cats.", "He has 6 cats.")
    assert not check_pair("temporal:before", "He left before noon.", "He left after lunch.")
    assert not check_pair("entity_swap:subject_object", "The dog chased the cat.", "The dog chased a cat.")
    assert not check_pair("negation:do_support", "She rides a horse.", "She does not rid a horse.")
    assert check_pair("negation:do_support", "She rides a horse.", "She does not ride a horse.")


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    "name, text, block, message",
    [
        ("train.tsv", "The dog chased the cat.\n", {"min_score": None}, "expected sentence1, sentence2"),
        ("train.tsv", "", {"min_score": None}, "no rows"),
        (
            "train.tsv",
            "A man runs.\tA man is running.\t2.0\n",
            {"min_score": 4.0, "score_max": 5},
            "no pair of split(s)",
        ),
        (
            "train.tsv",
            "Hello there.\tHi there.\t5\nGood morning!\tMorning!\t5\n",
            {"min_score": 4.0, "score_max": 5},
            "no rule applied",
        ),
    ],
    ids=["missing-column", "empty-source", "filter-keeps-nothing", "no-rule-applies"],
)
def test_bad_input_is_one_line(tmp_path, name, text, block, message):
    folder = _write(tmp_path / "data", name, text)
    settings = SuiteSettings.from_block(
        {
            "data": "d",
            "split": "train",
            "seed": 0,
            "categories": [
                "positive_control",
                "negation",
                "numerical",
                "temporal",
                "quantifier",
                "hedging",
                "entity_swap",
            ],
            **block,
        },
        "bad",
    )
    with pytest.raises(PairbenchError) as err:
        build_suite("bad", folder, locate_local(parse_source(DEFAULT_PARSER)), settings, tmp_path / "bad.tsv")
    assert message in str(err.value) and "\n" not in str(err.value)


def test_suite_loader_keeps_anchor_and_rule(tmp_path):
    path = tmp_path / "s.tsv"
    path.write_text(
        "pair_id\tcategory\tsentence1\tsentence2\tanchor\trule\np1\tnegation\tA b.\tA not b.\ta1\tnegation:insert_not\n",
        encoding="utf-8",
    )
    frame = load_suite(path)
    assert frame.row(0) == ("p1", "negation", "A b.", "A not b.", "a1", "negation:insert_not")


def _scores(model: str, values: dict) -> list[dict]:
    return [
        {"pair_id": pid, "category": pid.split("-")[1], "score": s, "model": model, "kind": "bi"}
        for pid, s in values.items()
    ]


def test_anchored_statistics_hand_worked():
    anchors = pl.DataFrame(
        {"pair_id": [f"{a}-{c}" for a, c in itertools.product(["a1", "a2", "a3"], ["positive_control", "negation"])]}
    )
    anchors = anchors.with_columns(pl.col("pair_id").str.split("-").list.first().alias("anchor"))
    # model x: a1 wins (0.9 > 0.2), a2 ties (0.5 = 0.5), a3 loses (0.1 < 0.3): accuracy 0.5
    x = {
        "a1-positive_control": 0.9,
        "a1-negation": 0.2,
        "a2-positive_control": 0.5,
        "a2-negation": 0.5,
        "a3-positive_control": 0.1,
        "a3-negation": 0.3,
    }
    # model y wins every anchor: accuracy 1
    y = {k: (0.9 if "positive" in k else 0.1) for k in x}
    scores = pl.DataFrame(_scores("x", x) + _scores("y", y))
    wins = anchor_wins(scores, anchors)
    table = anchored(wins)
    assert table.columns == ["model", "kind", "category", "n_anchors", "accuracy", "accuracy_low", "accuracy_high"]
    assert table.select("model", "category", "n_anchors", "accuracy").rows() == [
        ("x", "negation", 3, 0.5),
        ("y", "negation", 3, 1.0),
    ]
    assert 0.0 <= table["accuracy_low"][0] <= 0.5 <= table["accuracy_high"][0] <= 1.0
    assert table.row(1)[5:] == (1.0, 1.0)
    comparison = anchored_comparison(wins)
    # discordant anchors: a2 (0.5 < 1) and a3 (0 < 1), both for y: exact two-sided p = 2 * 0.5**2 = 0.5
    assert comparison.rows() == [("negation", "x", "y", 0.5, 1.0, -0.5, 0.5, 0.5)]
    assert mcnemar_exact([1, 1], [1, 1]) == 1.0


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return copy_workflow(tmp_path_factory.mktemp("wf"))


def test_default_run_plans_the_generated_suite(workdir):
    jobs = planned_jobs(workdir)
    outputs = {out for _, out in jobs}
    rules = Counter(rule for rule, _ in jobs)
    assert rules["generate_suite"] == 1 and rules["anchored_tables"] == 1
    assert any("results/suites/generated-smoke.tsv" in o for o in outputs)
    assert any(o.startswith("results/scores/generated-smoke/all-MiniLM-L6-v2.parquet") for o in outputs)


def test_generated_suite_with_unknown_dataset_stops_in_one_line(workdir):
    extra = write_config(workdir, {"generated_suites": {"g": {"data": "nope", "split": "train"}}}, "extra.yaml")
    proc = snakemake(workdir, "-n", "--cores", "1", "--configfile", str(extra), check=False)
    assert proc.returncode != 0
    assert "generated_suites.g.data: 'nope' is not a key of `datasets`" in proc.stdout + proc.stderr


def test_near_miss_numbers_keep_their_form_and_agreement():
    from pairbench.generated_suites.rules_near_miss import same_number_form

    assert not same_number_form("Two", "1")  # "1 dogs play": agreement and form both broken
    assert not same_number_form("two", "one")  # "one dogs play"
    assert not same_number_form("2", "two")  # digits against words
    assert same_number_form("Two", "three") and same_number_form("20", "13") and same_number_form("1", "one") is False


def test_the_parser_folder_is_checked_as_a_spacy_pipeline(tmp_path):
    from pairbench.core.errors import SourceError
    from pairbench.study.model_folder import check_model_folder

    parser = locate_local(parse_source(DEFAULT_PARSER))
    assert check_model_folder(parser, "spacy", key="parser") == "spacy"
    with pytest.raises(SourceError, match="not a spaCy pipeline"):
        check_model_folder(tmp_path, "spacy", key="parser")


@pytest.mark.parametrize(
    "a, p, reason",
    [
        (
            "I think you need to reread what I wrote.",
            "You need to reread what I wrote.",
            "the two sentences differ in a hedge or modal (I think, may, set to, will)",
        ),
        (
            "US, UK in pact to release emergency oil stocks",
            "US, UK set to agree emergency oil stocks release",
            "the two sentences differ in a hedge or modal (I think, may, set to, will)",
        ),
        (
            "Lacey - welcome back!",
            "Anyway, welcome back.",
            "the two sentences differ in a name (a person or place in one only)",
        ),
        (
            "A poll showed a boost for the mayor against opponent Sam Katz.",
            "A poll showed a boost for the mayor.",
            "the two sentences differ in a name (a person or place in one only)",
        ),
        ("Some men are fighting.", "Two men are fighting.", "the two sentences differ in a number"),
        (
            "Microsoft says to cut up to 18,000 jobs",
            "Microsoft to cut 18,000 jobs in overhaul",
            "the two sentences differ in a number",
        ),
        ("Forty people died in the fire.", "40 people died in the blaze.", None),
        (
            "Romney picks Ryan as running mate: source",
            "Romney picks Ryan as his running mate",
            "the two sentences differ in a hedge or modal (I think, may, set to, will)",
        ),
        (
            "The doctor may refer the patient to a specialist.",
            "The physician might send the patient to a specialist.",
            None,
        ),
        ("Google launched a new phone in October.", "In October Google released a new phone.", None),
        (
            "North Korea Postpones Family Reunions with South",
            "North Korea 'postpones' family reunions with South Korea",
            "a word in scare quotes in one sentence only ('postpones': doubt added)",
        ),
        (
            'Wells\' other series include NBC\'s "ER" and "Third Watch."',
            'Wells\' other series include NBC\'s "ER" and "Third Watch."',
            None,
        ),
        (
            "It's anything he wants to say, Alesha Badgley said this week.",
            "It's anything he wants to say, confirmed Alesha Badgley.",
            "the two sentences differ in a time (said this week, on Monday, today)",
        ),
        ("The shop opens on Monday.", "On Monday the store opens.", None),
    ],
)
def test_positive_controls_refuse_hedges_and_names(a, p, reason):
    from pairbench.generated_suites.check import control_difference

    assert control_difference(a, p) == reason


def test_near_miss_pool_keeps_amounts_modest_and_skips_aliases_and_historical_persons(nlp):
    from pairbench.generated_suites.gazetteer import same_thing
    from pairbench.generated_suites.rules_near_miss import amount, modest_change

    assert amount("$2.81") == pytest.approx(2.81) and amount("4.7 million") == pytest.approx(4.7e6)
    assert modest_change("12", "30") and not modest_change("12", "500") and not modest_change("$2.81", "$395,000")
    assert same_thing("Fed", "US Federal Reserve") and not same_thing("Fed", "FBI")
    inventory = [
        nlp(s)
        for s in (
            "Adolf Hitler said he would speak.",
            "Adolf Hitler met his wife.",
            "Barack Obama said he would come.",
            "Barack Obama met his wife.",
        )
    ]
    ctx = Context(entity_inventory(inventory), np.random.default_rng(0))
    with pytest.raises(Refuse) as refused:  # the only other man is a historical person: no candidate
        apply_rule("near_miss", nlp("Barack Obama spoke at the meeting."), ctx)
    assert refused.value.reason == "no other entity of the same fine type in the corpus"
