"""Every workspace form refuses bad input with a message on the field, and stores nothing."""

import shutil
import tempfile
from decimal import Decimal
from pathlib import Path

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from core.items import SentenceItem
from designs.semeval import labeling_batch_create, spans_batch_create
from filtering.models import Corpus, Document
from hits.models import Batch
from hits.services import ItemSpec
from jobs.models import Job
from projects.models import Project, Sample, Upload
from projects.services import project_create
from tests.base import BaseTestCase


class FormTest(BaseTestCase):
    def setUp(self):
        self.login(self.organizer)
        folder = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, folder, True)
        overrides = override_settings(UPLOAD_ROOT=folder / "uploads", EXPORT_ROOT=folder / "exports")
        overrides.enable()
        self.addCleanup(overrides.disable)
        self.project = project_create(name="Forms", user=self.organizer)

    def post(self, url, data):
        with self.captureOnCommitCallbacks(execute=True):
            return self.client.post(url, data)

    def field_error(self, response, field):
        form = response.context["form"]
        self.assertIn(field, form.errors, form.errors)
        return " ".join(form.errors[field])

    def test_a_csv_upload_names_missing_columns_and_a_forged_column(self):
        csv = b"headline,body\r\nA,If it had rained we would have stayed.\r\n"
        response = self.post("/projects/forms/corpus/", {"file": SimpleUploadedFile("news.csv", csv),
                                                         "domain": "finance"})
        upload = Upload.objects.get()
        self.assertRedirects(response, f"/projects/forms/corpus/{upload.pk}/columns/")
        self.assertEqual(upload.columns, ["headline", "body"])
        page = self.client.get(response.url)
        self.assertContains(page, '<option value="body" selected>body</option>', html=True)
        response = self.post(response.url, {"text_column": "text", "id_column": ""})
        self.assertIn("Select a valid choice", self.field_error(response, "text_column"))
        self.assertFalse(Job.objects.exists())
        self.assertFalse(Corpus.objects.exists())

    def test_empty_and_broken_uploads_are_refused_on_the_file_field(self):
        for name, content, message in (("empty.jsonl", b"", "The submitted file is empty"),
                                       ("bad.zip", b"not a zip", "not a zip file"),
                                       ("no-header.csv", b"\r\n\r\n", "no column names")):
            with self.subTest(name=name):
                response = self.post("/projects/forms/corpus/", {"file": SimpleUploadedFile(name, content)})
                self.assertIn(message, self.field_error(response, "file"))
        self.assertFalse(Upload.objects.exists())
        self.assertEqual(list(Path(tempfile.gettempdir()).glob("*/uploads/forms/*")), [])

    def test_a_zip_whose_paths_leave_the_folder_is_refused(self):
        import io
        import zipfile

        archive = io.BytesIO()
        with zipfile.ZipFile(archive, "w") as bundle:
            bundle.writestr("../../escape.txt", "If I had known.")
        response = self.post("/projects/forms/corpus/", {"file": SimpleUploadedFile("texts.zip", archive.getvalue())})
        self.assertIn("would unpack outside its folder", self.field_error(response, "file"))
        self.assertFalse(Upload.objects.exists())

    def test_a_zip_whose_member_cannot_be_unpacked_is_refused_and_nothing_is_left_unpacked(self):
        import io
        import zipfile

        archive = io.BytesIO()
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as bundle:
            bundle.writestr("a.txt", "If I had known, I would have left. " * 50)
            bundle.writestr("b.txt", "Had it rained, we would have stayed. " * 50)
        data = bytearray(archive.getvalue())
        second = data.find(b"PK\x01\x02", data.find(b"PK\x01\x02") + 1)
        data[second + 16] ^= 0xFF  # b.txt's CRC in the central directory: a.txt unpacks, then b.txt fails
        response = self.post("/projects/forms/corpus/", {"file": SimpleUploadedFile("texts.zip", bytes(data))})
        self.assertIn("'b.txt' cannot be unpacked (Bad CRC-32 for file 'b.txt'): the zip is damaged",
                      self.field_error(response, "file"))
        self.assertFalse(Upload.objects.exists())
        self.assertEqual(list(Path(tempfile.gettempdir()).glob("*/uploads/forms/*")), [])

    def _sampled(self):
        corpus = Corpus.objects.create(name="forms-corpus")
        self.project.corpora.add(corpus)
        from filtering.services import filter_chunk_process, filter_run_prepare

        document = Document.objects.create(corpus=corpus, external_id="d", domain="finance",
                                           text="If it had rained, we would have stayed home.")
        document.sentences.create(index=0, text=document.text, start=0, end=len(document.text))
        run = filter_run_prepare(profile="news", corpus=corpus)
        for chunk in run.chunks.all():
            filter_chunk_process(chunk_id=chunk.pk)
        self.project.filter_runs.add(run)
        return Sample.objects.create(project=self.project, run=run, size=1, candidate_ids=list(
            run.candidates.values_list("pk", flat=True)))

    def test_the_batch_form_refuses_a_negative_reward_a_gold_rate_of_2_and_a_budget_below_the_estimate(self):
        self._sampled()
        base = {"name": "b", "items_per_hit": 25, "assignments_per_hit": 5, "reward": "0.50", "provider": "inhouse",
                "seed": 0, "gold_count": 0, "gold_rate": 0}
        response = self.post("/projects/forms/batches/new/", {**base, "reward": "-1"})
        self.assertIn("greater than or equal to 0", self.field_error(response, "reward"))
        response = self.post("/projects/forms/batches/new/", {**base, "gold_rate": "2"})
        self.assertIn("less than or equal to 1", self.field_error(response, "gold_rate"))
        response = self.post("/projects/forms/batches/new/", {**base, "budget": "1.00"})
        self.assertIn("would cost 2.50", self.field_error(response, "budget"))
        self.assertFalse(Batch.objects.exists())
        self.assertFalse(Job.objects.exists())

    def test_fewer_workers_than_the_rules_need_is_caught_before_the_batch_is_made(self):
        self._sampled()
        base = {"name": "b", "items_per_hit": 25, "assignments_per_hit": 3, "reward": "0.50", "provider": "inhouse",
                "seed": 0, "gold_count": 0, "gold_rate": 0}
        response = self.post("/projects/forms/batches/new/", base)
        self.assertIn("the paper's rules need 5 votes a sentence: with 3 workers a HIT every sentence stays pending",
                      self.field_error(response, "assignments_per_hit"))
        self.assertContains(response, 'type="checkbox" name="fewer_workers"')
        self.assertFalse(Job.objects.exists())
        response = self.post("/projects/forms/batches/new/", {**base, "fewer_workers": "on"})
        self.assertEqual(response.status_code, 302)
        self.assertEqual(Job.objects.get().kind, "project-batch")

    def test_a_version_over_unreviewed_spans_says_how_many_and_asks(self):
        from aggregation.models import AggregationRun, ItemOutcome
        from annotation.models import SpanAnnotation

        labels = labeling_batch_create(name="b", items=[
            ItemSpec(key=f"s{n}", payload=SentenceItem(text=f"If S{n} had been, T.", sentence_id=f"s{n}"))
            for n in range(3)])
        run = AggregationRun.objects.create(batch=labels, rules={}, rules_text="", votes=0)
        self.project.aggregations.add(run)
        spans = spans_batch_create(name="spans", items=[
            ItemSpec(key=f"p{n}", payload=SentenceItem(text=f"If S{n} had been, T.", sentence_id=f"s{n}"))
            for n in range(3)])
        for source, item in zip(labels.items.order_by("pk"), spans.items.order_by("pk"), strict=True):
            ItemOutcome.objects.create(run=run, item=source, yes=5, no=0, outcome="positive")
            SpanAnnotation.objects.create(item=item, source_item=source, text=source.content.text,
                                          state="accepted" if source.key == "s0" else "unreviewed")
        page = self.client.get("/projects/forms/versions/new/")
        self.assertContains(page, "2 span annotations of its positives are not reviewed yet")
        data = {"name": "v1", "test_share": 0.35, "seed": 0, "stratify": "label"}
        response = self.post("/projects/forms/versions/new/", data)
        self.assertIn("2 span annotations are not reviewed", self.field_error(response, "without_unreviewed"))
        self.assertFalse(Job.objects.exists())
        response = self.post("/projects/forms/versions/new/", {**data, "without_unreviewed": "on"})
        self.assertEqual(response.status_code, 302)
        self.assertEqual(Job.objects.get().kind, "project-version")

    def test_the_filter_form_explains_every_profile(self):
        from filtering.patterns import PROFILES

        Corpus.objects.create(name="c")
        self.project.corpora.add(Corpus.objects.get())
        page = self.client.get("/projects/forms/filter/").content.decode()
        for name, profile in PROFILES.items():
            self.assertIn(f"{name}: {profile.description}".replace('"', "&quot;").replace("'", "&#x27;"), page)

    def test_publishing_over_the_budget_is_refused_on_the_page(self):
        batch = labeling_batch_create(name="tight", items=[
            ItemSpec(key=f"s{n}", payload=SentenceItem(text=f"Sentence {n}.", sentence_id=f"s{n}")) for n in range(10)],
            items_per_hit=5, budget=Decimal("1.00"))
        self.project.batches.add(batch)
        page = self.client.get(f"/projects/forms/batches/{batch.pk}/publish/")
        self.assertContains(page, "over the budget")
        response = self.post(f"/projects/forms/batches/{batch.pk}/publish/", {"confirm": "on", "total": "5.00"})
        self.assertIn("over the budget 1.00", self.field_error(response, "confirm"))
        response = self.post(f"/projects/forms/batches/{batch.pk}/publish/", {"total": "5.00"})
        self.assertIn('tick "I confirm this cost" to publish: publishing spends the total above',
                      self.field_error(response, "confirm"))
        self.assertContains(page, 'id="publish-form" novalidate')  # the page says why, not a browser bubble
        batch.refresh_from_db()
        self.assertEqual((batch.state, batch.hits.exclude(provider_hit_id="").count()), ("draft", 0))
        self.assertFalse(Job.objects.exists())

    def test_a_new_project_needs_a_name_of_its_own(self):
        response = self.post("/projects/", {"name": "Forms", "design": "semeval"})
        self.assertIn("exists", self.field_error(response, "name"))
        response = self.post("/projects/", {"name": "!!!", "design": "semeval"})
        self.assertIn("letters or digits", self.field_error(response, "name"))
        self.assertEqual(Project.objects.count(), 1)

    def test_a_version_name_is_never_reused_and_shares_are_checked(self):
        from releases.models import DatasetVersion

        DatasetVersion.objects.create(name="taken")
        from aggregation.models import AggregationRun

        batch = labeling_batch_create(name="b", items=[
            ItemSpec(key="s", payload=SentenceItem(text="S.", sentence_id="s"))])
        self.project.aggregations.add(AggregationRun.objects.create(batch=batch, rules={}, rules_text="", votes=0))
        response = self.post("/projects/forms/versions/new/", {"name": "taken", "test_share": 1.5, "seed": 0,
                                                               "stratify": "label"})
        self.assertIn("exists", self.field_error(response, "name"))
        self.assertIn("less than or equal to 0.95", self.field_error(response, "test_share"))
        self.assertFalse(Job.objects.exists())

    def test_worker_filters_reach_the_batch_the_estimate_and_the_batch_page(self):
        self._sampled()
        base = {"name": "filtered", "items_per_hit": 25, "assignments_per_hit": 5, "reward": "0.50",
                "provider": "mturk", "seed": 0, "gold_count": 0, "gold_rate": 0}
        response = self.post("/projects/forms/batches/new/", {**base, "min_approval_rate": "101"})
        self.assertIn("less than or equal to 100", self.field_error(response, "min_approval_rate"))
        self.post("/projects/forms/batches/new/", {**base, "min_approval_rate": "99", "min_approved_hits": "10000",
                                                   "masters": "on"})
        batch = Batch.objects.get(name="filtered")
        self.assertEqual(batch.requirements, {"min_approval_rate": 99, "min_approved_hits": 10000, "masters": True})
        page = self.client.get(f"/projects/forms/batches/{batch.pk}/")
        self.assertContains(page, "approval rate over 99%; at least 10,000 approved HITs; Masters only")
        found = self.client.get("/projects/forms/batches/estimate.json", {
            "items": 1, "items_per_hit": 25, "assignments_per_hit": 3, "reward": "0.10", "provider": "mturk",
            "min_approved_hits": "10000", "masters": "on"}).json()
        plain = self.client.get("/projects/forms/batches/estimate.json", {
            "items": 1, "items_per_hit": 25, "assignments_per_hit": 3, "reward": "0.10", "provider": "mturk"}).json()
        self.assertIn("at least 10,000 approved HITs", found["filters"])
        # Masters costs 5% more in MTurk's fee: 3 x (0.10 + 0.025, rounded to the cent: 0.03) against 3 x (0.10 + 0.02).
        self.assertEqual((found["total"], plain["total"]), ("0.39", "0.36"))
        prolific = self.client.get("/projects/forms/batches/estimate.json", {
            "items": 1, "provider": "prolific", "min_approved_hits": "500", "masters": "on"}).json()
        self.assertIn("at least 500 approved submissions", prolific["filters"])
        self.assertIn("Masters: an MTurk qualification, not applied on Prolific", prolific["filters"])
        bad = self.client.get("/projects/forms/batches/estimate.json", {"items": 1, "min_approval_rate": "150"})
        self.assertEqual(bad.status_code, 400)
        self.assertIn("min_approval_rate is 150", bad.json()["error"])
        # The estimate reads each number as the form does: what the form refuses is said, never a total of NaN.
        for given, said in (({"reward": "nan"}, "Reward a HIT: Enter a number."),
                            ({"reward": "-1"}, "Reward a HIT: Ensure this value is greater than or equal to 0."),
                            ({"items_per_hit": "0"},
                             "Sentences a HIT: Ensure this value is greater than or equal to 1."),
                            ({"items": "99999999999999999999"}, "items '99999999999999999999' is not a count")):
            refused = self.client.get("/projects/forms/batches/estimate.json", {"items": 1, **given})
            self.assertEqual((refused.status_code, refused.json()["error"]), (400, f"cannot estimate: {said}"))
        # The span batch's form estimates by its own bounds: at most 5 annotators a sentence, no known answers.
        span = {"form": "span-batch", "items": 25, "items_per_hit": 10, "reward": "0.80", "gold_count": "20",
                "gold_rate": "0.5"}
        found = self.client.get("/projects/forms/batches/estimate.json", {**span, "assignments_per_hit": 2}).json()
        self.assertEqual((found["hits"], found["assignments"], found["total"]), (3, 6, "4.80"))
        refused = self.client.get("/projects/forms/batches/estimate.json", {**span, "assignments_per_hit": 6})
        self.assertEqual((refused.status_code, refused.json()["error"]), (
            400, "cannot estimate: Annotators a sentence: Ensure this value is less than or equal to 5."))
