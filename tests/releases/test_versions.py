import csv
import json
import tempfile
from io import StringIO
from pathlib import Path

import pyarrow.parquet as pq
import yaml
from django.conf import settings
from django.core.management import CommandError, call_command

from aggregation.services import batch_aggregate, run_staleness
from designs.semeval import labeling_batch_create
from hits.models import Worker
from hits.services import (
    assignment_approve,
    assignment_claim,
    assignment_reject,
    assignment_submit,
    batch_publish,
    worker_sanction,
)
from qualification.models import Grant, QualificationTest
from releases import services
from releases.models import DatasetSentence, DatasetVersion
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


def _cut(path, folder, keep, final_line_end):
    """The released file's header and rows [keep], written with or without a line end after the last row."""
    lines = path.read_bytes().decode("utf-8")
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    buffer = StringIO(newline="")
    csv.writer(buffer).writerows([rows[0], *rows[1:][keep]])
    text = buffer.getvalue()
    assert text.endswith("\r\n") and lines.startswith(text.split("\r\n", 1)[0])
    out = folder / f"{path.stem}_{keep.start or 0}.csv"
    out.write_bytes((text if final_line_end else text[:-2]).encode("utf-8"))
    return out


class KeptSidesTests(BaseTestCase):
    """The released training files cut into a "train" and a "test" file, each with the other last-line
    convention from its source, imported with the sides kept."""

    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.folder = Path(tempfile.mkdtemp())
        cls.files = {
            "subtask1_train": _cut(RELEASED / "subtask1_train.csv", cls.folder, slice(0, 8450), False),
            "subtask1_test": _cut(RELEASED / "subtask1_train.csv", cls.folder, slice(8450, None), True),
            "subtask2_train": _cut(RELEASED / "subtask2_train.csv", cls.folder, slice(0, 2300), True),
            "subtask2_test": _cut(RELEASED / "subtask2_train.csv", cls.folder, slice(2300, None), False),
        }
        call_command("dataset", "import", "--name", "kept", "--subtask1", str(cls.files["subtask1_train"]),
                     "--subtask1-test", str(cls.files["subtask1_test"]), "--subtask2", str(cls.files["subtask2_train"]),
                     "--subtask2-test", str(cls.files["subtask2_test"]), stdout=StringIO())

    def test_stats_json_gives_the_sides_as_imported(self):
        out = StringIO()
        call_command("dataset", "stats", "kept", "--json", stdout=out)
        stats = json.loads(out.getvalue())
        self.assertEqual(stats["table1"]["train"]["total"], 8450)
        self.assertEqual(stats["table1"]["test"]["total"], 13000 - 8450)
        self.assertEqual(stats["table1"]["total"], {"counterfactual": 1454, "non_counterfactual": 11546,
                                                    "total": 13000})
        self.assertEqual((stats["table2"]["train"]["total"], stats["table2"]["test"]["total"]), (2300, 1251))
        self.assertEqual(stats["table2"]["total"]["antecedent_only"], 520)
        words = stats["words_per_sentence"]["subtask1"]
        self.assertEqual(words["train"]["sentences"] + words["test"]["sentences"], 13000)
        self.assertGreater(words["total"]["max"], words["total"]["median"])

    def test_export_gives_every_file_back_byte_for_byte(self):
        folder = Path(tempfile.mkdtemp()) / "out"
        services.dataset_export(version=DatasetVersion.objects.get(name="kept"), folder=folder)
        for name, source in self.files.items():
            self.assertEqual((folder / f"{name}.csv").read_bytes(), source.read_bytes(), name)
        card = (folder / "README.md").read_text(encoding="utf-8")
        self.assertIn("the released train and test files kept as they are (8450 train / 4550 test", card)
        self.assertIn("Sentences come from news text whose domain was not recorded", card)
        # The card's front matter follows the Hugging Face conventions, with the released data's licence.
        meta = yaml.safe_load(card.split("---\n")[1])
        for key in ("pretty_name", "license", "language", "task_categories", "task_ids", "size_categories",
                    "annotations_creators", "source_datasets", "configs", "dataset_info"):
            self.assertIn(key, meta)
        self.assertEqual((meta["license"], meta["size_categories"]), ("cc-by-4.0", ["10K<n<100K"]))
        configs = {config["config_name"]: config for config in meta["configs"]}
        self.assertEqual(set(configs), {"subtask1", "subtask2"})
        self.assertTrue(configs["subtask1"]["default"])
        for config in meta["configs"]:
            for entry in config["data_files"]:
                self.assertTrue((folder / entry["path"]).exists(), entry)
        features = {info["config_name"]: {f["name"]: f["dtype"] for f in info["features"]}
                    for info in meta["dataset_info"]}
        self.assertEqual(features["subtask1"], {"sentenceID": "string", "gold_label": "int64", "sentence": "string"})
        self.assertIn("@inproceedings{yang-etal-2020-semeval", card)
        # Parquet columns have one type whatever the data: an imported version has no votes.
        schema = pq.read_schema(folder / "subtask1.parquet")
        self.assertEqual((str(schema.field("votes_yes").type), str(schema.field("sentenceID").type)),
                         ("int64", "string"))

    def test_a_sentence_in_both_files_is_refused_and_nothing_is_stored(self):
        with self.assertRaisesRegex(CommandError, r"sentenceID \S+ is also in .*subtask1_train_0.csv"):
            call_command("dataset", "import", "--name", "twice", "--subtask1", str(self.files["subtask1_train"]),
                         "--subtask1-test", str(self.files["subtask1_train"]), stdout=StringIO())
        self.assertFalse(DatasetVersion.objects.filter(name="twice").exists())


class AggregatedTests(BaseTestCase):
    def test_it_freezes_the_labels_of_an_aggregation_and_exports_everything(self):
        items = [spec(f"s{n}", f"=HYPERLINK(\"x\") sentence {n}", group="finance")
                 for n in range(20)]
        gold = [spec("g0", "Gold.", group="gold", gold_answer=1)]
        batch = batch_publish(batch=labeling_batch_create(name="b", items=items, gold_items=gold,
                                                 gold_rate=0.05, assignments_per_hit=5))
        for n in range(5):
            worker = Worker.objects.create(provider="inhouse", external_id=f"w{n}")
            assignment = assignment_claim(batch=batch, worker=worker)
            answers = {f"a-{item.pk}-0": str(int(item.key in ("s1", "s2") or (n == 0 and item.key == "s3")))
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
        domains = sorted(set(DatasetSentence.objects.filter(version=version).values_list("domain", flat=True)))
        self.assertIn(f"Sentences come from news in {len(domains)} domain", card)
        self.assertIn(f"({', '.join(domains)}) and were picked by a pattern filter", card)
        self.assertIn(f"aggregation run {run.pk}", card)
        self.assertEqual(DatasetSentence.objects.filter(version=version, split="test").count(), 7)

    def test_a_hit_rejected_after_aggregating_makes_the_run_stale_and_build_refuses_it(self):
        items = [spec(f"s{n}", f"Sentence {n}.", group="finance") for n in range(10)]
        batch = batch_publish(batch=labeling_batch_create(name="b", items=items, assignments_per_hit=5))
        assignments = []
        for n in range(5):
            worker = Worker.objects.create(provider="inhouse", external_id=f"w{n}")
            assignment = assignment_claim(batch=batch, worker=worker)
            assignment_submit(assignment=assignment, worker=worker, raw_answers={
                f"a-{item.pk}-0": str(int(item.key == "s1")) for item in assignment.hit.ordered_items()})
            assignment.refresh_from_db()
            assignments.append(assignment)
        run = batch_aggregate(batch=batch, samples=50)
        assignment_approve(assignment=assignments[0])  # an approval changes no vote: the run stays current
        self.assertEqual(run_staleness(run), "")
        assignment_reject(assignment=assignments[1], feedback="Most answers were wrong on sentences we know.")
        self.assertIn(f"aggregation {run.pk} is stale", run_staleness(run))
        with self.assertRaisesRegex(CommandError, f"aggregation {run.pk} is stale.*--allow-stale"):
            call_command("dataset", "build", str(run.pk), "--name", "stale", stdout=StringIO())
        self.assertFalse(DatasetVersion.objects.filter(name="stale").exists())
        call_command("dataset", "build", str(run.pk), "--name", "anyway", "--allow-stale", stdout=StringIO())
        fresh = batch_aggregate(batch=batch, samples=50)
        self.assertEqual((run.votes, fresh.votes), (50, 40))
        self.assertEqual(run_staleness(fresh), "")
        # Not refused as stale: with four votes an item is short of the five the rules need, and it says so.
        with self.assertRaisesRegex(services.DatasetError, "labeled no sentence"):
            services.dataset_from_aggregation(run=fresh, name="fresh")

    def test_blocking_or_revoking_a_worker_whose_votes_were_counted_makes_the_run_stale(self):
        items = [spec(f"s{n}", f"Sentence {n}.", group="finance") for n in range(10)]
        batch = batch_publish(batch=labeling_batch_create(name="b", items=items, assignments_per_hit=5))
        test = QualificationTest.objects.create(name="screen", title="Screen", instructions="Read.")
        workers = []
        for n in range(5):
            worker = Worker.objects.create(provider="inhouse", external_id=f"w{n}")
            Grant.objects.create(test=test, worker=worker, score=90)
            assignment = assignment_claim(batch=batch, worker=worker)
            assignment_submit(assignment=assignment, worker=worker, raw_answers={
                f"a-{item.pk}-0": "1" for item in assignment.hit.ordered_items()})
            workers.append(worker)
        outsider = Worker.objects.create(provider="inhouse", external_id="never-voted")
        run = batch_aggregate(batch=batch, samples=0)
        worker_sanction(worker=outsider, reason="Spam elsewhere.")  # no vote of theirs is counted here
        self.assertEqual(run_staleness(run), "")
        worker_sanction(worker=workers[0], reason="Failed the spot checks.")
        self.assertIn("a worker blocked", run_staleness(run))
        again = batch_aggregate(batch=batch, samples=0)
        self.assertEqual(run_staleness(again), "")
        worker_sanction(worker=workers[1], reason="Failed the spot checks.", block=False, revoke=True)
        self.assertIn(f"aggregation {again.pk} is stale", run_staleness(again))
