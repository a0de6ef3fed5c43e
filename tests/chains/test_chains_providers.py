"""The stage graph on the paid providers: on MTurk each stage is its own batch whose HITs appear as the earlier
stage's work is synced, and an author's own submission to a later stage is flagged, never counted; on
Prolific a stage's study gets more places as items arrive."""

import json
from decimal import Decimal

from django.conf import settings

from chains.models import Chain, Step
from chains.services import workflow_create, workflow_publish
from core.items import StoryItem
from core.stories import read_stories
from hits.models import Assignment, Batch
from hits.mturk_emulator import MTurkEmulator
from hits.mturk_emulator.worker_client import EmulatedWorker
from hits.prolific_emulator import ProlificEmulator
from hits.providers import use_provider
from hits.providers.mturk import MTurkProvider
from hits.providers.prolific import ProlificProvider
from hits.services import ItemSpec, batch_extend, batch_publish, batch_sync
from tests.base import BaseTestCase
from tests.hits.test_prolific import Clock

STORIES = settings.BASE_DIR / "demo" / "data" / "stories.jsonl"
KNOWN = {row["story_id"]: row for row in map(json.loads, STORIES.read_text(encoding="utf-8").splitlines())}


class MTurkChainTests(BaseTestCase):
    def setUp(self):
        self.emulator = MTurkEmulator(seed=2).start()
        self.addCleanup(self.emulator.stop)
        previous = use_provider("mturk", MTurkProvider(self.emulator.client()))
        self.addCleanup(use_provider, "mturk", previous)

    def sync(self, stage):
        with self.captureOnCommitCallbacks(execute=True):
            batch_sync(batch=Batch.objects.get(pk=stage.batch_id))

    def test_the_edit_stage_opens_at_mturk_as_counterfactuals_are_synced_and_authors_are_not_counted(self):
        story = read_stories(STORIES)[0]
        workflow = workflow_create(name="tt-mturk", stories=[story], provider="mturk")
        workflow_publish(workflow)
        write, edit = workflow.stage("write"), workflow.stage("edit")
        self.assertFalse(edit.batch.hits.exists())
        hit = write.batch.hits.get()
        writer, checker = EmulatedWorker(self.emulator.url, "AWRITER"), EmulatedWorker(self.emulator.url, "ACHECKER")
        item = hit.ordered_items()[0]
        writer.submit(writer.accept(hit.provider_hit_id), {
            f"cf-{item.pk}": KNOWN[story.story_id]["counterfactual"],
            **{f"cond-{item.pk}-{key}": "on" for key in ("related", "premise", "ending")}})
        self.sync(write)

        edit_hit = Batch.objects.get(pk=edit.batch_id).hits.get()
        self.assertTrue(edit_hit.provider_hit_id)  # published at MTurk after the sync committed
        question = self.emulator.account.hits[edit_hit.provider_hit_id]["Question"]
        self.assertIn(KNOWN[story.story_id]["counterfactual"], question)
        self.assertIn("story-end", question)

        edit_item = edit_hit.ordered_items()[0]
        fields = {f"check-{edit_item.pk}-{key}": "yes" for key in ("related", "premise", "ending")}
        fields |= {f"end-{edit_item.pk}-{n}": text for n, text in enumerate(KNOWN[story.story_id]["edited_ending"], 1)}
        # MTurk cannot keep the writer off the HIT: their submission comes in, and is flagged, not counted.
        writer.submit(writer.accept(edit_hit.provider_hit_id), fields)
        self.sync(edit)
        flagged = Assignment.objects.get(hit=edit_hit, worker__external_id="AWRITER")
        self.assertIn("you wrote it in an earlier stage", flagged.flag)
        self.assertFalse(Step.objects.filter(kind="ending").exists())
        self.assertEqual(Chain.objects.get().state, Chain.State.CHECKING)

        Batch.objects.filter(pk=edit.batch_id).update(assignments_per_hit=2)
        self.emulator.account.hits[edit_hit.provider_hit_id]["MaxAssignments"] = 2
        checker.submit(checker.accept(edit_hit.provider_hit_id), fields)
        self.sync(edit)
        self.assertEqual(Chain.objects.get().state, Chain.State.EDITED)
        self.assertEqual(Step.objects.get(kind="ending").worker.external_id, "ACHECKER")


class ProlificChainTests(BaseTestCase):
    def setUp(self):
        self.emulator = ProlificEmulator(seed=3, clock=Clock()).start()
        self.addCleanup(self.emulator.stop)
        provider = ProlificProvider(self.emulator.api_url, self.emulator.token, external_url="http://testserver",
                                    complete_url=f"{self.emulator.url}/submissions/complete", backoff=0)
        previous = use_provider("prolific", provider)
        self.addCleanup(use_provider, "prolific", previous)

    def test_a_growing_stage_gets_more_places_on_its_study(self):
        stories = read_stories(STORIES)[:3]
        workflow = workflow_create(name="tt-prolific", stories=stories, provider="prolific",
                                   write={"reward": Decimal("1.00")}, edit={"reward": Decimal("1.00")})
        workflow_publish(workflow)
        write = Batch.objects.get(pk=workflow.stage("write").batch_id)
        study = self.emulator.workspace.studies[write.provider_state["study_id"]]
        self.assertEqual(study["total_available_places"], 3)
        edit = Batch.objects.get(pk=workflow.stage("edit").batch_id)
        specs = [ItemSpec(key=f"chain:{n}:r0", payload=StoryItem(
            story_id=story.story_id, premise=story.premise, initial=story.initial, ending=story.ending,
            counterfactual=KNOWN[story.story_id]["counterfactual"])) for n, story in enumerate(stories)]
        batch_extend(batch=edit, items=specs[:1])
        batch_publish(batch=Batch.objects.get(pk=edit.pk))
        edit.refresh_from_db()
        study = self.emulator.workspace.studies[edit.provider_state["study_id"]]
        self.assertEqual(study["total_available_places"], 1)
        # Its one place taken, the study waits for review; more places open it again.
        study["status"] = "AWAITING REVIEW"
        batch_extend(batch=edit, items=specs[1:])
        batch_publish(batch=Batch.objects.get(pk=edit.pk))
        study = self.emulator.workspace.studies[edit.provider_state["study_id"]]
        self.assertEqual((study["total_available_places"], study["status"]), (3, "ACTIVE"))
        self.assertEqual(Batch.objects.get(pk=edit.pk).hits.exclude(provider_hit_id="").count(), 3)
