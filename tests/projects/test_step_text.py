import io
import re
import zipfile

from designs.items import read_items
from designs.loader import load_text
from hits.services import assignment_claim, assignment_submit, batch_publish, worker_for_user
from projects.people import project_open
from projects.services import design_project_create
from projects.templatetags.steps import code_spans
from tests.base import BaseTestCase, page_after_jobs


def test_it_shows_a_backticked_command_as_code():
    assert code_spans("alpha 0.41 (`manage.py design report 3`)") == (
        "alpha 0.41 (<code>manage.py design report 3</code>)")


def test_it_escapes_the_text_before_marking_code():
    assert code_spans("<script>x()</script> `a<b`") == "&lt;script&gt;x()&lt;/script&gt; <code>a&lt;b</code>"


class DesignProjectStepsTest(BaseTestCase):
    """The project page's steps tell the truth for a design made in the browser."""

    SOURCE = ("title: Mood\ndescription: How do these posts feel?\nannotation_schemes:\n"
              "  - {annotation_type: radio, name: mood, labels: [calm, tense]}\n"
              "hits: {items_per_hit: 2, assignments_per_hit: 1}\n")

    def setUp(self):
        records = read_items(b'{"id": "1", "text": "A post."}\n{"id": "2", "text": "Another."}\n', name="posts.jsonl",
                             design=load_text(self.SOURCE, name="mood.yaml"))
        self.project, self.batch = design_project_create(source=self.SOURCE, file_name="mood.yaml", records=records,
                                                         user=self.organizer)
        self.login(self.organizer)

    def steps(self):
        page = page_after_jobs(self.client, f"/projects/{self.project.slug}/").content.decode()
        return {key: " ".join(re.sub(r"<[^>]+>", " ", body).split()) for key, body in
                re.findall(r'<li class="\w+" id="step-(\w+)">(.*?)</li>', page, re.S)}, page

    def test_a_draft_batch_is_not_done_and_the_project_says_where_it_came_from(self):
        steps, page = self.steps()
        self.assertIn('<li class="next" id="step-batch">', page)  # the next thing to do, not done
        self.assertIn("a draft, not published yet", steps["batch"])
        self.assertIn("made on the design page by organizer", steps["batch"])
        self.assertIn("starts when the batch is published", steps["work"])
        self.assertIn("A study from a design.", page)
        self.assertNotIn("designs/*.yaml", page)

    def test_one_answer_an_item_says_why_there_is_no_agreement_and_the_export_is_the_download(self):
        batch_publish(batch=self.batch)
        worker = worker_for_user(self.annotator)
        project_open(project=self.project, open_to_site=True)
        assignment = assignment_claim(batch=self.batch, worker=worker)
        assignment_submit(assignment=assignment, worker=worker, raw_answers={
            f"a-{item.pk}-0": "calm" for item in assignment.hit.ordered_items()})
        steps, _ = self.steps()
        self.assertIn("mood: no agreement yet (each item has one answer so far; agreement needs two)",
                      steps["report"])
        self.assertIn("Export answers and labels (zip)", steps["export"])
        self.assertIn("as CSV, JSON Lines, Parquet and a Hugging Face dataset folder", steps["export"])
        # No export yet: the link says so on the project page. The button starts the job; its zip is then linked.
        early = self.client.get(f"/projects/{self.project.slug}/batches/{self.batch.pk}/export.zip", follow=True)
        self.assertContains(early, f"Batch {self.batch.pk} has no export yet")
        with self.captureOnCommitCallbacks(execute=True):
            self.client.post(f"/projects/{self.project.slug}/batches/{self.batch.pk}/export/")
        steps, _ = self.steps()
        self.assertIn("Download the export of", steps["export"])
        download = self.client.get(f"/projects/{self.project.slug}/batches/{self.batch.pk}/export.zip")
        with zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content))) as archive:
            self.assertIn(f"{self.project.slug}-batch-{self.batch.pk}/labels.csv", archive.namelist())
        self.assertIn(f"manage.py design export {self.batch.pk} --out DIR", steps["export"])
        self.assertNotIn("BATCH", steps["export"])
