"""A design file end to end, server side: a project and batch from the design and its items, the generic task
page for an annotator, every scheme type's answer read and checked, the report and the export."""

import csv
import json
from html import escape

from django.core.management import call_command
from django.urls import reverse

from designs.items import read_items
from designs.models import DesignBatch, DesignVersion
from designs.services import design_batch_create, design_version_save
from hits.models import Assignment, Batch
from hits.services import batch_publish
from tests.base import BaseTestCase
from tests.designs.fixtures import EVERY_TYPE, full_answer, items_jsonl


class DesignTaskTestCase(BaseTestCase):
    def setUp(self):
        self.version = design_version_save(source=EVERY_TYPE, slug="every")
        records = read_items(items_jsonl(), name="posts.jsonl", design=self.version.design)
        self.batch = batch_publish(batch=design_batch_create(version=self.version, records=records, name="every"))

    def claim(self, user):
        self.login(user)
        response = self.client.post(reverse("hits:claim", args=[self.batch.pk]))
        self.assertEqual(response.status_code, 302)
        return Assignment.objects.get(worker__user=user, hit__batch=self.batch)

    def answers(self, assignment):
        return {key: value for item in assignment.hit.ordered_items()
                for key, value in full_answer(item.pk, item.content.text).items()}

    def submit(self, assignment, fields):
        return self.client.post(reverse("hits:submit", args=[assignment.pk]), fields)

    def test_it_renders_every_widget_with_the_item_text_escaped(self):
        assignment = self.claim(self.annotator)
        page = self.client.get(reverse("hits:assignment", args=[assignment.pk])).content.decode()
        self.assertIn("<h1>Every scheme type</h1>", page)
        for scheme in ("radio", "span", "multiselect", "select", "likert", "slider", "number", "text", "pairwise",
                       "bws", "multirate", "pure_display"):
            self.assertIn(f'data-type="{scheme}"', page)
        self.assertNotIn("<script>x()</script>", page)
        self.assertIn("&lt;script&gt;x()&lt;/script&gt;", page)
        self.assertNotIn("<b>rose</b>", page)
        self.assertIn("answer A0", page)

    def test_it_stores_each_scheme_answer_in_its_own_shape(self):
        assignment = self.claim(self.annotator)
        response = self.submit(assignment, self.answers(assignment))
        self.assertEqual(response.status_code, 302, response.content.decode()[:2000])
        assignment.refresh_from_db()
        item = assignment.hit.ordered_items()[0]
        answer = assignment.answers[str(item.pk)]
        start = item.content.text.index("rose")
        self.assertEqual(answer, {
            "sentiment": "negative", "targets": [{"start": start, "end": start + 4, "label": "target", "text": "rose"}],
            "topics": ["money", "politics"], "language": "en", "clarity": 4, "confidence": 35, "count": 3,
            "note": "rising prices again", "better": "B", "extremes": {"best": "x", "worst": "z"},
            "aspects": {"tone": "good", "facts": "bad"}})

    def test_a_hidden_scheme_answer_is_dropped_and_a_required_one_is_asked_for(self):
        assignment = self.claim(self.annotator)
        fields = self.answers(assignment)
        first = assignment.hit.ordered_items()[0]
        fields[f"a-{first.pk}-0"] = "neutral"  # hides the spans
        second = assignment.hit.ordered_items()[1]
        del fields[f"a-{second.pk}-0"]
        response = self.submit(assignment, fields)
        self.assertContains(response, "ost 2 (sentiment): not answered yet", status_code=400)
        fields[f"a-{second.pk}-0"] = "positive"
        self.assertEqual(self.submit(assignment, fields).status_code, 302)
        assignment.refresh_from_db()
        self.assertNotIn("targets", assignment.answers[str(first.pk)])

    def test_a_form_a_type_cannot_read_is_refused_and_logged_not_a_crash(self):
        """What a type's read did not foresee in a hand-edited form (any of the errors reading it can raise) is a
        refusal naming the item and scheme, with what to do, and the log says which type could not read it."""
        from unittest import mock

        from designs.schemes import SCHEME_TYPES

        assignment = self.claim(self.annotator)
        likert = SCHEME_TYPES.get("likert")
        with mock.patch.object(type(likert), "read", side_effect=TypeError("unforeseen")), \
                self.assertLogs("designs.answers", "ERROR") as logged:
            response = self.submit(assignment, self.answers(assignment))
        self.assertContains(response, "ost 1: clarity: the answer sent could not be read; reload the page and "
                                      "answer it again", status_code=400)
        self.assertIn("likert could not read the form of scheme 'clarity'", logged.output[0])
        # Lists nested five thousand deep in a span field recursed past Python's limit: refused as unreadable.
        first = assignment.hit.ordered_items()[0]
        response = self.submit(assignment, {**self.answers(assignment), f"a-{first.pk}-1": "[" * 5000 + "]" * 5000})
        self.assertContains(response, "the spans could not be read; reload the page and mark them again",
                            status_code=400)
        assignment.refresh_from_db()
        self.assertIsNone(assignment.submitted)

    def test_answers_that_do_not_fit_are_refused_with_the_item_and_scheme(self):
        assignment = self.claim(self.annotator)
        first = assignment.hit.ordered_items()[0]
        cases = {
            f"a-{first.pk}-0": ("angry", "ost 1: How does it sound?: 'angry' is not one of the labels"),
            f"a-{first.pk}-1": ("[[0, 9999, \"target\"]]", "is outside the text"),
            f"a-{first.pk}-4": ("9", "'9' is not a point of the 1 to 5 scale"),
            f"a-{first.pk}-5": ("37", "37 is not on a step of 5 from 0"),
            f"a-{first.pk}-6": ("11", "11 is outside 0 to 10"),
            f"a-{first.pk}-7": ("one", "has 1 word; write at least 2"),
            f"a-{first.pk}-8": ("C", "'C' is not one of the choices (A, B, Equal)"),
            f"a-{first.pk}-9-worst": ("2", "the best and the worst must be different options"),
        }
        for field, (value, message) in cases.items():
            fields = {**self.answers(assignment), field: value}
            response = self.submit(assignment, fields)
            self.assertContains(response, escape(message), status_code=400, msg_prefix=field)
        fields = {**self.answers(assignment), f"a-{first.pk}-1": json.dumps([[0, 3, "target"], [4, 6, "target"]])}
        self.assertContains(self.submit(assignment, fields), "mark one target only", status_code=400)
        fields = {**self.answers(assignment), "a-999999-0": "positive"}
        self.assertContains(self.submit(assignment, fields), "not in this HIT", status_code=400)
        assignment.refresh_from_db()
        self.assertEqual(assignment.state, Assignment.State.CLAIMED)

    def test_report_and_export_give_long_form_answers_labels_and_agreement(self):
        for user in (self.annotator, self.organizer):
            assignment = self.claim(user)
            fields = self.answers(assignment)
            if user == self.organizer:
                for item in assignment.hit.ordered_items():
                    fields[f"a-{item.pk}-4"] = "5"
            self.assertEqual(self.submit(assignment, fields).status_code, 302)
        report = self.stdout
        call_command("design", "report", str(self.batch.pk), stdout=report)
        lines = {line.split(" ")[0]: line for line in report.getvalue().splitlines()}
        self.assertIn("alpha (nominal) ", lines["sentiment"])
        self.assertIn("majority: 2 of 2 items decided", lines["sentiment"])
        # Free text has no agreement level and is not aggregated: the line says so (it said "alpha (None) -").
        self.assertTrue(lines["note"].endswith(": 4 answers, no agreement measure, kept as given on 2 items"),
                        lines["note"])
        out = self.tmp / "export"
        call_command("design", "export", str(self.batch.pk), "--out", str(self.tmp / "plain"), stdout=self.stdout)
        # The design names no export formats: the default ones, CSV and JSON Lines.
        self.assertEqual(sorted(path.name for path in (self.tmp / "plain").iterdir()),
                         ["agreement.json", "answers.csv", "answers.jsonl", "labels.csv", "labels.jsonl"])
        call_command("design", "export", str(self.batch.pk), "--out", str(out), "--formats", "csv,jsonl,parquet,hf",
                     stdout=self.stdout)
        with open(out / "answers.csv", newline="") as handle:
            rows = list(csv.DictReader(handle))
        self.assertEqual(len(rows), 2 * 2 * 11)
        self.assertEqual(set(rows[0]), {"item", "annotator", "scheme", "value", "time", "assignment", "gold"})
        self.assertEqual({row["annotator"] for row in rows}, {"W1", "W2"})
        labels = [json.loads(line) for line in (out / "labels.jsonl").read_text().splitlines()]
        self.assertEqual([row["id"] for row in labels], ["p0", "p1"])
        self.assertEqual(labels[0]["sentiment"], "negative")
        self.assertEqual(labels[0]["clarity"], 4.5)  # the median of 4 and 5
        self.assertEqual(labels[0]["targets"][0]["text"], "rose")
        agreement = json.loads((out / "agreement.json").read_text())
        self.assertEqual(agreement["clarity"]["level"], "ordinal")
        self.assertEqual(agreement["extremes"]["scores"], {"x": 1.0, "w": 0.0, "y": 0.0, "z": -1.0})
        card = (out / "hf" / "README.md").read_text()
        self.assertIn("| sentiment | radio | How does it sound? | positive, negative, neutral | majority |", card)
        self.assertTrue((out / "answers.parquet").exists())

    @property
    def tmp(self):
        import tempfile
        from pathlib import Path

        if not hasattr(self, "_tmp"):
            self._tmp = Path(tempfile.mkdtemp())
        return self._tmp

    @property
    def stdout(self):
        import io

        return io.StringIO()


class DesignVersionTestCase(BaseTestCase):
    def test_editing_a_design_makes_a_new_version_and_old_batches_keep_theirs(self):
        first = design_version_save(source=EVERY_TYPE, slug="every")
        self.assertEqual(design_version_save(source=EVERY_TYPE, slug="every"), first)
        records = read_items(items_jsonl(), name="posts.jsonl", design=first.design)
        batch = design_batch_create(version=first, records=records, name="every")
        second = design_version_save(source=EVERY_TYPE.replace("How does it sound?", "What is its tone?"),
                                     slug="every")
        self.assertEqual((first.number, second.number), (1, 2))
        self.assertEqual(DesignBatch.objects.get(batch=batch).version, first)
        self.assertEqual(DesignVersion.objects.filter(slug="every").count(), 2)

    def test_a_design_that_does_not_validate_saves_nothing(self):
        from designs.loader import DesignError

        with self.assertRaises(DesignError):
            design_version_save(source="title: x\nannotation_schemes: [{annotation_type: radoi, name: a}]\n")
        self.assertFalse(DesignVersion.objects.exists())
        self.assertFalse(Batch.objects.exists())


class ListingTests(BaseTestCase):
    def test_a_providers_listing_takes_the_designs_title_and_keywords(self):
        from designs.semeval import labeling_batch_create
        from hits.task_types import get_task_type
        from tests.hits.helpers import items

        semeval = labeling_batch_create(name="labels", items=items(3))
        listing = get_task_type("design").listing(semeval)
        self.assertEqual((listing["title"], listing["keywords"]),
                         ("Is this sentence counterfactual?", "counterfactual, labeling, sentences, news"))
        version = design_version_save(source=EVERY_TYPE, slug="every")  # no keywords: its scheme types
        records = read_items(items_jsonl(), name="posts.jsonl", design=version.design)
        every = design_batch_create(version=version, records=records, name="every")
        self.assertTrue(get_task_type("design").listing(every)["keywords"].startswith("radio, "))


class PotatoSchemesRunTest(BaseTestCase):
    """Potato projects run here as in Potato: a best-worst project's sets drawn from single items by its
    bws_config, each an item whose best and worst an annotator picks; a pairwise scheme's tiles and tie on Potato's
    keys, saved with Potato's values."""

    def test_an_annotator_picks_the_best_and_worst_of_each_set_drawn(self):
        from designs.potato import UploadedFolder, import_config

        items = "".join(json.dumps({"id": f"s{n}", "text": f"sentence {n}"}) + "\n" for n in range(8)).encode()
        found = import_config(b"annotation_task_name: Most positive\ndata_files: [items.jsonl]\n"
                              b"bws_config: {tuple_size: 4, num_tuples: 4}\nannotation_schemes:\n"
                              b"  - {annotation_type: bws, name: bw}\n",
                              name="config.yaml", folder=UploadedFolder({"items.jsonl": items}))
        self.assertTrue(found.ok, found.errors)
        version = design_version_save(source=found.source(), slug="bws-sets")
        batch = batch_publish(batch=design_batch_create(version=version, records=found.records, name="bws"))
        self.login(self.annotator)
        self.assertEqual(self.client.post(reverse("hits:claim", args=[batch.pk])).status_code, 302)
        assignment = Assignment.objects.get(worker__user=self.annotator, hit__batch=batch)
        page = self.client.get(reverse("hits:assignment", args=[assignment.pk])).content.decode()
        fields = {}
        for item in assignment.hit.ordered_items():
            options = item.content.fields["text"]
            for option in options:
                self.assertIn(f'aria-label="Best: {option}"', page)
            fields |= {f"a-{item.pk}-0-best": "1", f"a-{item.pk}-0-worst": "4"}
        response = self.client.post(reverse("hits:submit", args=[assignment.pk]), fields)
        self.assertEqual(response.status_code, 302, response.content.decode()[:2000])
        assignment.refresh_from_db()
        item = assignment.hit.ordered_items()[0]
        options = item.content.fields["text"]
        self.assertEqual(assignment.answers[str(item.pk)]["bw"], {"best": options[0], "worst": options[3]})

    def test_a_potato_pairwise_scheme_keys_and_saves_as_potato_does(self):
        from designs.potato import UploadedFolder, import_config
        from designs.schemes import SCHEME_TYPES

        items = "".join(json.dumps({"id": f"p{n}", "text": "", "pair": [f"left {n}", f"right {n}"]}) + "\n"
                        for n in range(2)).encode()
        found = import_config(b"annotation_task_name: Which reply?\ndata_files: [items.jsonl]\nannotation_schemes:\n"
                              b"  - {annotation_type: pairwise, name: better, items_key: pair, allow_tie: true,"
                              b" labels: [Reply one, Reply two]}\n",
                              name="config.yaml", folder=UploadedFolder({"items.jsonl": items}))
        self.assertTrue(found.ok, found.errors)
        scheme = found.design.annotation_schemes[0]
        self.assertEqual(SCHEME_TYPES.of(scheme).keys(scheme), {"1": "A", "2": "B", "0": "tie"})
        version = design_version_save(source=found.source(), slug="pairwise-potato")
        batch = batch_publish(batch=design_batch_create(version=version, records=found.records, name="pairs"))
        self.login(self.annotator)
        self.client.post(reverse("hits:claim", args=[batch.pk]))
        assignment = Assignment.objects.get(worker__user=self.annotator, hit__batch=batch)
        page = self.client.get(reverse("hits:assignment", args=[assignment.pk])).content.decode()
        # Potato's tiles: its labels as written with keys 1 and 2, the tie "No preference" on key 0.
        for key, shown in (("1", "Reply one"), ("2", "Reply two"), ("0", "No preference")):
            self.assertIn(f'<span class="choice-key" aria-hidden="true">{key}</span> <strong>{shown}</strong>', page)
        first, second = assignment.hit.ordered_items()
        response = self.client.post(reverse("hits:submit", args=[assignment.pk]),
                                    {f"a-{first.pk}-0": "tie", f"a-{second.pk}-0": "A"})
        self.assertEqual(response.status_code, 302, response.content.decode()[:2000])
        assignment.refresh_from_db()
        self.assertEqual({assignment.answers[str(first.pk)]["better"], assignment.answers[str(second.pk)]["better"]},
                         {"tie", "A"})
