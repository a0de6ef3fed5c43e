"""The rules of a practice round asked one item at a time, as Potato's training phase applies them."""

from qualification import practice
from qualification.practice import Practice

ITEMS = [11, 12, 13]


def _walk(rules, answers):
    """Answers (item, right) in turn; the steps taken and the progress after them."""
    progress = practice.start()
    steps = []
    for item, right in answers:
        assert ITEMS[progress["at"]] == item, f"the round is at {ITEMS[progress['at']]}, not {item}"
        steps.append(practice.answer(rules, progress, ITEMS, item, right))
    return steps, progress


def test_a_wrong_answer_is_tried_again_and_counts_right_once_right():
    steps, progress = _walk(Practice(min_correct=3), [(11, False), (11, True), (12, True), (13, True)])
    assert [(step.right, step.again, step.ended) for step in steps] == [
        (False, True, ""), (True, False, ""), (True, False, ""), (True, False, practice.PASSED)]
    assert progress["mistakes"] == 1 and progress["tries"] == {"11": 1} and progress["right"] == ITEMS


def test_the_round_passes_as_soon_as_enough_items_are_right_unless_every_item_must_be():
    steps, _ = _walk(Practice(min_correct=2), [(11, True), (12, True)])
    assert steps[-1].ended == practice.PASSED
    steps, _ = _walk(Practice(min_correct=2, require_all=True), [(11, True), (12, True)])
    assert steps[-1].ended == ""  # the last item is still asked


def test_mistakes_in_all_and_on_one_item_end_the_round():
    steps, _ = _walk(Practice(min_correct=3, max_mistakes=2), [(11, False), (11, True), (12, False)])
    assert steps[-1].ended == practice.TOO_MANY
    steps, _ = _walk(Practice(min_correct=3, max_mistakes_per_item=2), [(11, False), (11, False)])
    assert steps[-1].ended == practice.TOO_MANY_ON_ONE


def test_without_retries_a_wrong_answer_ends_the_round_or_moves_on_when_the_round_repeats():
    steps, _ = _walk(Practice(min_correct=2, retry=False), [(11, True), (12, False)])
    assert steps[-1].ended == practice.NO_RETRY
    steps, progress = _walk(Practice(min_correct=3, retry=False, repeat=True, max_rounds=2),
                            [(11, True), (12, False), (13, True), (11, True), (12, True), (13, True)])
    # Short of 3 in the first round: it starts again, mistakes carried over; all right in the second.
    assert [step.ended for step in steps] == ["", "", "", "", "", practice.PASSED]
    assert progress["round"] == 2 and progress["mistakes"] == 1


def test_a_round_short_of_the_mark_fails_when_it_may_not_repeat_or_has_repeated_enough():
    steps, _ = _walk(Practice(min_correct=3, retry=False, repeat=True, max_rounds=1),
                     [(11, True), (12, False), (13, True)])
    assert steps[-1].ended == practice.SHORT


def test_the_rules_are_stored_and_read_back():
    rules = Practice(min_correct=2, max_mistakes=4, retry=False, repeat=True)
    assert Practice.of(rules.stored()) == rules
    assert Practice.of({}) is None
