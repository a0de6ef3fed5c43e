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
    with pytest.raises(ScoreError, match="no prediction for 1"):
        score_subtask1({"a": 1}, {})


@pytest.mark.parametrize(("predicted", "expected"), [
    # Partial antecedent, no consequent: tokens of s[3:7] = "bb c" (2) overlap 2 of gold's 3 + 3.
    (Spans(3, 7), (False, 0.5, 1.0, 1 / 3)),
    (Spans(0, 7, 9, 16), (True, 1.0, 1.0, 1.0)),
    (Spans(-1, -1), (False, 0.0, 0.0, 0.0)),  # no antecedent: invalid
    (Spans(5, 5), (False, 0.0, 0.0, 0.0)),  # start == end: invalid by the released rule
    (Spans(0, 7, 9, -1), (False, 0.0, 0.0, 0.0)),  # only one consequent id is -1
    (Spans(12, 16), (False, 0.0, 0.0, 0.0)),  # no overlap
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
    assert formats.subtask1_csv(rows).encode() == released1


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
    with pytest.raises(CommandError, match="not in the gold file: 999"):
        call_command("score", "--task", "2", str(RELEASED / "subtask2_train.csv"), str(folder / "pred2.csv"))


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
