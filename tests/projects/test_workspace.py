"""An organizer runs a project through every step with the forms of the workspace (Django's test client;
the Chromium walk through the same steps is in test_workspace_browser.py)."""

import json
import shutil
import tempfile
from pathlib import Path

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from annotation.models import SpanAnnotation
from demo.crowd import SimulatedWorker, SpanAnnotator, review_spans, run_inhouse, run_spans, take_test_inhouse
from filtering.models import Document
from hits.models import Assignment, Batch
from jobs.models import Job
from projects.models import Project, Upload
from tests.base import BaseTestCase
from tests.fixtures import released_sample

DOCUMENTS = [
    {"id": f"doc-{n}", "domain": ("finance", "politics", "healthcare")[n % 3],
     "text": f"Shares rose {n} percent on Monday. If the bank had cut rates, stocks would have climbed further. "
             f"Had the vote failed, the bill would have died. Officials said they wished they had acted sooner."}
    for n in range(30)
]


def jsonl(documents):
    return "".join(json.dumps(document) + "\n" for document in documents).encode()


class WorkspaceTest(BaseTestCase):
    def setUp(self):
        self.login(self.organizer)
        folder = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, folder, True)
        overrides = override_settings(UPLOAD_ROOT=folder / "uploads", EXPORT_ROOT=folder / "exports")
        overrides.enable()
        self.addCleanup(overrides.disable)

    def post(self, url, data=None, **extra):
        """POST as the page would, running the jobs it starts (on commit, as in production)."""
        with self.captureOnCommitCallbacks(execute=True):
            return self.client.post(url, data or {}, **extra)

    def make_project(self):
        response = self.post("/projects/", {"name": "Counterfactual news", "design": "semeval"})
        self.assertRedirects(response, "/projects/counterfactual-news/")
        # The simulated crowd are the site's annotators: its in-house work is opened to them on the People page.
        self.post("/projects/counterfactual-news/people/open/", {"open_to_site": "on"})
        return Project.objects.get(slug="counterfactual-news")

    def test_it_takes_a_project_from_upload_to_a_downloaded_split(self):
        project = self.make_project()
        page = self.client.get("/projects/counterfactual-news/").content.decode()
        self.assertIn('class="next" id="step-corpus"', page)

        response = self.post("/projects/counterfactual-news/corpus/",
                             {"file": SimpleUploadedFile("news.jsonl", jsonl(DOCUMENTS))})
        self.assertEqual(response.status_code, 302)
        job = Job.objects.get(kind="project-ingest")
        self.assertEqual((job.state, job.result["documents"]), ("done", 30), job.message)
        self.assertEqual(Document.objects.filter(corpus__projects=project).count(), 30)

        corpus = project.corpora.get()
        self.post("/projects/counterfactual-news/filter/", {"corpus": corpus.pk, "profile": "news"})
        self.assertEqual(Job.objects.get(kind="project-filter").state, "done")
        run = project.filter_runs.get()
        self.assertGreater(run.candidates.count(), 30)

        preview = self.client.get("/projects/counterfactual-news/sample/", {"run": run.pk, "size": 60, "seed": 1})
        self.assertContains(preview, "Keep this sample")
        self.assertContains(preview, "<td>finance</td>")
        self.post("/projects/counterfactual-news/sample/", {"run": run.pk, "size": 60, "seed": 1})
        self.assertEqual(len(project.samples.get().candidate_ids), 60)

        with open(released_sample(), "rb") as handle:
            self.post("/projects/counterfactual-news/qualification/", {
                "source": SimpleUploadedFile("subtask1_train.csv", handle.read()), "threshold": 80, "seed": 0,
                "duration": 45, "retake_delay": 24})
        test = project.tests.get()
        self.assertEqual(test.items.count(), 40)
        item = test.items.first()
        self.post(f"/projects/counterfactual-news/qualification/items/{item.pk}/",
                  {"text": "If I had known, I would have left.", "answer": 1})
        item.refresh_from_db()
        self.assertEqual(item.text, "If I had known, I would have left.")

        released = project.uploads.get(kind=Upload.Kind.RELEASED)
        response = self.post("/projects/counterfactual-news/batches/new/", {
            "name": "labeling", "items_per_hit": 10, "assignments_per_hit": 5, "reward": "0.50", "budget": "100",
            "provider": "inhouse", "qualification": test.name, "gold_upload": released.pk, "gold_count": 20,
            "gold_rate": 0.1, "seed": 3})
        self.assertEqual(response.status_code, 302, response.content.decode()[-2000:])
        batch = project.batches.get()
        self.assertEqual((batch.hits.count(), batch.items.filter(is_gold=True).count()), (7, 20))

        confirm = self.client.get(f"/projects/counterfactual-news/batches/{batch.pk}/publish/")
        self.assertContains(confirm, "Publish for 17.50")
        self.post(f"/projects/counterfactual-news/batches/{batch.pk}/publish/", {"confirm": "on", "total": "17.50"})
        batch.refresh_from_db()
        self.assertEqual(batch.state, Batch.State.PUBLISHED)

        workers = [SimulatedWorker(f"careful{n}", 0.97) for n in range(7)] + [SimulatedWorker("spammer", 0.5, True)]
        take_test_inhouse(test, workers, seed=4)
        run_inhouse(batch, workers, seed=4)
        batch.refresh_from_db()
        self.assertEqual(batch.state, Batch.State.COMPLETED)

        submitted = list(Assignment.objects.filter(hit__batch=batch, state="submitted").values_list("pk", flat=True))
        self.post(f"/projects/counterfactual-news/batches/{batch.pk}/review/",
                  {"assignments": submitted, "decision": "approve", "feedback": "Thank you."})
        self.assertEqual(Assignment.objects.filter(hit__batch=batch, state="approved").count(), 35)

        self.post(f"/projects/counterfactual-news/batches/{batch.pk}/aggregate/",
                  {"keep_partial_negatives": 1.0, "seed": 0, "samples": 200})
        aggregation = project.aggregations.get()
        page = self.client.get(f"/projects/counterfactual-news/aggregations/{aggregation.pk}/")
        self.assertContains(page, "Krippendorff")
        positives = aggregation.summary["outcomes"]["positive"]
        self.assertGreater(positives, 0)

        self.post(f"/projects/counterfactual-news/aggregations/{aggregation.pk}/", {
            "name": "spans", "items_per_hit": 10, "assignments_per_hit": 1, "reward": "0.80", "provider": "inhouse",
            "qualification": test.name, "seed": 0})
        span_batch = project.batches.get(design_link__version__slug="semeval-subtask2")
        self.post(f"/projects/counterfactual-news/batches/{span_batch.pk}/publish/",
                  {"confirm": "on", "total": str(self.client.get(
                      f"/projects/counterfactual-news/batches/{span_batch.pk}/publish/").context["cost"].total)})
        run_spans(span_batch, [SpanAnnotator(w.name, w.accuracy) for w in workers], {}, seed=5)
        review_spans(span_batch, {}, auto_accept=True)
        self.assertFalse(SpanAnnotation.objects.filter(item__batch=span_batch, state="unreviewed").exists())

        self.post("/projects/counterfactual-news/versions/new/", {
            "name": "news-v1", "test_share": 0.35, "seed": 0, "stratify": "label"})
        version = project.versions.get()
        self.post(f"/projects/counterfactual-news/versions/{version.name}/")
        page = self.client.get(f"/projects/counterfactual-news/versions/{version.name}/")
        self.assertContains(page, 'href="/datasets/news-v1/files/subtask1_train.csv"')
        download = self.client.get("/datasets/news-v1/files/subtask1_train.csv")
        self.assertTrue(b"".join(download.streaming_content).startswith(b"sentenceID,gold_label,sentence"))
        plot = self.client.get(f"/projects/counterfactual-news/versions/{version.name}/words.png")
        self.assertEqual((plot.status_code, plot["Content-Type"]), (200, "image/png"))

        steps = self.client.get("/projects/counterfactual-news/").context["steps"]
        self.assertEqual([step.state for step in steps], ["done"] * 9, [(s.key, s.state, s.summary) for s in steps])

    def test_an_upload_whose_documents_are_all_refused_names_each_line_and_stores_nothing(self):
        project = self.make_project()
        bad = [{"id": "a", "domain": "finance"}, {"id": "b", "domain": "finance", "text": "   "},
               {"domain": "finance", "text": "No id here."}]
        self.post("/projects/counterfactual-news/corpus/", {"file": SimpleUploadedFile("mine.jsonl", jsonl(bad))})
        job = Job.objects.get(kind="project-ingest")
        self.assertEqual(job.state, "failed")
        self.assertIn("nothing was stored from mine.jsonl: all 3 of its documents were refused", job.message)
        self.assertNotIn("DoesNotExist", job.message)
        self.assertEqual([error.split(":")[:2] for error in job.result["errors"]],
                         [["mine.jsonl", "1"], ["mine.jsonl", "2"], ["mine.jsonl", "3"]])
        self.assertEqual(project.corpora.count(), 0)
        self.assertEqual(Document.objects.count(), 0)
        page = self.client.get("/projects/counterfactual-news/corpus/").content.decode()
        self.assertIn('<section aria-labelledby="refused-heading" id="refused">', page)  # open, not folded
        self.assertIn("3 documents of job", page)
        self.assertIn("<code>mine.jsonl:2:", page)
        upload = project.uploads.get()
        self.assertNotIn(str(Path(upload.path).parent), page)  # where the server keeps it is not shown

    def test_domains_are_what_the_corpus_says_and_refused_rows_download_to_fix(self):
        project = self.make_project()
        documents = [{"id": "t1", "domain": "technology", "text": "If the chip had shipped, sales would have risen."},
                     {"id": "b1", "domain": "business", "text": "Had the merger failed, shares would have fallen."},
                     {"id": "x1", "domain": "sports", "text": "If the team had won, the coach would have stayed."},
                     {"id": "x2", "domain": "finance"}]
        self.post("/projects/counterfactual-news/corpus/", {"file": SimpleUploadedFile("news.jsonl", jsonl(documents)),
                                                           "domains": "technology, business"})
        project.refresh_from_db()
        self.assertEqual(project.domains, ["technology", "business"])
        self.assertEqual(sorted(Document.objects.values_list("domain", flat=True)), ["business", "technology"])
        job = Job.objects.get(kind="project-ingest")
        self.assertIn("news.jsonl:3: document 'x1': domain 'sports' is not one of the accepted domains "
                      "(technology, business)", job.result["errors"][0])
        page = self.client.get("/projects/counterfactual-news/corpus/").content.decode()
        self.assertIn("2 documents of job", page)
        self.assertIn("technology, business", page)  # the help says what is accepted
        download = self.client.get(f"/projects/counterfactual-news/corpus/refused/{job.pk}/")
        lines = b"".join(download.streaming_content).decode().splitlines()
        self.assertEqual([json.loads(line)["id"] for line in lines], ["x1", "x2"])
        self.assertIn('filename="news-refused.jsonl"', download["Content-Disposition"])

    def test_a_csv_s_refused_rows_come_back_with_its_header(self):
        self.make_project()
        data = (b"id,domain,text\nc1,technology,\"If the app had launched,\nusers would have come.\"\n"
                b"c2,,No domain here.\nc3,weather,If it had rained the match would have stopped.\n")
        self.post("/projects/counterfactual-news/corpus/", {"file": SimpleUploadedFile("rows.csv", data)})
        upload = Upload.objects.get()
        self.post(f"/projects/counterfactual-news/corpus/{upload.pk}/columns/", {"text_column": "text",
                                                                                 "id_column": "id"})
        job = Job.objects.get(kind="project-ingest")
        self.assertEqual(sorted(Document.objects.values_list("domain", flat=True)), ["technology", "weather"])
        self.assertEqual(job.result["refused_lines"], [4])
        download = self.client.get(f"/projects/counterfactual-news/corpus/refused/{job.pk}/")
        self.assertEqual(b"".join(download.streaming_content), b"id,domain,text\nc2,,No domain here.\n")

    def test_an_empty_corpus_file_is_named_by_its_upload_never_its_server_path(self):
        self.make_project()
        self.post("/projects/counterfactual-news/corpus/", {"file": SimpleUploadedFile("blank.jsonl", b"\n\n")})
        job = Job.objects.get(kind="project-ingest")
        self.assertEqual(job.state, "failed")
        self.assertEqual(job.message, "blank.jsonl: the file is empty")
