"""A design batch on MTurk (through the emulator, which speaks MTurk's wire protocol): the HIT type carries the
design's title, the HTMLQuestion is the generic page for the HIT's items, and a worker's externalSubmit comes
back through sync as answers read by the same scheme types. On Prolific (its emulator): the study lists the
design, the design's screening test keeps out who did not pass it, the page is the same generic page."""

from decimal import Decimal

from django.conf import settings
from django.test import Client

from core.errors import InputError
from designs.items import read_items
from designs.services import design_batch_create, design_version_save
from emulators.mturk import MTurkEmulator
from emulators.mturk.worker_client import EmulatedWorker
from emulators.prolific import ProlificEmulator
from emulators.prolific.participant import EmulatedParticipant
from hits.models import Assignment, Batch, Payment
from hits.providers import use_provider
from hits.providers.mturk import MTurkProvider
from hits.providers.prolific import ProlificProvider
from hits.reconcile import batch_reconcile
from hits.services import assignment_approve, batch_publish, batch_sync
from qualification.prolific import screening_study_create
from qualification.services import qualification_test_create
from tests.base import BaseTestCase
from tests.designs.fixtures import EVERY_TYPE, full_answer, items_jsonl
from tests.fixtures import released_sample
from tests.hits.helpers import take_screening


class MTurkDesignTests(BaseTestCase):
    def setUp(self):
        self.emulator = MTurkEmulator(seed=3).start()
        self.addCleanup(self.emulator.stop)
        previous = use_provider("mturk", MTurkProvider(self.emulator.client()))
        self.addCleanup(use_provider, "mturk", previous)

    def test_a_design_batch_runs_on_mturk_from_question_to_synced_answers(self):
        version = design_version_save(source=EVERY_TYPE, slug="every")
        records = read_items(items_jsonl(), name="posts.jsonl", design=version.design)
        # One item a HIT: the two items of every type on one page come close to MTurk's 64 KB, closer the longer the
        # items' ids (each field is named by its item's), and are refused over it (tests/hits/test_money.py).
        batch = batch_publish(batch=design_batch_create(version=version, records=records, name="every",
                                                        provider="mturk", items_per_hit=1))
        hit = batch.hits.order_by("index").first()
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


    def test_a_stage_s_outputs_go_out_as_the_next_stage_s_hits_once_the_submission_is_synced(self):
        from designs.items import Record
        from designs.stages import workflow_batches

        source = (settings.BASE_DIR / "designs" / "timetravel.yaml").read_text(encoding="utf-8")
        version = design_version_save(source=source, slug="timetravel")
        story = Record(id="s1", text="Ann planned a picnic in the park.", fields={
            "initial": "The sun was shining all morning.", "ending": ["She packed sandwiches.", "They ate."]})
        write = batch_publish(batch=design_batch_create(version=version, records=[story], name="tales", stage="write",
                                                        provider="mturk", items_per_hit=1))
        check = workflow_batches(write)["check"]
        hit = write.hits.get()
        writer = EmulatedWorker(self.emulator.url, "AWRITER")
        writer.submit(writer.accept(hit.provider_hit_id),
                      {f"a-{hit.ordered_items()[0].pk}-0": "Dark clouds came over the hill."})
        with self.captureOnCommitCallbacks(execute=True):
            batch_sync(batch=Batch.objects.get(pk=write.pk))
        check_hit = check.hits.get()
        self.assertTrue(check_hit.provider_hit_id)  # published at MTurk once the synced submission was stored
        question = self.emulator.account.hits[check_hit.provider_hit_id]["Question"]
        self.assertIn("Dark clouds came over the hill.", question)
        self.assertEqual([worker.external_id for worker in check_hit.ordered_items()[0].excluded_workers.all()],
                         ["AWRITER"])


class ProlificDesignTests(BaseTestCase):
    """A design batch on Prolific (through its emulator): the study lists the design, only participants who
    passed the design's screening test get in, the generic page takes the answers, and the pay reconciles."""

    def setUp(self):
        self.emulator = ProlificEmulator(seed=4).start()
        self.addCleanup(self.emulator.stop)
        self.provider = ProlificProvider(self.emulator.api_url, self.emulator.token, external_url="http://testserver",
                                         complete_url=f"{self.emulator.url}/submissions/complete", backoff=0)
        previous = use_provider("prolific", self.provider)
        self.addCleanup(use_provider, "prolific", previous)

    def test_a_screened_design_batch_runs_on_prolific_from_study_to_reconciled_pay(self):
        version = design_version_save(source=EVERY_TYPE + "qualification: {test: screen, min_score: 80}\n",
                                      slug="every")
        records = read_items(items_jsonl(), name="posts.jsonl", design=version.design)
        with self.assertRaisesRegex(InputError, "screening test 'screen', which this site does not have"):
            design_batch_create(version=version, records=records, name="every", provider="prolific")
        self.assertFalse(Batch.objects.exists())
        test = qualification_test_create(name="screen", path=released_sample())
        screening_study_create(test=test, provider=self.provider, places=4)
        test.refresh_from_db()
        good, poor = EmulatedParticipant(self.emulator.url, "GOOD"), EmulatedParticipant(self.emulator.url, "POOR")
        take_screening(good, test, [True] * 40)
        take_screening(poor, test, [n % 2 == 0 for n in range(40)])

        batch = batch_publish(batch=design_batch_create(version=version, records=records, name="every",
                                                        provider="prolific"))
        self.assertEqual(batch.requirements["qualification"], "screen")
        study = self.emulator.workspace.studies[batch.provider_state["study_id"]]
        self.assertIn("Every scheme type", study["name"])
        self.assertIn("A test study.", study["description"])
        self.assertEqual((study["total_available_places"], study["reward"]), (2, 20))
        with self.assertRaisesRegex(Exception, "not in the allowed participant group"):
            poor.start(batch.provider_state["study_id"])

        session, url = good.start(batch.provider_state["study_id"])
        client = Client()
        arrived = client.get(url.split("http://testserver", 1)[1])
        self.assertEqual(arrived.status_code, 302, arrived.content[:300])
        page = client.get(arrived.url).content.decode()
        self.assertIn('data-type="bws"', page)
        self.assertNotIn("<script>x()</script>", page)
        hit = Assignment.objects.get(provider_assignment_id=session).hit
        fields = {key: value for item in hit.ordered_items()
                  for key, value in full_answer(item.pk, item.content.text).items()}
        done = client.post(arrived.url + "submit/", fields)
        self.assertEqual(done.status_code, 302, done.content[:500])
        self.assertTrue(done.url.startswith(f"{self.emulator.url}/submissions/complete?cc="), done.url)
        good.complete(done.url)
        with self.captureOnCommitCallbacks(execute=True):
            batch_sync(batch=Batch.objects.get(pk=batch.pk))
        assignment = Assignment.objects.get(provider_assignment_id=session)
        first = hit.ordered_items()[0]
        self.assertEqual(assignment.state, "submitted")
        self.assertEqual(assignment.answers[str(first.pk)]["sentiment"], "negative")
        self.assertEqual(assignment.answers[str(first.pk)]["extremes"], {"best": "x", "worst": "z"})
        assignment_approve(assignment=assignment)
        self.assertEqual(self.emulator.workspace.submissions[session].status, "APPROVED")
        self.assertEqual(Payment.objects.get(assignment=assignment, kind="reward").amount, Decimal("0.20"))
        self.assertTrue(batch_reconcile(batch=Batch.objects.get(pk=batch.pk)).clean)
