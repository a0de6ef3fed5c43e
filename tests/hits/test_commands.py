import json
import tempfile
from io import StringIO
from pathlib import Path

from django.core.management import CommandError, call_command

from filtering.models import FilterRun
from filtering.services import corpus_ingest
from hits.models import Assignment, Batch
from hits.services import assignment_claim, assignment_submit, worker_for_user
from tests.base import BaseTestCase
from tests.hits.helpers import answers_for

TEXTS = ["Had I known, I would have sold.", "If rates had risen, banks would have gained.",
         "I wish it were true.", "What if the vote fails?"]


class CommandTests(BaseTestCase):
    def setUp(self):
        path = Path(tempfile.mkdtemp()) / "news.jsonl"
        path.write_text("\n".join(json.dumps({"id": str(n), "domain": "finance", "text": t})
                                  for n, t in enumerate(TEXTS)))
        corpus_ingest(path=path, corpus_name="news")
        call_command("filter_candidates", stdout=StringIO())
        self.run_id = FilterRun.objects.get().pk

    def call(self, *args):
        out = StringIO()
        call_command(*args, stdout=out)
        return out.getvalue()

    def test_it_runs_a_batch_from_the_command_line(self):
        self.assertEqual(self.call("hits", "list"), "no batch yet\n")
        out = self.call("subtask1_batch", str(self.run_id), "--name", "cli", "--items-per-hit", "2",
                        "--assignments", "1", "--reward", "0.40", "--budget", "10")
        self.assertRegex(out, r"batch \d+: 2 HITs, 4 items, estimated cost 0.80")
        batch = Batch.objects.get()
        # The list the commands' "no batch" errors point to.
        self.assertEqual(self.call("hits", "list"), f"{batch.pk}  draft  inhouse  2 HITs  cli\n")
        self.assertEqual(self.call("hits", "list", "--state", "published"), "no batch is published\n")
        self.assertIn("published 2 HITs", self.call("hits", "publish", str(batch.pk)))
        batch.refresh_from_db()
        worker = worker_for_user(self.annotator)
        assignment = assignment_claim(batch=batch, worker=worker)
        assignment_submit(assignment=assignment, worker=worker, raw_answers=answers_for(assignment.hit))
        self.assertIn("approved 1", self.call("hits", "approve", str(assignment.pk)))
        self.assertIn("bonus 0.10", self.call("hits", "bonus", str(assignment.pk), "0.10", "--reason", "fast"))
        self.assertIn("blocked inhouse:", self.call("hits", "block", str(worker.pk), "--reason", "test"))
        status = self.call("hits", "status", str(batch.pk))
        self.assertIn("approved 1", status)
        self.assertIn("spent 0.50", status)
        self.assertEqual(Assignment.objects.get().state, "approved")

    def test_it_names_what_is_missing(self):
        with self.assertRaisesRegex(CommandError, "no filter run 999"):
            self.call("subtask1_batch", "999", "--name", "x")
        with self.assertRaisesRegex(CommandError, "no batch 42"):
            self.call("hits", "publish", "42")
        with self.assertRaisesRegex(CommandError, "amounts like 0.50"):
            self.call("subtask1_batch", str(self.run_id), "--name", "x", "--reward", "lots")
