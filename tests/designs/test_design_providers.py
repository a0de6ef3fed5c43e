"""A design batch on MTurk (through the emulator, which speaks MTurk's wire protocol): the HIT type carries the
design's title, the HTMLQuestion is the generic page for the HIT's items, and a worker's externalSubmit comes
back through sync as answers read by the same scheme types."""

from designs.items import read_items
from designs.services import design_batch_create, design_version_save
from hits.models import Assignment, Batch
from hits.mturk_emulator import MTurkEmulator
from hits.mturk_emulator.worker_client import EmulatedWorker
from hits.providers import use_provider
from hits.providers.mturk import MTurkProvider
from hits.services import batch_publish, batch_sync
from tests.base import BaseTestCase
from tests.designs.fixtures import EVERY_TYPE, full_answer, items_jsonl


class MTurkDesignTests(BaseTestCase):
    def setUp(self):
        self.emulator = MTurkEmulator(seed=3).start()
        self.addCleanup(self.emulator.stop)
        previous = use_provider("mturk", MTurkProvider(self.emulator.client()))
        self.addCleanup(use_provider, "mturk", previous)

    def test_a_design_batch_runs_on_mturk_from_question_to_synced_answers(self):
        version = design_version_save(source=EVERY_TYPE, slug="every")
        records = read_items(items_jsonl(), name="posts.jsonl", design=version.design)
        batch = batch_publish(batch=design_batch_create(version=version, records=records, name="every",
                                                        provider="mturk"))
        hit = batch.hits.get()
        remote = self.emulator.account.hits[hit.provider_hit_id]
        hit_type = self.emulator.account.hit_types[remote["HITTypeId"]]
        self.assertEqual(hit_type["Title"], "Every scheme type")
        question = remote["Question"]
        self.assertIn("<HTMLQuestion", question)
        self.assertIn("externalSubmit", question)
        self.assertIn('data-type="bws"', question)
        self.assertNotIn("<script>x()</script>", question)

        worker = EmulatedWorker(self.emulator.url, "ADESIGNWORKER")
        fields = {key: value for item in hit.ordered_items()
                  for key, value in full_answer(item.pk, item.content.text).items()}
        worker.submit(worker.accept(hit.provider_hit_id), fields)
        with self.captureOnCommitCallbacks(execute=True):
            batch_sync(batch=Batch.objects.get(pk=batch.pk))
        assignment = Assignment.objects.get(hit=hit)
        first = hit.ordered_items()[0]
        self.assertEqual(assignment.answers[str(first.pk)]["extremes"], {"best": "x", "worst": "z"})
        self.assertEqual(assignment.answers[str(first.pk)]["topics"], ["money", "politics"])
