"""Grading the screening test. No Django here."""

from decimal import ROUND_HALF_UP, Decimal


def grade(answers, key, threshold):
    """answers: {item: 0/1 or None}; key: {item: 0/1}. Returns (score percent, passed).

    An item left unanswered counts as wrong. The score is rounded half-up to a
    whole percent as MTurk's PercentageMapping does, and a score exactly at the
    threshold passes.
    """
    if not key:
        raise ValueError("a test needs items with answers")
    correct = sum(1 for item, answer in key.items() if answers.get(item) is not None
                  and int(answers[item]) == int(answer))
    score = int((Decimal(correct) * 100 / len(key)).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    return score, score >= threshold
