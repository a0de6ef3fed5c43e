"""Table 5 rows, their exclusions and the Appendix B forms, on real NLTK tokens and tags."""

import time

import pytest

from filtering.patterns import (
    APPENDIX_B,
    EXTENDED_ROWS,
    PROFILES,
    ROWS,
    TABLE_5,
    CandidateFilter,
    Tokens,
    compile_pattern,
)

PAPER = CandidateFilter("paper")

# (row, sentence, whether the row's token patterns match it)
ROW_CASES = [
    # 1: if ... then, excluding even/what/as if ... then
    ("1", "If the bank had failed, then the whole system would have collapsed.", True),
    ("1", "IF rates rise THEN bonds fall.", True),
    ("1", "Then, if anything, prices rose.", False),
    ("1", "Even if the vote passes, then the court will decide.", False),
    ("1", "As if that mattered, then he left.", False),
    # 2: if ... had/hadn't/had not, excluding even/what/as if and had + a/the/to/an
    ("2", "If kangaroos had no tails, they would topple over.", True),
    ("2", "If he hadn't resigned, he would be chairman today.", True),
    ("2", "If she had not called, we would have waited.", True),
    ("2", "If only he’d known; if the firm hadn’t sold, it would thrive.", True),
    ("2", "If the company had a plan, it did not say.", False),
    ("2", "Even if they had known, nothing would change.", False),
    ("2", "If he had to choose, he would pick the bank.", False),
    ("2", "He had known it for years.", False),
    ("2", "What if he had known?", False),
    # 3: modal + have, excluding have followed by a/an/the/to
    ("3", "It should have been feasible right after the collapse of Lehman Brothers (in 2008), when prices were cheap.",
     True),
    ("3", "The deal would not have closed without the loan.", True),
    ("3", "They wouldn't have approved it.", True),
    ("3", "I'd have sold the shares.", True),
    ("3", "The fund ought to have sold earlier.", True),
    ("3", "We would have a problem.", False),
    ("3", "Banks should have to report losses.", False),
    ("3", "The shares have risen.", False),
    ("3", "Would you have gone?", False),
    # 4: what if
    ("4", "What if the Fed raises rates again?", True),
    ("4", "what if we had never met", True),
    ("4", "What, if anything, changed?", False),
    ("4", "If what he says is true, we lose.", False),
    # 5: even if
    ("5", "Even if the bill passes, prices will rise.", True),
    ("5", "The plan fails even if it is funded.", True),
    ("5", "Even, if you ask me, a little.", False),
    ("5", "If even one bank fails, we all fail.", False),
    # 6a: if I/there/he/she/you were..., excluding even/what/as if and were + to
    ("6a", "If I were you, I would sell.", True),
    ("6a", "If there weren't a subsidy, the plant would close.", True),
    ("6a", "If she were not the chair, the vote would fail.", True),
    ("6a", "If I were asked to, I would be happy to talk to anyone.", True),
    ("6a", "As if he were the boss, he shouted.", False),
    ("6a", "If you were to leave, we would miss you.", False),
    ("6a", "If they were here, we would know.", False),
    ("6a", "Even if I were rich, I would not buy it.", False),
    ("6a", "If she weren't to blame, who was?", False),
    # 6b: if ... were/weren't/were not to, excluding even/what/as if
    ("6b", "If the rates were to rise, bonds would fall.", True),
    ("6b", "If prices weren't to fall, we would buy.", True),
    ("6b", "Even if the rates were to rise, bonds would hold.", False),
    ("6b", "If the rates were rising, bonds would fall.", False),
    ("6b", "What if the Fed were to act?", False),
    # 7: wish ... modal have / wish I'd have, excluding wish to and have + a/the/to/an
    ("7", "I wish we could have stopped it.", True),
    ("7", "She wishes... no: I wish I'd have known.", True),
    ("7", "I wish they couldn't have voted.", True),
    ("7", "We wish to say we could have done more.", False),
    ("7", "I wish you could have a look.", False),
    ("7", "He wishes he could have stayed.", False),
    ("7", "I wish to know if we could have won.", False),
    ("7", "I wish I'd have the time.", False),
    # 8: wish ... were/weren't/had/had not/hadn't, excluding wish to and a/the/to/an after
    ("8", "I wish it were true.", True),
    ("8", "I wish I hadn't sold.", True),
    ("8", "I wish to say they were wrong.", False),
    ("8", "I wish I had a car.", False),
    ("8", "I wish they were to stay.", False),
    ("8", "They wish to leave; we were tired.", False),
    ("8", "I wish we were the champions.", False),
    ("8", "I wish I had an answer.", False),
    # 9: wish ..., excluding wish to
    ("9", "I wish you well.", True),
    ("9", "Their only wish: peace.", True),
    ("9", "I wish to thank the board.", False),
    ("9", "He wishes us well and wished it earlier.", False),
    ("9", "We WISH TO go.", False),
    # 10: but for ... modal have, excluding now after but for and a/the/to/an after have
    ("10", "But for the bailout, the bank would have failed.", True),
    ("10", "But for her, we couldn't have won.", True),
    ("10", "But for now, we would have to wait.", False),
    ("10", "But for the loan, we would have a crisis.", False),
    ("10", "But for now, it could have been worse.", False),
    ("10", "But for the bank, we would have the cash.", False),
    # 11: if only, excluding even/what/as if only and if only for
    ("11", "If only I had listened.", True),
    ("11", "if only they knew", True),
    ("11", "If only for a day, we were free.", False),
    ("11", "Even if only one survives, we win.", False),
    ("11", "As if only he knew.", False),
    ("11", "If only for a moment, he smiled.", False),
    # 12: had/were first, excluding questions
    ("12", "Had I known, I would have stayed.", True),
    ("12", "“Were it not for the tax, sales would soar,” she said.", True),
    ("12", "Had the company any debt?", False),
    ("12", "Were the results good?\"", False),
    ("12", "The firm had known it.", False),
    # 13: if, excluding even/what/as if
    ("13", "If approved, it would be the first such drug.", True),
    ("13", "Prices fall if demand drops.", True),
    ("13", "Even if so, it is late.", False),
    ("13", "It was different in life.", False),
    ("13", "As if!", False),
    ("13", "What if?", False),
    # 14: modal have ... without / without ... modal have, not a question or exclamation
    ("14", "We would have lost without the loan.", True),
    ("14", "Without the vaccine, thousands could not have survived.", True),
    ("14", "Without you, I'd have failed.", True),
    ("14", "Would we have lost without the loan?", False),
    ("14", "We would have lost without the loan!", False),
    ("14", "Without the loan, we lost.", False),
    ("14", "Without help, could we have won?", False),
]


@pytest.mark.parametrize(("row", "sentence", "expected"), ROW_CASES)
def test_it_matches_each_row_on_tokens(row, sentence, expected):
    tokens = Tokens.from_sentence(sentence)
    assert ROWS[row].matches(tokens) is expected


def test_it_has_cases_for_every_row():
    covered = {row for row, _, expected in ROW_CASES if expected}
    refused = {row for row, _, expected in ROW_CASES if not expected}
    assert covered == refused == {row.id for row in TABLE_5}


@pytest.mark.parametrize("row", EXTENDED_ROWS, ids=lambda row: row.id)
def test_each_added_rule_keeps_its_examples_and_passes_over_its_look_alikes(row):
    """Examples written for each added rule (not taken from the training file): at least two it must keep,
    and two look-alikes it must not fire on."""
    assert len(row.keeps) >= 2 and len(row.passes_over) >= 2
    engine = CandidateFilter("extended")
    for sentence in row.keeps:
        assert row.matches(Tokens.from_sentence(sentence)), sentence
        assert engine.match(sentence).candidate, sentence
    for sentence in row.passes_over:
        assert not row.matches(Tokens.from_sentence(sentence)), sentence


@pytest.mark.parametrize(("sentence", "expected"), [
    ("She would have sold the shares, had she known.", True),  # had + pronoun + past participle
    ("Had he a car, he would drive it to work.", False),  # had + pronoun + noun: not x1 (row 12 may fire)
    ("The deal fell apart unless the buyers had walked away.", True),
    ("The deal falls apart unless the buyers walk away.", False),  # unless without a past form
    ("The plan would work, were it not for the cost.", True),
    ("The plan was, as it were, a gamble.", False),
])
def test_the_look_alikes_of_the_added_rules(sentence, expected):
    tokens = Tokens.from_sentence(sentence)
    assert any(ROWS[row.id].matches(tokens) for row in EXTENDED_ROWS) is expected


def test_the_paper_and_news_profiles_are_unchanged_by_the_added_rules():
    assert PROFILES["paper"].rows == PROFILES["news"].rows == TABLE_5
    assert PROFILES["extended"].rows[:len(TABLE_5)] == TABLE_5
    assert not CandidateFilter("news").match("I would sign it were I governor.").candidate
    assert CandidateFilter("extended").match("I would sign it were I governor.").rows == ("x1",)


def test_it_declares_the_paper_rows_and_forms_once():
    assert [row.id for row in TABLE_5] == ["1", "2", "3", "4", "5", "6a", "6b", "7", "8", "9", "10", "11", "12",
                                           "13", "14"]
    assert [form.id for form in APPENDIX_B] == ["1", "2", "3", "4", "5a", "5b"]
    assert all(row.inclusion and row.exclusion for row in TABLE_5)


@pytest.mark.parametrize(
    "sentence",
    [
        "If kangaroos had no tails, they would topple over.",
        "Officials say if they had authority to shut non-bank firms, the collapse of Lehman Brothers, which touched "
        "off the most virulent phase of the credit crisis, could have been avoided.",
        "The delivery numbers would have been high had it not been for the restrictions imposed by the military for "
        "security reasons.",
        "It should have been feasible right after the collapse of Lehman Brothers (in 2008), when prices were cheap.",
        "If I were asked to, I would be happy to talk to anyone.",
        "Under the current alignment, he said, American multinational corporations like Pfizer might invest more "
        "money in the United States, not less, if they had their tax domiciles abroad.",
    ],
)
def test_it_picks_the_papers_examples(sentence):
    assert PAPER.match(sentence).candidate


# (form, sentence that matches, the same words in an order that does not)
POS_CASES = [
    ("1", "If he had known, he would have left.", "He would have left; he had known if."),
    ("2", "He would go if she asked.", "If she asked, go he would."),
    ("3", "She could have known that it would fail.", "It would fail, she knew."),
    ("4", "I wish I had known.", "I had known my wish."),
    ("5a", "Had he known, he would go.", "He would go, had he known."),
    ("5b", "He would go had he known.", "Had he known, go."),
]


@pytest.mark.parametrize(("form", "matching", "reordered"), POS_CASES)
def test_it_applies_each_pos_form_in_order(form, matching, reordered):
    pos_form = next(f for f in APPENDIX_B if f.id == form)
    assert pos_form.matches(Tokens.from_sentence(matching))
    assert not pos_form.matches(Tokens.from_sentence(reordered))


def test_it_keeps_pos_gated_rows_only_with_a_pos_form():
    gated_only = "If only the rain stopped."  # row 11 and 13, no modal after
    match = PAPER.match(gated_only)
    assert "11" in match.token_rows
    assert "11" not in match.rows
    with_form = PAPER.match("If only it had rained, the crops would have grown.")
    assert "11" in with_form.rows and with_form.pos_forms


def test_it_gates_row_13_only_in_the_news_profile():
    sentence = "Prices fall if demand drops."
    assert PAPER.match(sentence).rows == ("13",)
    assert not CandidateFilter("news").match(sentence).candidate
    assert PROFILES["paper"].pos_gated < PROFILES["news"].pos_gated


def test_it_refuses_an_unknown_profile():
    with pytest.raises(ValueError, match="unknown filter profile 'strict'"):
        CandidateFilter("strict")


def test_it_tags_only_sentences_a_gated_row_matched():
    engine = CandidateFilter("paper")
    assert engine.match("The firm would have failed.").pos_forms == ()  # row 3 is not gated
    tokens = Tokens.from_sentence("The firm would have failed.")
    assert ROWS["3"].matches(tokens) and not tokens.tagged


@pytest.mark.parametrize("sentence", ["", "   ", "?!...", "--", "Der Hund hätte gebellt, wenn er gewusst hätte.",
                                      "如果我早知道，我就不会去了。", "😀 if 😀"])
def test_it_handles_odd_input(sentence):
    match = PAPER.match(sentence)
    assert match.candidate is (sentence == "😀 if 😀")


def test_it_stays_linear_on_adversarial_input():
    engine = CandidateFilter("paper")
    worst = " ".join(["if"] * 5_000)
    huge = ("If the market had " + "rallied and " * 9_000 + "then what?")[:100_000]
    for sentence in (worst, huge):
        started = time.perf_counter()
        engine.match(sentence)
        # A bound of the engine's own: a backtracking matcher needs minutes here.
        assert time.perf_counter() - started < 10


def test_it_compiles_the_pattern_language():
    pattern = compile_pattern("!{even, as} if ... {had, had n't} !{a}")
    assert len(pattern.segments) == 2
    assert pattern.segments[0].not_before == frozenset({"even", "as"})
    assert pattern.segments[1].not_after == frozenset({"a"})
    with pytest.raises(ValueError, match="guard"):
        compile_pattern("if !{a} had")
