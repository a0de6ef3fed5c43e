"""Places and statuses follow Prolific: a participant who returns after submitting, rejections that open a place,
time-outs and screen-outs kept apart, the count of places taken equal to Prolific's after every sync, a study
stopped in every status, and a participant's page that never waits out a retry loop."""

from datetime import timedelta
from decimal import Decimal

from django.test import Client, override_settings

from designs.export import answer_rows
from emulators.prolific.participant import EmulatedParticipant
from hits.models import Assignment, Batch, Payment, Withdrawal
from hits.reconcile import batch_reconcile
from hits.services import (
    CrowdError,
    assignment_approve,
    assignment_reject,
    batch_cancel,
    batch_expire,
    batch_sync,
)
from tests.hits.test_prolific import ProlificTestCase

REJECTION = ("Every known-answer check in this HIT was answered wrongly and all answers came within seconds, so "
             "they cannot be used.")


class ReturnAfterSubmitting(ProlificTestCase):
    def test_work_returned_after_submitting_is_withdrawn_and_its_place_goes_to_the_next(self):
        batch = self.publish(count=2, items_per_hit=2, assignments_per_hit=1)  # one place in all
        participant, session, _ = self.take_part(batch, "PBACK")
        assignment = Assignment.objects.get(provider_assignment_id=session)
        answers = assignment.answers
        self.assertEqual(len(list(answer_rows(batch))), 2)
        self.assertEqual(Batch.objects.get(pk=batch.pk).state, "completed")
        participant.give_back(batch.provider_state["study_id"])  # "return and cancel reward" on Prolific
        report = batch_sync(batch=batch)
        self.assertEqual(report.withdrawn, 1)
        assignment.refresh_from_db()
        self.assertEqual((assignment.state, assignment.answers), ("withdrawn", None))
        withdrawal = Withdrawal.objects.get(assignment=assignment)
        self.assertEqual((withdrawal.answers, withdrawal.reason), (answers, "returned at prolific after submitting"))
        self.assertEqual(list(answer_rows(batch)), [])  # out of every export, label and count
        self.assertEqual(Batch.objects.get(pk=batch.pk).state, "published")  # open again
        with self.assertRaisesRegex(CrowdError, r"withdrawn by its worker on .* \(returned at prolific after "
                                                r"submitting\): the provider pays nothing .* cannot be approved"):
            assignment_approve(assignment=assignment)
        self.assertFalse(Payment.objects.filter(assignment=assignment).exists())
        # The place is Prolific's to give again, and the next participant gets it.
        _, second, _ = self.take_part(batch, "PNEXT")
        self.assertEqual(Assignment.objects.get(provider_assignment_id=second).state, "submitted")
        report = batch_reconcile(batch=batch)
        self.assertTrue(report.clean, report.differences)
        self.assertEqual(len(report.notes), 1)
        self.assertIn(f"assignment {assignment.pk} of prolific:PBACK was withdrawn", report.notes[0])

    def test_approving_before_the_sync_saw_the_return_cancels_the_reward_and_says_why(self):
        batch = self.publish(count=2, items_per_hit=2, assignments_per_hit=1)
        participant, session, _ = self.take_part(batch, "PLATE")
        participant.give_back(batch.provider_state["study_id"])
        assignment = Assignment.objects.get(provider_assignment_id=session)
        self.assertEqual(assignment.state, "submitted")  # no sync yet
        with self.assertRaisesRegex(CrowdError, "withdrawn by its worker .* cannot be approved"):
            assignment_approve(assignment=assignment)
        assignment.refresh_from_db()
        self.assertEqual(assignment.state, "withdrawn")
        # The reward written as an intent before Prolific was asked is cancelled, with its fee and VAT.
        self.assertEqual(set(Payment.objects.filter(assignment=assignment).values_list("kind", "state")),
                         {("reward", "failed"), ("fee", "failed"), ("vat", "failed")})
        with self.assertRaisesRegex(CrowdError, "cannot be rejected"):
            assignment_reject(assignment=assignment, feedback=REJECTION, category="FAILED_CHECK")
        self.assertTrue(batch_reconcile(batch=batch).clean)

    def test_the_batch_page_shows_withdrawn_work(self):
        from projects.services import project_create

        batch = self.publish(count=2, items_per_hit=2, assignments_per_hit=1)
        participant, _, _ = self.take_part(batch, "PPAGE")
        participant.give_back(batch.provider_state["study_id"])
        batch_sync(batch=batch)
        project = project_create(name="Returns")
        project.batches.add(batch)
        client = Client()
        client.force_login(self.organizer)
        page = client.get(f"/projects/{project.slug}/batches/{batch.pk}/").content.decode()
        self.assertIn("Withdrawn by their worker", page)
        self.assertIn("PPAGE", page)
        self.assertIn("returned at prolific after submitting", page)


class PlacesFollowProlific(ProlificTestCase):
    def assert_places_match(self, batch):
        report = batch_sync(batch=batch)
        study = self.emulator.workspace.study(batch.provider_state["study_id"])
        here = Assignment.objects.filter(hit__batch=batch).live().count()
        self.assertEqual(here, study["places_taken"], report.places)
        self.assertFalse(report.places_differ)
        return report

    def test_the_count_of_places_taken_equals_prolifics_after_every_sync_whatever_the_statuses(self):
        batch = self.publish(count=4, items_per_hit=2, assignments_per_hit=4)  # 2 HITs of 4 places: 8 in all
        study = batch.provider_state["study_id"]
        approved = self.take_part(batch, "PA")[1]
        rejected = self.take_part(batch, "PR")[1]
        returned_late = self.take_part(batch, "PL")
        self.assert_places_match(batch)
        EmulatedParticipant(self.emulator.url, "PW").start(study)  # took a place there, not arrived here yet
        report = self.assert_places_match(batch)
        self.assertEqual(report.held, 1)  # held here too, for them
        working = EmulatedParticipant(self.emulator.url, "PX")
        working.start(study)
        screened = EmulatedParticipant(self.emulator.url, "PS")
        screened.start(study)
        slow = self.arrive(batch, "PT")[1]
        self.assertEqual(self.assert_places_match(batch).held, 2)  # PX and PS, held here before they arrive
        working.give_back(study)  # returned before submitting
        screened.screened_out(study)
        self.assert_places_match(batch)
        assignment_approve(assignment=Assignment.objects.get(provider_assignment_id=approved))
        assignment_reject(assignment=Assignment.objects.get(provider_assignment_id=rejected), feedback=REJECTION,
                          category="FAILED_CHECK")
        returned_late[0].give_back(study)
        self.clock.now += timedelta(hours=5)  # PT and PW time out
        self.assert_places_match(batch)
        ended = dict(Assignment.objects.filter(hit__batch=batch).values_list("worker__external_id", "ended"))
        # Each ending keeps its own meaning: given back, never finished, or did not fit the study.
        self.assertEqual((ended["PX"], ended["PT"], ended["PS"], ended["PW"]),
                         ("returned", "timed out", "screened out", "timed out"))
        states = dict(Assignment.objects.filter(hit__batch=batch).values_list("worker__external_id", "state"))
        self.assertEqual((states["PA"], states["PR"], states["PL"], states["PT"]),
                         ("approved", "rejected", "withdrawn", "expired"))
        self.assertTrue(Assignment.objects.get(provider_assignment_id=rejected).place_freed)
        self.assertEqual(Assignment.objects.get(provider_assignment_id=slow).ended, "timed out")
        self.assertTrue(batch_reconcile(batch=batch).clean)

    def test_a_rejected_submissions_place_is_offered_to_the_next_participant(self):
        batch = self.publish(count=2, items_per_hit=2, assignments_per_hit=1)  # one place
        session = self.take_part(batch, "PREJ", value="0")[1]
        assignment_reject(assignment=Assignment.objects.get(provider_assignment_id=session), feedback=REJECTION,
                          category="FAILED_CHECK")
        # Prolific opened a new place for it; after the sync so does this site, and the next one takes it.
        self.assertEqual(self.emulator.workspace.study(batch.provider_state["study_id"])["status"], "ACTIVE")
        batch_sync(batch=batch)
        second = self.take_part(batch, "PNEW")[1]
        self.assertEqual(Assignment.objects.get(provider_assignment_id=second).state, "submitted")
        rejected = Assignment.objects.get(provider_assignment_id=session)
        self.assertEqual((rejected.state, rejected.place_freed), ("rejected", True))  # the work is kept

    def test_a_participant_who_times_out_after_submitting_keeps_the_work_for_a_person_and_frees_the_place(self):
        batch = self.publish(count=2, items_per_hit=2, assignments_per_hit=1)
        _, session, client, response = self.arrive(batch, "PNOCODE")
        page = client.get(response.url).content.decode()
        import re

        client.post(response.url + "submit/", {name: "1" for name in re.findall(r'name="(a-\d+-0)" value="1"',
                                                                                   page)})
        # ... and never goes back to Prolific with the code: Prolific times them out.
        self.clock.now += timedelta(hours=5)
        self.assert_places_match(batch)
        assignment = Assignment.objects.get(provider_assignment_id=session)
        self.assertEqual((assignment.state, assignment.place_freed, assignment.ended),
                         ("submitted", True, "timed out"))
        self.assertIn("timed out at prolific after the work was submitted here", assignment.flag)


class StudiesStop(ProlificTestCase):
    def test_expiring_or_cancelling_stops_the_study_in_every_status_that_is_not_final(self):
        cases = {"ACTIVE": lambda study: None,
                 "PAUSED": lambda study: self.provider._call("POST", f"studies/{study}/transition/",
                                                             {"action": "PAUSE"}),
                 "AWAITING REVIEW": lambda study: self.take_part(Batch.objects.get(provider_state__study_id=study),
                                                                 f"PFULL{len(study)}")}
        for status, reach in cases.items():
            for close in (batch_expire, batch_cancel):
                with self.subTest(status=status, close=close.__name__):
                    batch = self.publish(count=2, items_per_hit=2, assignments_per_hit=1)
                    study = batch.provider_state["study_id"]
                    reach(study)
                    self.assertEqual(self.emulator.workspace.study(study)["status"], status)
                    close(batch=batch)
                    found = self.emulator.workspace.study(study)
                    self.assertTrue(self.emulator.workspace.studies[study]["_stopped"])
                    self.assertIn(found["status"], ("AWAITING REVIEW", "COMPLETED"))

    def test_a_return_after_the_batch_expired_does_not_open_the_study_again(self):
        batch = self.publish(count=2, items_per_hit=2, assignments_per_hit=1)
        participant, _, _ = self.take_part(batch, "PSTOP")
        batch_expire(batch=batch)
        participant.give_back(batch.provider_state["study_id"])
        self.assertIn(self.emulator.workspace.study(batch.provider_state["study_id"])["status"],
                      ("AWAITING REVIEW", "COMPLETED"))  # not ACTIVE again: nobody new takes a place
        batch_sync(batch=batch)
        self.assertEqual(Batch.objects.get(pk=batch.pk).state, "expired")


class BusyProlific(ProlificTestCase):
    @override_settings(PROLIFIC_PAGE_SECONDS=1)
    def test_a_participants_page_says_prolific_is_busy_and_a_sync_holds_their_place(self):
        batch = self.publish(count=2, items_per_hit=2, assignments_per_hit=1)
        self.emulator.faults.retry_after = "30"
        self.emulator.faults.set({"submissions.get": {"throttle": 1.0}})
        participant = EmulatedParticipant(self.emulator.url, "PBUSY")
        session, url = participant.start(batch.provider_state["study_id"])
        client = Client()
        with self.captureOnCommitCallbacks(execute=False) as queued:
            response = client.get(url.split("http://testserver", 1)[1])
        self.assertContains(response, "Prolific is busy right now", status_code=503)
        self.assertEqual(response["Retry-After"], "60")
        self.assertFalse(Assignment.objects.filter(provider_assignment_id=session).exists())
        with self.captureOnCommitCallbacks(execute=True):
            for callback in queued:
                callback()  # the background sync: Prolific's study list names the participant's place
        held = Assignment.objects.get(provider_assignment_id=session)
        self.assertEqual((held.worker.external_id, held.state), ("PBUSY", "claimed"))
        # Back a minute later: their place, without asking Prolific about the link again.
        again = client.get(url.split("http://testserver", 1)[1])
        self.assertEqual(again.status_code, 302)
        self.assertTrue(again.url.endswith(f"/work/assignments/{held.pk}/"))
        self.emulator.faults.set({})


class ProlificVat(ProlificTestCase):
    def test_estimates_count_vat_by_where_the_workspace_is_registered(self):
        from hits.providers.prolific import vat_rate

        self.assertEqual(vat_rate("uk", True, Decimal("0.19")), Decimal("0.20"))
        self.assertEqual(vat_rate("eu", False, Decimal("0.19")), Decimal("0.19"))
        self.assertEqual(vat_rate("eu", True, Decimal("0.19")), Decimal(0))
        self.assertEqual(vat_rate("none", False, Decimal("0.19")), Decimal(0))
        self.assertEqual(self.provider.cost_per_assignment(Decimal("1.00"), 5), Decimal("1.4001"))

    def test_reconcile_says_when_prolific_charges_vat_the_settings_leave_out(self):
        batch = self.publish(count=2, items_per_hit=2, assignments_per_hit=1)
        self.provider.vat_rate = Decimal(0)  # settings say: outside the EU VAT regime; Prolific charges 20%
        report = batch_reconcile(batch=batch)
        self.assertEqual([d["kind"] for d in report.differences], ["money differs"])
        self.assertIn("charges VAT of 20% on its fees and the settings say 0%: set PROLIFIC_VAT_REGION",
                      report.differences[0]["what"])
