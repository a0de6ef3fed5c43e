"""`manage.py agreement` against independent implementations, and its refusals by line."""

import json
from io import StringIO

import krippendorff
import numpy as np
import pytest
from django.core.management import CommandError, call_command
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

from aggregation import maths

LABELS = ("cause", "effect", "none", "both")


def random_votes(rng, items, raters, labels, workers=20):
    """(item, worker, label) rows, `raters` distinct workers per item, labels skewed per item."""
    rows = []
    for item in range(items):
        favourite = rng.integers(len(labels))
        for worker in rng.choice(workers, raters, replace=False):
            label = favourite if rng.random() < 0.6 else rng.integers(len(labels))
            rows.append((f"i{item}", f"w{worker}", labels[label]))
    return rows


def write(tmp_path, rows, name="votes.csv", header="item,worker,label"):
    path = tmp_path / name
    path.write_text("\n".join([header, *(",".join(map(str, row)) for row in rows)]) + "\n", encoding="utf-8")
    return path


def run(path, *arguments):
    out = StringIO()
    call_command("agreement", str(path), *arguments, stdout=out, stderr=StringIO())
    return out.getvalue()


def matrix(rows):
    """items × raters matrix of label codes, the form statsmodels' aggregate_raters reads."""
    items = sorted({row[0] for row in rows}, key=lambda item: int(item[1:]))
    by_item = {item: [LABELS.index(label) for i, _, label in rows if i == item] for item in items}
    return np.array([by_item[item] for item in items])


@pytest.mark.parametrize("seed", range(6))
def test_fleiss_kappa_equals_statsmodels_on_random_tables(tmp_path, seed):
    rng = np.random.default_rng(seed)
    raters, labels = int(rng.integers(2, 7)), LABELS[:int(rng.integers(2, 5))]
    rows = random_votes(rng, int(rng.integers(10, 200)), raters, labels)
    counts, _ = aggregate_raters(matrix(rows))
    expected = statsmodels_fleiss(counts, method="fleiss")
    found = json.loads(run(write(tmp_path, rows), "--metric", "fleiss", "--json"))
    assert found["value"] == pytest.approx(expected, abs=1e-9)
    assert found["items"] == len(counts) and found["votes"] == len(rows)
    assert maths.fleiss_kappa(counts) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_alpha_equals_the_krippendorff_package(tmp_path, seed):
    rng = np.random.default_rng(100 + seed)
    rows = random_votes(rng, 150, int(rng.integers(2, 6)), LABELS[:3])
    codes = matrix(rows)
    reliability = np.full((20, len(codes)), np.nan)
    for column, item in enumerate(sorted({row[0] for row in rows}, key=lambda item: int(item[1:]))):
        for _, worker, label in (row for row in rows if row[0] == item):
            reliability[int(worker[1:]), column] = LABELS.index(label)
    expected = krippendorff.alpha(reliability_data=reliability, level_of_measurement="nominal")
    found = json.loads(run(write(tmp_path, rows), "--metric", "alpha", "--json"))
    assert found["value"] == pytest.approx(expected, abs=1e-9)


def test_an_interval_brackets_the_value_and_the_text_says_so(tmp_path):
    rows = random_votes(np.random.default_rng(7), 300, 3, LABELS[:2])
    found = json.loads(run(write(tmp_path, rows), "--metric", "fleiss", "--samples", "500", "--json"))
    assert found["low"] < found["value"] < found["high"]
    text = run(write(tmp_path, rows), "--metric", "fleiss", "--samples", "500")
    assert text.startswith(f"Fleiss' kappa: {found['value']:.4f} over 300 items, 900 votes")
    assert f"[{found['low']:.4f}, {found['high']:.4f}] from 500 resamples" in text


def test_majority_reports_ties(tmp_path):
    rows = [("a", "w1", "x"), ("a", "w2", "x"), ("a", "w3", "y"), ("b", "w1", "x"), ("b", "w2", "y")]
    found = json.loads(run(write(tmp_path, rows), "--metric", "majority", "--json"))
    assert found["ties"] == 1
    assert found["majority"] == [{"item": "a", "label": "x", "votes": 3, "top": 2, "tied": []},
                                 {"item": "b", "label": None, "votes": 2, "top": 1, "tied": ["x", "y"]}]
    assert "b,,2,1,x|y" in run(write(tmp_path, rows), "--metric", "majority").splitlines()


def test_a_byte_order_mark_and_extra_columns_are_fine(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes("\ufeffitem,worker,label,note\na,w1,1,x\na,w2,1,y\nb,w1,0,\nb,w2,1,\n".encode())
    assert json.loads(run(path, "--metric", "fleiss", "--json"))["items"] == 2


@pytest.mark.parametrize(("content", "message"), [
    (b"item,worker,label\na,w1,1\na,w2,0\na,w1,0\n", r"votes.csv:4: worker w1 already voted on item a at line 2"),
    (b"item,worker,label\na,w1,1\na,w2,0\nb,w1,1\n", r"votes.csv:4: item b has 1 vote\(s\); agreement needs 2"),
    (b"item,worker\na,w1\n", r"votes.csv:1: missing column\(s\) label"),
    (b"item,worker,label\na,w1,1\na,w2,\xff\n", r"votes.csv:3: invalid UTF-8 at byte"),
    (b"", r"votes.csv:1: missing column\(s\) item, worker, label"),
    (b"item,worker,label\n", r"votes.csv: no votes"),
    (b"item,worker,label\na,w1,1,extra\n", r"votes.csv:2: the row's fields do not match"),
    (b"item,worker,label\na,,1\n", r"votes.csv:2: worker: is empty"),
    (b'item,worker,label\na,w1,"1\n', r"votes.csv:\d+: not CSV"),
])
def test_bad_tables_are_refused_by_line(tmp_path, content, message):
    path = tmp_path / "votes.csv"
    path.write_bytes(content)
    with pytest.raises(CommandError, match=message):
        run(path, "--metric", "fleiss")


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(CommandError, match=r"nowhere\.csv: no such file"):
        run(tmp_path / "nowhere.csv", "--metric", "alpha")
