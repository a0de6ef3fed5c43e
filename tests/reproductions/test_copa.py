"""Balanced COPA: the shipped file read into pairs, the pair-keeping export, the cue report, the answers of
designs/bcopa.yaml's choice, and a validation batch worked over HTTP by simulated workers with its report."""

import json
from io import StringIO

import numpy as np
import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

from aggregation.services import spotcheck_draw
from core import copa, cues
from core.items import ChoiceItem
from demo.crowd import ChoiceWorker, run_choices
from designs.task_type import DESIGN
from hits.models import Assignment, Batch, Item
from hits.services import batch_publish
from hits.task_types import AnswerError
from reproductions.copa import choice_batch_create, choice_report, copa_sample
from tests.base import BaseTestCase

SHIPPED = settings.SHARED_DIR / "corpora" / "balanced-copa" / "balacopa-dev-all.xml"
ITEM = """<item id="{id}" asks-for="cause" most-plausible-alternative="{answer}">
<p>{premise}</p><a1>First.</a1><a2>Second.</a2></item>"""


def xml(tmp_path, *items, name="copa.xml"):
    path = tmp_path / name
    path.write_text('<?xml version="1.0"?>\n<copa-corpus version="1.0">\n' + "\n".join(items) + "\n</copa-corpus>\n",
                    encoding="utf-8")
    return path


def test_the_shipped_file_holds_500_pairs():
    items = copa.read_copa(SHIPPED)
    grouped = copa.pairs(items)
    assert len(items) == 1000 and len(grouped) == 500
    assert all([member.mirrored for member in members] == [False, True] for members in grouped.values())
    original, mirror = grouped["1"]
    assert (original.item_id, mirror.item_id) == ("1", "1001")
    # A mirror swaps which alternative is right: the same two sentences, the other one intended.
    right = {copa.right_and_wrong([member])[0] for member in (original, mirror)}
    assert {pair[0] for pair in right} == {pair[1] for pair in right}


def test_the_export_keeps_every_pair_on_one_side(tmp_path):
    out = StringIO()
    call_command("copa", "export", str(SHIPPED), "--out", str(tmp_path), "--seed", "4", stdout=out)
    sides = {side: [json.loads(line) for line in (tmp_path / f"{side}.jsonl").read_text().splitlines()]
             for side in ("train", "dev")}
    assert (len(sides["train"]), len(sides["dev"])) == (900, 100)
    pairs = {side: {row["pair_id"] for row in rows} for side, rows in sides.items()}
    assert pairs["train"].isdisjoint(pairs["dev"]) and len(pairs["dev"]) == 50
    row = sides["dev"][0]
    assert list(row) == ["id", "premise", "a1", "a2", "asks_for", "label", "pair_id", "mirrored"]
    assert isinstance(row["label"], int) and row["label"] in (1, 2) and isinstance(row["mirrored"], bool)
    assert (tmp_path / "dev.csv").read_text().splitlines()[0] == "id,premise,a1,a2,asks_for,label,pair_id,mirrored"
    assert "dev: 100 items in 50 pairs" in out.getvalue()


def test_the_cue_report_finds_the_papers_a_and_the_balance_removes_it():
    items = copa.read_copa(SHIPPED)
    original = cues.choice_cues(copa.right_and_wrong([item for item in items if not item.mirrored]))
    balanced = cues.choice_cues(copa.right_and_wrong(items))
    a = original.find("a")
    # The paper: "a" in 21.2% of instances, 57.5% of them in the right alternative.
    assert (a.applicable, a.productive, round(a.coverage, 3), round(a.productivity, 3)) == (106, 61, 0.212, 0.575)
    assert balanced.find("a").productivity == 0.5
    assert original.imbalance > 0.2 and balanced.imbalance == 0.0
    found = json.loads(_call("copa", "cues", str(SHIPPED), "--original-only", "--json", "--top", "3"))
    assert found["instances"] == 500 and len(found["strongest"]) == 3


def test_cues_by_hand():
    report = cues.choice_cues([("a dog barked", "the cat"), ("a bird", "a cat"), ("the dog", "a cow")])
    dog = report.find("dog")
    assert (dog.applicable, dog.productive, dog.coverage, dog.productivity) == (2, 2, 2 / 3, 1.0)
    assert report.find("a").applicable == 2 and report.find("a").productive == 1  # not in instance 2: in both
    labelled = cues.label_cues([("if only", 1), ("if not", 0), ("only this", 1), ("that", 0)])
    assert labelled.baseline == 0.5 and labelled.find("only").productivity == 1.0


@pytest.mark.parametrize(("content", "message"), [
    (ITEM.format(id=1, answer=1, premise="P.") + "<item", r"copa.xml:\d+: not valid XML"),
    ('<item id="1" asks-for="cause" most-plausible-alternative="1"><p>P.</p><a1>A.</a1></item>',
     r"copa.xml:3: a2: item 1: <a2> is missing or empty"),
    (ITEM.format(id=1, answer=1, premise="P.") + "\n" + ITEM.format(id=1, answer=2, premise="Q."),
     r"copa.xml:5: id: id 1 repeats line 3"),
    (ITEM.format(id=1001, answer=1, premise="P."), r"copa.xml:3: item 1001 mirrors item 1 .* does not have"),
    (ITEM.format(id=1, answer=3, premise="P."), r"copa.xml:3: answer: item 1: is 3; use 1 or 2"),
    (ITEM.format(id="x", answer=1, premise="P."), r"copa.xml:3: id: 'x' is not a whole number"),
    ("", r"copa.xml: no <item> elements"),
])
def test_bad_copa_files_are_refused_by_line(tmp_path, content, message):
    with pytest.raises(copa.CopaFileError, match=message):
        copa.read_copa(xml(tmp_path, content))


def test_what_a_design_cannot_ask_of_copa_items_is_said_at_the_items_line():
    """The XML's items keep their lines: a design whose scheme wants what COPA items lack names the first one's."""
    from designs.items import ItemsError, read_items
    from designs.loader import load_text

    source = (settings.BASE_DIR / "designs" / "bcopa.yaml").read_text().replace("items_key: alternatives",
                                                                               "items_key: options")
    with pytest.raises(ItemsError, match=r"^balacopa-dev-all.xml:5: scheme 'choice': item '1' has no list of 2 "
                                         r"under 'options'"):
        read_items(SHIPPED.read_bytes(), name="balacopa-dev-all.xml", design=load_text(source, name="bcopa.yaml"))


def test_a_bad_file_is_a_command_error(tmp_path):
    with pytest.raises(CommandError, match=r"copa\.xml:3: answer"):
        _call("copa", "cues", str(xml(tmp_path, ITEM.format(id=1, answer=0, premise="P."))))


def _call(*arguments):
    out = StringIO()
    call_command(*arguments, stdout=out)
    return out.getvalue()


class ChoiceTaskTests(BaseTestCase):
    def batch(self, per_subset=20, **options):
        items = copa_sample(copa.read_copa(SHIPPED), per_subset=per_subset, seed=1)
        options.setdefault("items_per_hit", 10)
        options.setdefault("assignments_per_hit", 3)
        return batch_publish(batch=choice_batch_create(items=items, name="copa", **options))

    def test_answers_are_one_or_two_for_every_question_of_the_hit(self):
        batch = self.batch()
        self.assertEqual(batch.task_type, "design")
        self.assertEqual(batch.requirements, {"min_approval_rate": 99, "min_approved_hits": 10000, "masters": True})
        hit = batch.hits.first()
        items = hit.ordered_items()
        answers = {f"a-{item.pk}-0": "2" for item in items}
        self.assertEqual(list(DESIGN.parse_answers(items, answers).values()), [{"choice": "2"}] * len(items))
        with self.assertRaisesRegex(AnswerError, r"question 1 \(choice\); question 2 \(choice\): not answered"):
            DESIGN.parse_answers(items, {key: "1" for key in list(answers)[2:]})
        with self.assertRaisesRegex(AnswerError, "question 1: .*'3'"):
            DESIGN.parse_answers(items, {**answers, f"a-{items[0].pk}-0": "3"})
        with self.assertRaisesRegex(AnswerError, "not in this HIT"):
            DESIGN.parse_answers(items, {**answers, "a-999999-0": "1"})

    def test_the_page_shows_premise_question_and_alternatives_escaped(self):
        item = ChoiceItem(premise="<script>alert(1)</script> rained.", alternative_1="A.", alternative_2="<b>B</b>.",
                          item_id="9", asks_for="effect", answer=1)
        batch = batch_publish(batch=choice_batch_create(items=[item], name="x", items_per_hit=1))
        html = DESIGN.html_question(batch.hits.get(), batch.hits.get().ordered_items())
        self.assertIn("&lt;script&gt;alert(1)&lt;/script&gt; rained.", html)
        self.assertNotIn("<script>alert(1)", html)
        self.assertIn("&lt;b&gt;B&lt;/b&gt;.", html)
        self.assertIn("What happened as a result?", html)

    def test_the_command_makes_the_batch_from_the_design_with_its_flags_over_the_designs_values(self):
        out = _call("copa", "batch", str(SHIPPED), "--name", "cmd", "--per-subset", "5", "--items-per-hit", "5",
                    "--reward", "0.20")
        batch = Batch.objects.get(name="cmd")
        self.assertEqual((batch.task_type, batch.items_per_hit, batch.assignments_per_hit, str(batch.reward)),
                         ("design", 5, 3, "0.20"))
        self.assertEqual(batch.design_link.version.slug, "bcopa")
        self.assertIn("5 original and 5 mirrored items in 2 HITs", out)
        self.assertIn("min approval rate, min approved hits, masters: MTurk and Prolific only", out)

    def test_a_simulated_crowd_validates_over_http_and_the_report_has_the_papers_numbers(self):
        batch = self.batch(per_subset=20)
        workers = [ChoiceWorker(f"w{n}", 1.0, mirrored_penalty=0) for n in range(3)]
        workers.append(ChoiceWorker("careless", 0.5, careless=True))
        submitted = run_choices(batch, workers, seed=2)
        self.assertEqual(submitted, 4 * 3)  # 4 HITs of 10, 3 workers each
        found = choice_report(batch, samples=200)
        self.assertEqual((found["all"]["items"], found["original"]["items"], found["mirrored"]["items"]), (40, 20, 20))
        self.assertEqual(found["all"]["votes"], 120)
        # The same votes through statsmodels: items × labels counts.
        counts = {}
        for assignment in Assignment.objects.filter(hit__batch=batch):
            for item, answer in assignment.answers.items():
                counts.setdefault(item, [0, 0])[int(answer["choice"]) - 1] += 1
        expected = statsmodels_fleiss(np.array(list(counts.values())), method="fleiss")
        self.assertAlmostEqual(found["all"]["fleiss"]["value"], expected, places=9)
        # The design's fleiss-kappa component says the same in `design report`.
        said = StringIO()
        call_command("design", "report", str(batch.pk), "--json", stdout=said)
        self.assertAlmostEqual(json.loads(said.getvalue())["components"]["choice: Fleiss' kappa"], expected, places=4)
        kappa = found["all"]["fleiss"]
        self.assertLess(kappa["low"], kappa["value"])
        self.assertLess(kappa["value"], kappa["high"])
        # Careful workers always right: a majority of 3 can only be wrong with the careless one and a tie is
        # impossible with 3 votes on 2 labels, so every majority is the intended answer.
        self.assertEqual(found["all"]["accuracy"], 1.0)
        self.assertEqual(found["all"]["ties"], 0)
        intended = dict(Item.objects.filter(batch=batch).values_list("pk", "gold_answer"))
        self.assertEqual(len(intended), 40)
        by_worker = {row["worker"]: row for row in found["by_worker"]}
        self.assertEqual({name: row["accuracy"] for name, row in by_worker.items() if name != "sim-careless"},
                         {"sim-w0": 1.0, "sim-w1": 1.0, "sim-w2": 1.0})
        # Without the careless worker every item has 2 or 3 votes that all agree: kappa is 1.
        self.assertEqual(found["trusted"]["left_out"], ["sim-careless"])
        self.assertEqual(found["trusted"]["fleiss"]["value"], 1.0)
        self.assertEqual(found["trusted"]["votes"], 120 - by_worker["sim-careless"]["votes"])

    def test_spot_checks_compare_the_design_choice_with_the_intended_answers(self):
        batch = self.batch(per_subset=5, items_per_hit=5, assignments_per_hit=2)
        run_choices(batch, [ChoiceWorker("right", 1.0, mirrored_penalty=0), ChoiceWorker("wrong", 0.0)], seed=2)
        drawn = spotcheck_draw(batch=batch, rate=1.0)
        accuracy = {check.assignment.worker.user.username: check.gold_accuracy for check in drawn}
        self.assertEqual(accuracy, {"sim-right": 1.0, "sim-wrong": 0.0})

    def test_a_batch_of_the_old_choice_task_type_becomes_a_bcopa_design_batch_with_its_answers(self):
        import importlib

        from django.apps import apps

        from designs.models import DesignBatch

        batch = self.batch(per_subset=5, items_per_hit=5)
        run_choices(batch, [ChoiceWorker(f"w{n}", 0.8) for n in range(3)], seed=4)
        before = choice_report(batch, samples=50)
        # The rows as the retired task type stored them: a choice payload, int answers and known answers.
        DesignBatch.objects.filter(batch=batch).delete()
        Batch.objects.filter(pk=batch.pk).update(task_type="choice")
        sample = {item.item_id: item for item in copa_sample(copa.read_copa(SHIPPED), per_subset=5, seed=1)}
        for item in Item.objects.filter(batch=batch):
            old = sample[item.content.record_id]
            Item.objects.filter(pk=item.pk).update(payload=old.to_json(), gold_answer=int(item.gold_answer))
        for assignment in Assignment.objects.filter(hit__batch=batch):
            Assignment.objects.filter(pk=assignment.pk).update(answers={
                item: int(answer["choice"]) for item, answer in assignment.answers.items()})
        migration = importlib.import_module("designs.migrations.0002_choice_batches_as_bcopa")
        migration.forwards(apps, None)
        batch.refresh_from_db()
        self.assertEqual((batch.task_type, batch.design_link.version.slug), ("design", "bcopa"))
        first = Item.objects.filter(batch=batch).first()
        self.assertEqual(first.content.fields["alternatives"], [sample[first.content.record_id].alternative_1,
                                                                sample[first.content.record_id].alternative_2])
        self.assertEqual(choice_report(batch, samples=50), before)
        hit = first.hits.get()
        page = DESIGN.html_question(hit, hit.ordered_items())
        self.assertIn(sample[first.content.record_id].premise.replace("'", "&#x27;"), page)


@pytest.mark.django_db
def test_the_copa_xml_is_the_items_of_the_design_in_the_browser(client, tmp_path):
    """The released COPA file, uploaded as it is with designs/bcopa.yaml on *Start from a design file*, is the
    project's items: every item, its premise the text, its question and alternatives shown, its intended answer
    known and its subset the group. Other XML is refused naming its root, and a bad item by its line; nothing is
    made then."""
    from django.contrib.auth.models import User
    from django.core.files.uploadedfile import SimpleUploadedFile

    from accounts import roles
    from projects.models import Project

    boss = User.objects.create_user("boss", password="pass-word-1")
    boss.groups.add(roles.group(roles.ORGANIZER))
    client.force_login(boss)
    source = (settings.BASE_DIR / "designs" / "bcopa.yaml").read_text()

    def make(name, data):
        return client.post("/projects/designs/new/", {"source": source, "file_name": "bcopa.yaml", "name": name,
                                                      "provider": "inhouse",
                                                      "items": SimpleUploadedFile(name, data)})

    other = make("corpus.xml", b"<?xml version='1.0'?>\n<corpus><doc>Hi.</doc></corpus>")
    assert other.status_code == 400
    assert ("corpus.xml: an XML file of items is a corpus whose root is &lt;copa-corpus&gt; or "
            "&lt;entailment-corpus&gt;; this one&#x27;s is &lt;corpus&gt;") in other.content.decode()
    bad = make("bad.xml", xml(tmp_path, ITEM.format(id=1, answer=1, premise="A."),
                              '<item id="2" asks-for="effect">\n<p>B.</p><a1>x</a1><a2>y</a2></item>').read_bytes())
    assert bad.status_code == 400
    assert "bad.xml:5: most-plausible-alternative: is missing" in bad.content.decode()
    assert not Project.objects.exists()

    preview = client.post("/projects/designs/preview/", {"source": source, "file_name": "bcopa.yaml",
                                                         "items": SimpleUploadedFile("balacopa-dev-all.xml",
                                                                                     SHIPPED.read_bytes())})
    assert "of the 1,000 in balacopa-dev-all.xml" in " ".join(preview.content.decode().split())
    made = make("balacopa-dev-all.xml", SHIPPED.read_bytes())
    assert made.status_code == 302, made.content.decode()[:2000]
    batch = Project.objects.get(name="balacopa-dev-all.xml").batches.get()
    items = {item.payload["record_id"]: item for item in Item.objects.filter(batch=batch)}
    assert len(items) == 1000
    original, mirror = items["1"], items["1001"]
    assert (original.payload["text"], original.gold_answer, original.group) == (
        "My body cast a shadow over the grass.", "1", "original")
    assert original.payload["fields"] == {"question": "What was the cause of this?", "subset": "original",
                                          "alternatives": ["The sun was rising.", "The grass was cut."]}
    assert (mirror.payload["text"], mirror.gold_answer, mirror.group) == (
        "The garden looked well-groomed.", "1", "mirrored")
