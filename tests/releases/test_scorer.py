"""The scorer on hand-computed cases, and the released files through our formats."""

import json
import tempfile
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from core import semeval as formats
from core.errors import InputError
from core.spans import Spans
from releases.scorer import ScoreError, score_subtask1, score_subtask2, sentence_scores

SENTENCE = "aa bb cc dd ee ff"  # antecedent "aa bb cc" = 0..7, consequent "dd ee ff" = 9..16
GOLD = Spans(0, 7, 9, 16)
RELEASED = settings.SHARED_DIR / "semeval2020t5"


def test_it_scores_subtask1_on_the_positive_class():
    result = score_subtask1({"a": 1, "b": 1, "c": 0, "d": 0}, {"a": 1, "b": 0, "c": 1, "d": 0})
    assert (result["precision"], result["recall"], result["f1"]) == (0.5, 0.5, 0.5)
    assert result["missing_predictions"] == 0


def test_a_missing_prediction_counts_as_wrong_in_both_tasks():
    # Subtask 1: "b" missing counts as predicted 0: TP 1 (a), predicted positive 1, gold positive 2.
    result = score_subtask1({"a": 1, "b": 1, "c": 0}, {"a": 1, "c": 0})
    assert (result["precision"], result["recall"]) == (1.0, 0.5)
    assert result["f1"] == pytest.approx(2 / 3)
    assert result["missing_predictions"] == 1
    # Subtask 2: of two sentences, one predicted exactly and one missing: EM 1/2, F1 1/2.
    result = score_subtask2({"a": (SENTENCE, GOLD), "b": (SENTENCE, GOLD)}, {"a": GOLD})
    assert (result["exact_match"], result["f1"], result["missing_predictions"]) == (0.5, 0.5, 1)


@pytest.mark.parametrize(("predicted", "expected"), [
    # Partial antecedent, no consequent: tokens of s[3:7] = "bb c" (2) overlap 2 of gold's 3 + 3.
    (Spans(3, 7), (False, 0.5, 1.0, 1 / 3)),
    (Spans(0, 7, 9, 16), (True, 1.0, 1.0, 1.0)),
    (Spans(-1, -1), (False, 0.0, 0.0, 0.0)),  # no antecedent: invalid
    (Spans(5, 5), (False, 0.0, 0.0, 0.0)),  # start == end: invalid by the released rule
    (Spans(0, 7, 9, -1), (False, 0.0, 0.0, 0.0)),  # only one consequent id is -1
    (Spans(12, 16), (False, 0.0, 0.0, 0.0)),  # no overlap
    # -3 wraps to "ff"[1:]: predicted consequent " f" (1 token) overlaps "dd ee f" (3): precision 6/4, as released.
    (Spans(0, 7, -3, 16), (False, 1.2, 1.5, 1.0)),
    # Past the sentence's 17 characters: the slice clips, all 6 tokens predicted, 3 of them gold.
    (Spans(0, 40), (False, 0.5, 0.5, 0.5)),
    (Spans(0, 17), (False, 0.5, 0.5, 0.5)),
    (Spans(0, 7, 9, 16), (True, 1.0, 1.0, 1.0)),  # the last character, index 15, is inside: 16 is not
    (Spans(7, 3), (False, 0.0, 0.0, 0.0)),  # start after end
])
def test_it_scores_one_sentence_as_the_released_code(predicted, expected):
    assert sentence_scores(SENTENCE, GOLD, predicted) == pytest.approx(expected)


def test_it_averages_subtask2_over_sentences_and_names_precision_and_recall_truly():
    gold = {str(n): (SENTENCE, GOLD) for n in range(5)}
    predicted = {"0": Spans(3, 7), "1": GOLD, "2": Spans(-1, -1), "3": Spans(12, 16)}
    result = score_subtask2(gold, predicted)
    assert result["exact_match"] == pytest.approx(1 / 5)
    assert result["f1"] == pytest.approx((0.5 + 1) / 5)
    assert result["precision"] == pytest.approx((1 + 1) / 5)  # predicted "bb c" is all inside gold
    assert result["recall"] == pytest.approx((1 / 3 + 1) / 5)
    assert result["missing_predictions"] == 1


def test_it_scores_gold_against_itself_perfectly_on_the_released_file():
    gold = formats.read_subtask2_gold(RELEASED / "subtask2_train.csv")
    result = score_subtask2(gold, {key: spans for key, (_, spans) in gold.items()})
    assert (result["exact_match"], result["f1"]) == (1.0, 1.0)


def test_it_reproduces_the_released_files_byte_for_byte():
    released2 = (RELEASED / "subtask2_train.csv").read_bytes()
    gold = formats.read_subtask2_gold(RELEASED / "subtask2_train.csv")
    assert formats.subtask2_csv((key, s, spans) for key, (s, spans) in gold.items()).encode() == released2
    released1 = (RELEASED / "subtask1_train.csv").read_bytes()
    rows = [(row["sentenceID"], row["gold_label"], row["sentence"])
            for _, row in formats.read_rows(RELEASED / "subtask1_train.csv", formats.SUBTASK1)]
    # The released Subtask-1 file has no line end after its last row; the Subtask-2 file has one.
    assert not formats.ends_with_line_end(RELEASED / "subtask1_train.csv")
    assert formats.ends_with_line_end(RELEASED / "subtask2_train.csv")
    assert formats.subtask1_csv(rows, final_line_end=False).encode() == released1


def test_it_neutralizes_formulas_only_in_the_spreadsheet_export():
    rows = [("1", 0, '=HYPERLINK("http://x","y")'), ("2", 1, "+1 more"), ("3", 0, "-2%"), ("4", 0, "@SUM(A1)"),
            ("5", 1, "Plain.")]
    semeval = formats.subtask1_csv(rows)
    assert '=HYPERLINK(""http://x"",""y"")' in semeval
    sheet = formats.spreadsheet_csv(formats.SUBTASK1, rows)
    assert "'=HYPERLINK" in sheet and "'+1 more" in sheet and "'-2%" in sheet and "'@SUM(A1)" in sheet
    assert ",Plain." in sheet


def test_it_refuses_bad_files_naming_the_line():
    folder = Path(tempfile.mkdtemp())
    (folder / "pred.csv").write_text("sentenceID,pred_label\n1,1\n2,yes\n")
    with pytest.raises(InputError, match=r"pred.csv:3: pred_label: 'yes' is not a whole number"):
        formats.read_subtask1(folder / "pred.csv", label_column="pred_label")
    (folder / "gold2.csv").write_text(",".join(formats.SUBTASK2) + "\n1,short,short,{},0,40,-1,-1\n")
    with pytest.raises(InputError, match=r"gold2.csv:2: antecedent 0..40 is not inside the sentence"):
        formats.read_subtask2_gold(folder / "gold2.csv")
    with pytest.raises(InputError, match="overlap"):
        formats.check_spans(SENTENCE, Spans(0, 7, 5, 10), allow_overlap=False)


def test_it_prints_json_from_the_command():
    folder = Path(tempfile.mkdtemp())
    (folder / "gold.csv").write_text("sentenceID,gold_label,sentence\n1,1,a\n2,0,b\n3,1,c\n")
    (folder / "pred.csv").write_text("sentenceID,pred_label\n1,1\n2,1\n3,0\n")
    out = StringIO()
    call_command("score", "--task", "1", str(folder / "gold.csv"), str(folder / "pred.csv"), "--json", stdout=out)
    result = json.loads(out.getvalue())
    assert result["precision"] == 0.5 and result["recall"] == 0.5
    (folder / "pred2.csv").write_text(",".join(formats.SUBTASK2_PRED) + "\n999,0,3,-1,-1\n")
    with pytest.raises(CommandError, match=r"pred2.csv:2: sentenceID: sentence 999 is not in the gold file"):
        call_command("score", "--task", "2", str(RELEASED / "subtask2_train.csv"), str(folder / "pred2.csv"))


def test_the_command_refuses_unknown_ids_in_task_1_by_line_and_reads_a_bom(tmp_path):
    (tmp_path / "gold.csv").write_text("sentenceID,gold_label,sentence\n1,1,a\n2,0,b\n")
    (tmp_path / "pred.csv").write_text("sentenceID,pred_label\n1,1\n2,0\n7,1\n8,0\n")
    with pytest.raises(CommandError, match=r"pred.csv:4: sentenceID: sentence 7 is not in the gold file \(and 1 m"):
        call_command("score", "--task", "1", str(tmp_path / "gold.csv"), str(tmp_path / "pred.csv"))
    (tmp_path / "bom.csv").write_bytes(b"\xef\xbb\xbfsentenceID,pred_label\r\n1,1\r\n")
    out, err = StringIO(), StringIO()
    call_command("score", "--task", "1", str(tmp_path / "gold.csv"), str(tmp_path / "bom.csv"), "--json",
                 stdout=out, stderr=err)
    result = json.loads(out.getvalue())
    assert (result["precision"], result["recall"], result["missing_predictions"]) == (1.0, 1.0, 1)
    assert "1 sentence(s) of the gold file have no prediction" in err.getvalue()


def test_a_task_2_row_the_released_code_divides_by_zero_on_is_refused_by_line(tmp_path):
    gold = RELEASED / "subtask2_train.csv"
    rows = formats.read_subtask2_gold(gold)
    first = next(iter(rows))
    # -3 wraps to three characters before the end: nothing between there and 10, yet words of the gold antecedent.
    second = next(key for key, (sentence, spans) in rows.items() if spans.antecedent_start == 0 and len(sentence) > 40)
    (tmp_path / "pred.csv").write_text(",".join(formats.SUBTASK2_PRED) + f"\n{first},0,5,-1,-1\n"
                                       f"{second},-3,10,-1,-1\n")
    with pytest.raises(CommandError, match=r"pred.csv:3: antecedent_startid: sentence .*released evaluation code "
                                           r"fails on this row \(division by zero\)"):
        call_command("score", "--task", "2", str(gold), str(tmp_path / "pred.csv"), stdout=StringIO(),
                     stderr=StringIO())


def released_sentence_scores(sentence, gold, predicted):
    """The released evaluation rules written out literally from shared/docs/semeval-format.md, as the
    oracle: plain slicing everywhere, and whatever Python raises, raised."""
    ga, gb, gc, gd = gold.as_tuple()
    pa, pb, pc, pd = predicted.as_tuple()
    exact = (ga, gb, gc, gd) == (pa, pb, pc, pd)
    if pa == -1 or pa >= pb or pc > pd or (pc == -1) != (pd == -1):
        return exact, 0.0, 0.0, 0.0
    gold_length = len(sentence[ga:gb].split()) + (len(sentence[gc:gd].split()) if gc != -1 else 0)
    pred_length = len(sentence[pa:pb].split()) + (len(sentence[pc:pd].split()) if pc != -1 else 0)
    overlap = len(sentence[max(ga, pa):min(gb, pb)].split())
    if gc != -1 and pc != -1:
        overlap += len(sentence[max(gc, pc):min(gd, pd)].split())
    if overlap == 0:
        return exact, 0.0, 0.0, 0.0
    precision, recall = overlap / pred_length, overlap / gold_length
    return exact, 2 * precision * recall / (precision + recall), precision, recall


def _moved(rng, spans, length):
    """A prediction made from gold spans: shifted, widened, narrowed, overrun past the end or below -1."""
    def move(start, end):
        kind = rng.choice(["shift", "widen", "narrow", "overrun", "under", "same", "swap"])
        if kind == "shift":
            step = rng.randint(-8, 8)
            return start + step, end + step
        if kind == "widen":
            return start - rng.randint(0, 10), end + rng.randint(0, 10)
        if kind == "narrow":
            return start + rng.randint(0, 5), end - rng.randint(0, 5)
        if kind == "overrun":
            return start, length + rng.randint(0, 50)
        if kind == "under":
            return -rng.randint(2, 12), end
        if kind == "swap":
            return end, start
        return start, end
    a_start, a_end = move(spans.antecedent_start, spans.antecedent_end)
    if spans.consequent_start == -1 or rng.random() < 0.1:
        c_start, c_end = (-1, -1) if rng.random() < 0.9 else (rng.randint(0, length), -1)
    else:
        c_start, c_end = move(spans.consequent_start, spans.consequent_end)
    return Spans(a_start, a_end, c_start, c_end)


def test_generated_predictions_score_as_the_released_code_on_every_row_it_accepts(tmp_path):
    import random

    rng = random.Random(2020)
    gold = dict(list(formats.read_subtask2_gold(RELEASED / "subtask2_train.csv").items())[:600])
    checked = refused = 0
    accepted = {}
    for key, (sentence, spans) in gold.items():
        for _ in range(5):
            predicted = _moved(rng, spans, len(sentence))
            try:
                expected = released_sentence_scores(sentence, spans, predicted)
            except ZeroDivisionError:
                with pytest.raises(ScoreError, match="division by zero"):
                    sentence_scores(sentence, spans, predicted)
                refused += 1
                continue
            assert sentence_scores(sentence, spans, predicted) == pytest.approx(expected), (key, predicted)
            accepted[key] = predicted
            checked += 1
    assert checked > 2500 and refused > 0
    overrun = sum(1 for key, p in accepted.items() if max(p.as_tuple()) >= len(gold[key][0]))
    assert overrun > 100  # the case the scorer once scored 0
    # The whole file through the command equals the oracle's average.
    lines = [",".join(formats.SUBTASK2_PRED)] + [f"{key},{','.join(map(str, p.as_tuple()))}"
                                                 for key, p in accepted.items()]
    (tmp_path / "pred.csv").write_text("\n".join(lines) + "\n")
    shown = {key: gold[key] for key in accepted}
    (tmp_path / "gold.csv").write_text(formats.subtask2_csv((key, s, sp) for key, (s, sp) in shown.items()))
    out = StringIO()
    call_command("score", "--task", "2", str(tmp_path / "gold.csv"), str(tmp_path / "pred.csv"), "--json",
                 stdout=out, stderr=StringIO())
    result = json.loads(out.getvalue())
    expected = [released_sentence_scores(shown[key][0], shown[key][1], p) for key, p in accepted.items()]
    for index, name in enumerate(["exact_match", "f1", "precision", "recall"]):
        assert result[name] == pytest.approx(sum(row[index] for row in expected) / len(expected)), name


@pytest.mark.parametrize(("content", "message"), [
    ("sentenceID,gold_label,sentence\n1,1,a,extra\n", r"gold.csv:2: 4 fields where the header has 3"),
    ("sentenceID,gold_label,sentence\n1,1\n", r"gold.csv:2: 2 fields where the header has 3"),
    ("sentenceID,gold_label,sentence\n1,1,a\x00b\n", r"gold.csv:2: sentence: contains a NUL character"),
    ("sentenceID,gold_label,sentence\n" + "9" * 150 + ",1,a\n", r"gold.csv:2: sentenceID: is 150 characters long"),
    ("sentenceID,gold_label,sentence\n1,1,   \n", r"gold.csv:2: sentence: is empty"),
    ('sentenceID,gold_label,sentence\n1,1,"never closed\n', r"gold.csv:\d+: not CSV .*a quote may be left open"),
])
def test_bad_released_files_are_refused_by_line(tmp_path, content, message):
    path = tmp_path / "gold.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        formats.read_subtask1_rows(path)


def test_a_bom_a_long_field_and_a_folder(tmp_path):
    path = tmp_path / "gold.csv"
    long = "If it had rained, we would have stayed. " * 5000  # 200 KB
    path.write_bytes(b"\xef\xbb\xbf" + f'sentenceID,gold_label,sentence\r\n1,1,"{long}"\r\n'.encode())
    assert formats.read_subtask1_rows(path) == [("1", 1, long)]
    with pytest.raises(InputError, match="is a folder; give the CSV file itself"):
        formats.read_subtask1_rows(tmp_path)
    with pytest.raises(CommandError, match="is a folder"):
        call_command("score", "--task", "1", str(tmp_path), str(path))
