import csv
import json
import tempfile
from io import StringIO
from pathlib import Path

import pyarrow.parquet as pq
from django.conf import settings
from django.core.management import CommandError, call_command

from aggregation.services import batch_aggregate
from hits.models import Worker
from hits.services import assignment_claim, assignment_submit, batch_create, batch_publish
from releases import services
from releases.models import DatasetSentence
from tests.base import BaseTestCase
from tests.hits.helpers import spec

RELEASED = settings.SHARED_DIR / "semeval2020t5"


class ReleasedTests(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.version = services.dataset_import_released(name="released", subtask1_path=RELEASED / "subtask1_train.csv",
                                                       subtask2_path=RELEASED / "subtask2_train.csv", seed=1)

    def test_it_exports_the_released_rows_exactly_through_our_models(self):
        folder = Path(tempfile.mkdtemp())
        services.dataset_export(version=self.version, folder=folder)
        with open(RELEASED / "subtask2_train.csv", newline="", encoding="utf-8") as handle:
            released = {row[0]: row for row in csv.reader(handle)}
        exported = {}
        for side in ("train", "test"):
            raw = (folder / f"subtask2_{side}.csv").read_bytes()
            self.assertTrue(raw.startswith(b"sentenceID,sentence,antecedent,consequent,antecedent_startid,"
                                           b"antecedent_endid,consequent_startid,consequent_endid\r\n"))
            exported.update({row[0]: row for row in csv.reader(raw.decode("utf-8").splitlines(keepends=True))})
        self.assertEqual(exported, released)
        first = (RELEASED / "subtask2_train.csv").read_bytes().split(b"\r\n")[1]
        self.assertIn(first, (folder / "subtask2_train.csv").read_bytes() + (folder / "subtask2_test.csv").read_bytes())

    def test_it_keeps_subtask2_consistent_with_subtask1(self):
        side_of = dict(self.version.sentences.values_list("text", "split"))
        for text, side in self.version.spans.values_list("text", "split"):
            if text in side_of:
                self.assertEqual(side, side_of[text])

    def test_it_prints_tables_1_and_2(self):
        out = StringIO()
        call_command("dataset", "stats", "released", stdout=out)
        self.assertRegex(out.getvalue(), r"total\s+1,454\s+11,546\s+13,000")
        self.assertRegex(out.getvalue(), r"total\s+520\s+3,031\s+3,551")

    def test_it_refuses_a_second_version_of_the_same_name(self):
        with self.assertRaisesRegex(CommandError, "versions are frozen"):
            call_command("dataset", "import", "--name", "released", stdout=StringIO())


class AggregatedTests(BaseTestCase):
    def test_it_freezes_the_labels_of_an_aggregation_and_exports_everything(self):
        items = [spec(f"s{n}", f"=HYPERLINK(\"x\") sentence {n}", group="finance")
                 for n in range(20)]
        gold = [spec("g0", "Gold.", group="gold", gold_answer=1)]
        batch = batch_publish(batch=batch_create(name="b", task_type="subtask1", items=items, gold_items=gold,
                                                 gold_rate=0.05, assignments_per_hit=5))
        for n in range(5):
            worker = Worker.objects.create(provider="inhouse", external_id=f"w{n}")
            assignment = assignment_claim(batch=batch, worker=worker)
            answers = {f"item-{item.pk}": str(int(item.key in ("s1", "s2") or (n == 0 and item.key == "s3")))
                       for item in assignment.hit.ordered_items()}
            assignment_submit(assignment=assignment, worker=worker, raw_answers=answers)
        run = batch_aggregate(batch=batch, samples=50)
        version = services.dataset_from_aggregation(run=run, name="crowd", seed=2)
        labels = dict(version.sentences.values_list("sentence_id", "label"))
        self.assertEqual(labels["s1"], 1)
        self.assertEqual(labels["s3"], 0)  # 4 of 5 said no: a kept 80% negative
        self.assertNotIn("g0", labels)  # check items are not data
        self.assertEqual(len(labels), 20)
        folder = Path(tempfile.mkdtemp())
        written = services.dataset_export(version=version, folder=folder)
        self.assertIn("word_counts.png", written)
        self.assertEqual((folder / "word_counts.png").read_bytes()[:4], b"\x89PNG")
        self.assertIn('"=HYPERLINK(""x"") sentence', (folder / "subtask1_train.csv").read_text())
        self.assertIn("'=HYPERLINK", (folder / "subtask1_spreadsheet.csv").read_text())
        record = json.loads((folder / "subtask1.jsonl").read_text().splitlines()[0])
        self.assertEqual(set(record) >= {"votes_yes", "votes_no", "agreement", "domain"}, True)
        self.assertEqual(pq.read_table(folder / "subtask1.parquet").num_rows, 20)
        card = (folder / "README.md").read_text()
        self.assertIn("config_name: subtask1", card)
        self.assertIn(f"aggregation run {run.pk}", card)
        self.assertEqual(DatasetSentence.objects.filter(version=version, split="test").count(), 7)
