"""`manage.py design new`: a project and a draft batch from a design file and its items in any of the four
formats, and items that do not fit refused by file and line with nothing made."""

import json
import re
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from designs.items import ItemsError, item_key, read_items
from designs.loader import load_file
from designs.models import DesignBatch
from hits.extensions import refusal
from hits.models import Batch, Item, Worker
from projects.models import Project
from qualification.models import QualificationTest

ROOT = Path(__file__).resolve().parents[2]
SUBTASK1 = ROOT / "designs" / "semeval-subtask1.yaml"
BCOPA = ROOT / "designs" / "bcopa.yaml"

pytestmark = pytest.mark.django_db


def test_it_makes_a_project_and_batch_from_the_released_subtask1_file(tmp_path, capsys):
    released = ROOT.parent / "shared" / "semeval2020t5" / "subtask1_train.csv"
    if not released.exists():
        pytest.skip("../shared/ is not beside the project")
    sample = tmp_path / "sample.csv"
    sample.write_text("".join(released.read_text(encoding="utf-8").splitlines(keepends=True)[:101]))
    # The design lets only those who passed its screening test work: without the test nothing is made.
    with pytest.raises(CommandError, match=r"qualification\.test: the design asks for the screening test "
                                           r"'semeval-screening', which this site does not have; draw it first"):
        call_command("design", "new", str(SUBTASK1), "--items", str(sample), "--provider", "inhouse")
    assert not Project.objects.exists() and not Batch.objects.exists()
    QualificationTest.objects.create(name="semeval-screening", title="Screening", instructions="Label them.",
                                     mturk_qualification_type_id="QT123")
    call_command("design", "new", str(SUBTASK1), "--items", str(sample), "--provider", "inhouse")
    out = capsys.readouterr().out
    project = Project.objects.get()
    batch = project.batches.get()
    assert project.design == "design-file" and batch.task_type == "design"
    assert (batch.items_per_hit, batch.assignments_per_hit, str(batch.reward)) == (25, 5, "0.50")
    assert DesignBatch.objects.get(batch=batch).version.slug == "semeval-subtask1"
    assert batch.requirements == {"min_approval_rate": 82, "locales": ["US", "GB", "CA", "AU", "NZ", "IE"],
                                  "qualification": "semeval-screening", "min_score": 80,
                                  "qualification_type_id": "QT123"}
    worker = Worker.objects.create(provider="inhouse", external_id="u1")
    assert "needs the screening test" in str(refusal(batch, worker))
    # Every sentence has its released label: all are measured against, none is a check (gold_rate needs items
    # without a known answer to mix the checks into).
    assert Item.objects.filter(batch=batch, is_gold=False).exclude(gold_answer=None).count() == 100
    assert batch.hits.count() == 4
    assert "100 items from sample.csv" in out


@pytest.mark.parametrize("format", ["json", "jsonl", "csv", "tsv"])
def test_items_come_in_four_formats(format, tmp_path):
    design = load_file(BCOPA)
    rows = [{"id": "1", "premise": "The man broke his toe.", "question": "What was the cause?",
             "alternatives": ["He dropped a hammer on his foot.", "He got a hole in his sock."], "answer": "1"},
            {"id": "2", "premise": "I tipped the bottle.", "question": "What happened as a result?",
             "alternatives": ["The liquid in the bottle froze.", "The liquid poured out."], "answer": "2"}]
    import csv
    import io

    if format == "json":
        data = json.dumps(rows, indent=2)
    elif format == "jsonl":
        data = "".join(json.dumps(row) + "\n" for row in rows)
    else:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), delimiter="," if format == "csv" else "\t")
        writer.writeheader()
        writer.writerows({**row, "alternatives": json.dumps(row["alternatives"])} for row in rows)
        data = buffer.getvalue()
    records = read_items(data.encode(), name=f"copa.{format}", design=design)
    assert [(r.id, r.text, r.fields["alternatives"][1], r.gold) for r in records] == [
        ("1", "The man broke his toe.", "He got a hole in his sock.", "1"),
        ("2", "I tipped the bottle.", "The liquid poured out.", "2")]


def test_ids_longer_than_an_item_key_and_alike_in_their_start_are_two_items(tmp_path):
    """A record's id is kept whole in its item; the key, cut to its column, ends in a digest of the whole id, so
    two URLs alike in their first 100 characters do not collide (they were refused as a repeated key)."""
    start = "https://news.example.org/" + "world/" * 16
    rows = [{"id": f"{start}story-{number}", "premise": f"Premise {number}.", "question": "What was the cause?",
             "alternatives": ["One.", "Two."], "answer": "1"} for number in (1, 2)]
    (tmp_path / "items.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    call_command("design", "new", str(BCOPA), "--items", str(tmp_path / "items.jsonl"), "--provider", "inhouse")
    items = Item.objects.order_by("pk")
    assert [item.content.record_id for item in items] == [f"{start}story-1", f"{start}story-2"]
    keys = [item.key for item in items]
    assert keys[0] != keys[1] and all(len(key) == 100 and key.startswith(f"record:{start[:50]}") for key in keys)
    assert item_key("7") == "record:7"  # a short id is its key, as before


@pytest.mark.parametrize(("name", "data", "message"), [
    ("a.jsonl", b'{"id": "1", "premise": "x"}\n{"premise": "y"}\n',
     "a.jsonl:2: has no 'id' field; the design reads the id from it (items.id_key); its fields are premise"),
    ("a.jsonl", b'{"id": "1", "premise": "x"}\n{"id": "1", "premise": "y"}\n',
     "a.jsonl:2: the id '1' is used already on line 1; ids must be unique"),
    ("a.jsonl", b'{"id": "1", "premise": "x"}\n{"id": 2, "premise": \n', "a.jsonl:2: not a JSON object"),
    ("a.json", b'[\n {"id": "1", "premise": "x"},\n {"id": "2"}\n]\n', "a.json:3: has no 'premise' field"),
    ("a.csv", b"id,premise\n1,x,extra\n", "a.csv:2: has 3 columns, the header has 2"),
    ("a.csv", b"id,text\n1,x\n", "a.csv:2: has no 'premise' field"),
    ("a.csv", b"id,premise\n1,caf\xe9\n", "a.csv:2: invalid UTF-8 at byte 16"),
    ("a.jsonl", b"", "a.jsonl: is empty"),
    ("a.txt", b"x", "a.txt: cannot tell the format from the name; use .json, .jsonl, .csv, .tsv or .xml"),
    ("a.xml", b"<x/>", "a.xml: an XML file of items is a corpus whose root is <copa-corpus> or <entailment-corpus>; "
                       "this one's is <x>: give the items as JSON Lines, CSV or TSV"),
    ("a.xml", b"<copa-corpus><item", "a.xml:1: not valid XML: unclosed token"),
    ("a.jsonl", b'{"id": "1", "premise": "x"}\n{"id": "2", "premise": ' + b"[" * 50_000 + b"]" * 50_000 + b"}\n",
     "a.jsonl:2: a record nests lists or objects more than 100 levels deep"),
    ("a.csv", b'id,premise\n1,"' + b"[" * 101 + b"]" * 101 + b'"\n', "a.csv:2: a record nests lists or objects"),
])
def test_items_that_do_not_fit_are_refused_by_file_and_line(name, data, message):
    with pytest.raises(ItemsError) as caught:
        read_items(data, name=name, design=load_file(BCOPA))
    assert str(caught.value).startswith(message), str(caught.value)


def test_a_csv_record_past_the_longest_is_refused_by_line_whatever_csv_s_limit_is():
    # csv's field limit is the process's: a corpus read before may have raised it past a record's longest, and an
    # items file read must neither pass a longer record nor lower the limit under the other readers.
    import csv

    from designs.items import MAX_LINE

    before = csv.field_size_limit(10 * MAX_LINE)
    try:
        data = b"id,premise\n1,short\n2," + b"x" * (MAX_LINE + 1) + b"\n"
        with pytest.raises(ItemsError, match=rf"^a\.csv:3: the record is 1,000,00[0-9] characters; a record is at "
                                             rf"most {MAX_LINE:,}"):
            read_items(data, name="a.csv", design=load_file(BCOPA))
        assert csv.field_size_limit() == 10 * MAX_LINE
    finally:
        csv.field_size_limit(before)


def test_design_new_with_bad_items_makes_nothing(tmp_path):
    bad = tmp_path / "items.jsonl"
    bad.write_text('{"id": "1", "premise": "x", "alternatives": ["a", "b"]}\n{"id": "1", "premise": "y"}\n')
    with pytest.raises(CommandError, match=re.escape("items.jsonl:2: the id '1' is used already on line 1")):
        call_command("design", "new", str(BCOPA), "--items", str(bad))
    assert not Project.objects.exists() and not Batch.objects.exists()


def test_design_new_with_a_broken_design_prints_each_problem_without_a_traceback(tmp_path):
    design = tmp_path / "mine.yaml"
    design.write_text("title: mine\nannotation_schemes:\n  - {annotation_type: radio, name: a, lables: [x]}\n")
    items = tmp_path / "items.csv"
    items.write_text("id,text\n1,hello\n")
    run = subprocess.run([sys.executable, "manage.py", "design", "new", str(design), "--items", str(items)],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 1
    assert "mine.yaml:3: annotation_schemes.0.lables: unknown key 'lables'; did you mean 'labels'?" in run.stderr
    assert "nothing was written" in run.stderr and "Traceback" not in run.stderr


def test_spot_checks_compare_the_first_scheme_a_batch_asks_when_it_is_one_label():
    from aggregation.services import spot_checked, spot_scheme
    from designs.items import Record
    from designs.services import design_batch_create, design_version_save
    from tests.designs.test_design_stages import WRITE_CHECK

    version = design_version_save(source=WRITE_CHECK, slug="write-check")
    records = [Record(id="s1", text="Ann went out.", fields={"initial": "It rained.", "ending": "She got wet."})]
    write = design_batch_create(version=version, records=records, name="write", stage="write")
    check = design_batch_create(version=version, records=records, name="check", stage="check")
    # The write stage asks for free text: nothing to compare. The check stage asks first for a yes/no.
    assert (spot_scheme(write), spot_checked(write)) == (None, False)
    assert (spot_scheme(check), spot_checked(check)) == ("consistent", True)


CHEAP_FACTS = ROOT / "designs" / "cheap-facts.yaml"


@pytest.mark.parametrize(("data", "message"), [
    (b'{"id": "p1", "text": "Oracle won.", "entity": "Oracle", "entity_start": 3}\n',
     "p.jsonl:1: entity_start: 'Oracle' is not at offset 3 of the text of 'p1'; give the offset of its first"),
    (b'{"id": "p1", "text": "Oracle won."}\n{"id": "p2", "text": "Iraqi oil rose.", "entity": "Iraq"}\n',
     "p.jsonl:2: entity: 'Iraq' is not in the text of 'p2' as whole words"),
])
def test_a_highlight_that_is_not_in_the_text_is_refused_by_line(data, message):
    with pytest.raises(ItemsError) as caught:
        read_items(data, name="p.jsonl", design=load_file(CHEAP_FACTS))
    assert str(caught.value).startswith(message), str(caught.value)


def test_design_new_with_an_items_own_rules_it_cannot_read_makes_nothing(tmp_path):
    bad = tmp_path / "paragraphs.jsonl"
    bad.write_text('{"id": "p1", "text": "Oracle won the case.", "entity": "Oracle", "instruction": "facts", '
                   '"rules": {"banned": ["not"], "colour": "red"}}\n')
    with pytest.raises(CommandError, match=re.escape("rules: item 'p1': unknown rule(s) colour; an item may set "
                                                     "min_words, max_words, max_overlap, banned")):
        call_command("design", "new", str(CHEAP_FACTS), "--items", str(bad))
    assert not Project.objects.exists() and not Batch.objects.exists()
    good = tmp_path / "good.jsonl"
    good.write_text('{"id": "p1", "text": "Oracle won the case.", "entity": "Oracle", "instruction": "facts", '
                    '"prompt": "Write facts.", "rules": {"banned": ["not"]}}\n')
    call_command("design", "new", str(CHEAP_FACTS), "--items", str(good))
    item = Item.objects.get()
    assert item.content.fields["rules"] == {"banned": ["not"]} and item.group == "facts"


@pytest.mark.django_db
def test_an_items_file_given_to_the_semeval_design_goes_on_to_spans_and_a_dataset(tmp_path):
    """`design new semeval-subtask1.yaml --items FILE` makes records, not the ingest's sentences: aggregated, its
    positives still go to a span batch and into a dataset version, each record read as the sentence it holds."""
    from aggregation.services import batch_aggregate
    from designs.semeval import span_batch_create
    from hits.services import assignment_claim, assignment_submit, batch_publish
    from releases.services import dataset_from_aggregation

    data = tmp_path / "s.csv"
    data.write_text("sentenceID,sentence,domain\n1,If it had rained we would have stayed.,finance\n"
                    "2,Shares rose.,finance\n", encoding="utf-8")
    source = (ROOT / "designs" / "semeval-subtask1.yaml").read_text(encoding="utf-8")
    design = tmp_path / "d.yaml"
    design.write_text(source.split("qualification:")[0] + "aggregation:" + source.split("aggregation:")[1],
                      encoding="utf-8")
    call_command("design", "new", str(design), "--items", str(data), "--provider", "inhouse", stdout=StringIO())
    batch = batch_publish(batch=Batch.objects.get())
    for n in range(5):
        worker = Worker.objects.create(provider="inhouse", external_id=f"w{n}")
        assignment = assignment_claim(batch=batch, worker=worker)
        assignment_submit(assignment=assignment, worker=worker, raw_answers={
            f"a-{item.pk}-0": "1" if item.content.record_id == "1" else "0" for item in assignment.hit.ordered_items()})
    run = batch_aggregate(batch=batch, samples=0)
    spans = span_batch_create(run=run, name="spans")
    assert [item.content.sentence_id for item in spans.items.all()] == ["1"]
    version = dataset_from_aggregation(run=run, name="from-records")
    assert sorted(version.sentences.values_list("sentence_id", "label")) == [("1", 1), ("2", 0)]
