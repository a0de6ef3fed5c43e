"""The SemEval-2020 Task 5 scorer. No Django here.

Subtask 1: precision, recall and F1 of the positive class. Subtask 2: exact
match and per-sentence token F1, computed as the released evaluation code
does (see shared/docs/semeval-format.md): token counts of `sentence[start:end]`
(which drops the inclusive end character), overlap of the two spans summed
over antecedent and consequent, and a score of 0 for invalid predictions. The
released code names precision and recall the wrong way round; here they carry
their true names.

Both tasks treat a sentence of the gold file with no prediction the same way:
it counts as predicted wrong (Subtask 1: not counterfactual; Subtask 2: no
exact match and F1 0) and is counted in `missing_predictions`. A prediction for
a sentence the gold file does not have is refused, naming its line.
"""

from pathlib import Path

from core import semeval as formats
from core.errors import InputError


class ScoreError(InputError):
    """Predictions that cannot be scored against the gold file; the message says which and why."""

    def __init__(self, message: str, *, sentence: str | None = None, **where):
        self.sentence = sentence
        super().__init__(message, **where)


def score_subtask1(gold, predicted):
    """gold, predicted: {sentence id: 0/1}. A missing prediction counts as 0 (see the module's text)."""
    missing = sum(1 for key in gold if key not in predicted)
    true_positive = sum(1 for key, label in gold.items() if label == 1 and predicted.get(key) == 1)
    predicted_positive = sum(1 for key in gold if predicted.get(key) == 1)
    gold_positive = sum(1 for label in gold.values() if label == 1)
    precision = true_positive / predicted_positive if predicted_positive else 0.0
    recall = true_positive / gold_positive if gold_positive else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "sentences": len(gold),
            "gold_positive": gold_positive, "predicted_positive": predicted_positive, "missing_predictions": missing}


def _tokens(text):
    return len(text.split())


def is_valid(spans, sentence):
    """The released code's rules, and only those: the antecedent start is not -1 and is before its end, the
    consequent start is not after its end, and both consequent ids are -1 or neither. Offsets past the end
    of the sentence (or below -1) are not refused there: Python's slicing clips or wraps them, and so it
    does here."""
    a_start, a_end, c_start, c_end = spans.as_tuple()
    if a_start == -1 or a_start >= a_end:
        return False
    if c_start > c_end:
        return False
    return (c_start == -1) == (c_end == -1)


def sentence_scores(sentence, gold, predicted):
    """(exact match, f1, precision, recall) for one sentence, as the released code computes them.

    Raises ScoreError where the released code fails: an offset below -1 can wrap a predicted slice round
    to nothing while its overlap with the gold span still holds words, and the released code then divides
    by zero."""
    exact = gold.as_tuple() == predicted.as_tuple()
    if not is_valid(predicted, sentence):
        return exact, 0.0, 0.0, 0.0
    pairs = [(gold.antecedent_start, gold.antecedent_end, predicted.antecedent_start, predicted.antecedent_end),
             (gold.consequent_start, gold.consequent_end, predicted.consequent_start, predicted.consequent_end)]
    gold_length = predicted_length = overlap = 0
    for gold_start, gold_end, pred_start, pred_end in pairs:
        if gold_start != -1:
            gold_length += _tokens(sentence[gold_start:gold_end])
        if pred_start != -1:
            predicted_length += _tokens(sentence[pred_start:pred_end])
        if gold_start != -1 and pred_start != -1:
            overlap += _tokens(sentence[max(gold_start, pred_start):min(gold_end, pred_end)])
    if not overlap:
        return exact, 0.0, 0.0, 0.0
    if not predicted_length or not gold_length:
        raise ScoreError(f"offsets {', '.join(map(str, predicted.as_tuple()))} select no word of the sentence but "
                         f"overlap the gold spans (an offset below -1 wraps round from the end): the released "
                         f"evaluation code fails on this row (division by zero); use offsets from -1 up",
                         field="antecedent_startid")
    precision = overlap / predicted_length
    recall = overlap / gold_length
    return exact, 2 * precision * recall / (precision + recall), precision, recall


def score_subtask2(gold, predicted):
    """gold: {id: (sentence, Spans)}; predicted: {id: Spans}. A missing prediction scores 0."""
    missing = sum(1 for key in gold if key not in predicted)
    totals = [0.0, 0.0, 0.0, 0.0]
    for key, (sentence, spans) in gold.items():
        if key not in predicted:
            continue
        try:
            scores = sentence_scores(sentence, spans, predicted[key])
        except ScoreError as error:
            raise ScoreError(f"sentence {key}: {error.message}", field=error.field, sentence=key) from None
        for index, value in enumerate(scores):
            totals[index] += value
    count = len(gold) or 1
    return {"exact_match": totals[0] / count, "f1": totals[1] / count, "precision": totals[2] / count,
            "recall": totals[3] / count, "sentences": len(gold), "missing_predictions": missing}


def score_files(task: int, gold_path: Path, pred_path: Path) -> dict[str, float | int]:
    """Score a prediction file against a gold file of `task` (1 or 2), as `manage.py score` does."""
    if task == 1:
        gold1 = formats.read_subtask1(gold_path)
        predicted1 = formats.read_subtask1(pred_path, label_column="pred_label")
        _refuse_unknown(pred_path, predicted1, gold1)
        return score_subtask1(gold1, predicted1)
    gold2 = formats.read_subtask2_gold(gold_path)
    predicted2 = formats.read_subtask2_predictions(pred_path)
    _refuse_unknown(pred_path, predicted2, gold2)
    try:
        return score_subtask2(gold2, predicted2)
    except ScoreError as error:
        raise ScoreError(error.message, file=pred_path, line=_line_of(pred_path, error.sentence),
                         field=error.field) from None


def _refuse_unknown(path: Path, predicted: dict, gold: dict) -> None:
    unknown = [key for key in predicted if key not in gold]
    if not unknown:
        return
    more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
    raise ScoreError(f"sentence {unknown[0]} is not in the gold file{more}; predict only the gold file's sentences",
                     file=path, line=_line_of(path, unknown[0]), field="sentenceID")


def _line_of(path: Path, key: str | None) -> int | None:
    return next((line for line, row in formats.read_rows(path, ("sentenceID",)) if row["sentenceID"] == key), None)
