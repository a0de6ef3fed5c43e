from datetime import timedelta
from decimal import Decimal

from django.test import Client
from django.urls import reverse
from django.utils import timezone

from hits.models import Assignment, Batch, Hit, Payment
from hits.services import (
    CrowdError,
    assignment_approve,
    assignment_claim,
    assignment_draft_save,
    assignment_extend,
    assignment_return,
    assignment_submit,
    assignments_expire_overdue,
    batch_publish,
    batch_sync,
    worker_block,
    worker_bonus,
    worker_for_user,
)
from tests.base import BaseTestCase
from tests.hits.helpers import answers_for, make_batch, voted


class InHouseTestCase(BaseTestCase):
    def setUp(self):
        self.batch = batch_publish(batch=make_batch(count=50, assignments_per_hit=2))
        self.worker = worker_for_user(self.annotator)

    def claim_over_http(self, client):
        response = client.post(reverse("hits:claim", args=[self.batch.pk]))
        self.assertEqual(response.status_code, 302)
        return Assignment.objects.get(pk=int(response.url.rstrip("/").split("/")[-1]))


class ClaimAndSubmitTests(InHouseTestCase):
    def test_it_takes_an_annotator_from_claim_to_stored_votes_over_http(self):
        client = Client(enforce_csrf_checks=True)
        client.force_login(self.annotator)
        client.get(reverse("hits:work_list"))
        token = client.cookies["csrftoken"].value
        response = client.post(reverse("hits:claim", args=[self.batch.pk]), HTTP_X_CSRFTOKEN=token)
        assignment = Assignment.objects.get(worker=self.worker)
        self.assertEqual(response.url, reverse("hits:assignment", args=[assignment.pk]))
        page = client.get(response.url)
        self.assertContains(page, "Sentence")
        self.assertContains(page, "&lt;b&gt;bold&lt;/b&gt;")  # sentence text is escaped, never markup
        answers = answers_for(assignment.hit, "0")
        response = client.post(reverse("hits:submit", args=[assignment.pk]), {**answers, "csrfmiddlewaretoken": token})
        self.assertEqual(response.status_code, 302)
        assignment.refresh_from_db()
        self.assertEqual(assignment.state, "submitted")
        self.assertEqual(len(assignment.answers), assignment.hit.hit_items.count())
        self.assertEqual(set(voted(assignment.answers)), {0})

    def test_it_enforces_csrf_on_in_house_posts(self):
        client = Client(enforce_csrf_checks=True)
        client.force_login(self.annotator)
        self.assertEqual(client.post(reverse("hits:claim", args=[self.batch.pk])).status_code, 403)
        self.assertFalse(Assignment.objects.exists())

    def test_it_stores_a_replayed_submission_once(self):
        self.login(self.annotator)
        assignment = self.claim_over_http(self.client)
        url = reverse("hits:submit", args=[assignment.pk])
        self.client.post(url, answers_for(assignment.hit, "1"))
        self.client.post(url, answers_for(assignment.hit, "0"))  # replay with other answers
        assignment.refresh_from_db()
        self.assertEqual(set(voted(assignment.answers)), {1})
        self.assertEqual(Assignment.objects.filter(worker=self.worker).count(), 1)

    def test_it_refuses_a_submission_for_somebody_elses_assignment(self):
        self.login(self.annotator)
        assignment = self.claim_over_http(self.client)
        other = Client()
        other.force_login(self.organizer)
        response = other.post(reverse("hits:submit", args=[assignment.pk]), answers_for(assignment.hit))
        self.assertEqual(response.status_code, 404)  # not theirs: not found, as if it did not exist
        self.assertEqual(other.get(reverse("hits:assignment", args=[assignment.pk])).status_code, 404)
        assignment.refresh_from_db()
        self.assertEqual(assignment.state, "claimed")

    def test_it_refuses_incomplete_or_foreign_answers(self):
        self.login(self.annotator)
        assignment = self.claim_over_http(self.client)
        answers = answers_for(assignment.hit)
        dropped = answers.copy()
        dropped.popitem()
        response = self.client.post(reverse("hits:submit", args=[assignment.pk]), dropped)
        # Said by the number the worker sees, with every answer given kept on the page.
        self.assertContains(response, f"Sentence {len(answers)} (counterfactual): not answered yet", status_code=400)
        self.assertContains(response, "Your answers are still here", status_code=400)
        self.assertContains(response, f'"{next(iter(dropped))}": "1"', status_code=400)
        response = self.client.post(reverse("hits:submit", args=[assignment.pk]), {**answers, "a-999999-0": "1"})
        self.assertContains(response, "not in this HIT", status_code=400)
        bad = {**answers, next(iter(answers)): "maybe"}
        response = self.client.post(reverse("hits:submit", args=[assignment.pk]), bad)
        self.assertContains(response, "&#x27;maybe&#x27; is not one of the labels", status_code=400)

    def test_it_refuses_outsiders_and_researchers(self):
        for user in (self.outsider, self.researcher):
            self.login(user)
            self.assertEqual(self.client.post(reverse("hits:claim", args=[self.batch.pk])).status_code, 403)
        self.client.logout()
        self.assertEqual(self.client.get(reverse("hits:work_list")).status_code, 302)


class RulesTests(InHouseTestCase):
    def test_it_never_gives_a_worker_two_places_in_one_hit(self):
        first = assignment_claim(batch=self.batch, worker=self.worker)
        assignment_submit(assignment=first, worker=self.worker, raw_answers=answers_for(first.hit))
        second = assignment_claim(batch=self.batch, worker=self.worker)
        self.assertNotEqual(first.hit_id, second.hit_id)
        assignment_submit(assignment=second, worker=self.worker, raw_answers=answers_for(second.hit))
        self.assertIsNone(assignment_claim(batch=self.batch, worker=self.worker))  # 2 HITs, both done

    def test_taking_a_hit_while_holding_one_reopens_the_one_held(self):
        first = assignment_claim(batch=self.batch, worker=self.worker)
        self.assertEqual(assignment_claim(batch=self.batch, worker=self.worker).pk, first.pk)
        self.assertEqual(Assignment.objects.filter(worker=self.worker).count(), 1)

    def test_a_returned_hit_goes_back_to_the_pool_but_not_to_the_worker_who_returned_it(self):
        first = assignment_claim(batch=self.batch, worker=self.worker)
        assignment_draft_save(assignment=first, worker=self.worker, fields={"item-1": "1"})
        assignment_return(assignment=first, worker=self.worker)
        first.refresh_from_db()
        self.assertEqual((first.state, first.returned, first.draft), ("expired", True, None))
        with self.assertRaisesRegex(CrowdError, "you returned this HIT"):
            assignment_submit(assignment=first, worker=self.worker, raw_answers=answers_for(first.hit))
        other = worker_for_user(self.organizer)
        self.assertEqual(assignment_claim(batch=self.batch, worker=other).hit_id, first.hit_id)  # the place is free
        self.assertNotEqual(assignment_claim(batch=self.batch, worker=self.worker).hit_id, first.hit_id)

    def test_more_time_is_given_twice_at_most_and_only_in_time(self):
        assignment = assignment_claim(batch=self.batch, worker=self.worker)
        deadline = assignment.deadline
        assignment_extend(assignment=assignment, worker=self.worker)
        assignment_extend(assignment=assignment, worker=self.worker)
        assignment.refresh_from_db()
        self.assertEqual(assignment.deadline - deadline, timedelta(minutes=60))  # 2 x half of an hour
        with self.assertRaisesRegex(CrowdError, "more time 2 times already"):
            assignment_extend(assignment=assignment, worker=self.worker)
        late = assignment_claim(batch=self.batch, worker=worker_for_user(self.organizer))
        Assignment.objects.filter(pk=late.pk).update(deadline=timezone.now() - timedelta(seconds=1))
        late.refresh_from_db()
        with self.assertRaisesRegex(CrowdError, "ran out"):
            assignment_extend(assignment=late, worker=late.worker)

    def test_it_fills_each_hit_to_its_assignments_and_no_more(self):
        workers = [worker_for_user(user) for user in (self.annotator, self.organizer, self.researcher, self.outsider)]
        claimed = []
        for worker in workers:
            for _ in range(2):
                assignment = assignment_claim(batch=self.batch, worker=worker)
                claimed.append(assignment)
                if assignment is not None:
                    assignment_submit(assignment=assignment, worker=worker, raw_answers=answers_for(assignment.hit))
        per_hit = {hit.pk: hit.assignments.exclude(state="expired").count() for hit in self.batch.hits.all()}
        self.assertEqual(set(per_hit.values()), {2})
        self.assertEqual(sum(a is not None for a in claimed), 4)

    def test_it_frees_places_whose_time_ran_out(self):
        assignment = assignment_claim(batch=self.batch, worker=self.worker)
        Assignment.objects.filter(pk=assignment.pk).update(deadline=timezone.now() - timedelta(seconds=1))
        self.assertEqual(assignments_expire_overdue(), 1)
        with self.assertRaisesRegex(CrowdError, "time for this HIT ran out"):
            assignment_submit(assignment=assignment, worker=self.worker, raw_answers=answers_for(assignment.hit))
        again = assignment_claim(batch=self.batch, worker=self.worker)
        self.assertEqual(again.hit_id, assignment.hit_id)

    def test_a_claim_whose_time_ran_out_holds_no_place_before_the_sweep(self):
        first, second, third = (worker_for_user(user) for user in (self.annotator, self.organizer, self.researcher))
        late = assignment_claim(batch=self.batch, worker=first)
        Assignment.objects.filter(pk=late.pk).update(deadline=timezone.now() - timedelta(seconds=1))
        beside = assignment_claim(batch=self.batch, worker=second)
        self.assertEqual(beside.hit_id, late.hit_id)  # the HIT's second place
        taken = assignment_claim(batch=self.batch, worker=third)
        self.assertEqual(taken.hit_id, late.hit_id)  # the late claim's place, not the next HIT
        late.refresh_from_db()
        self.assertEqual(late.state, "expired")
        self.assertEqual(Assignment.objects.filter(hit=late.hit).exclude(state="expired").count(), 2)

    def test_the_page_of_a_claim_whose_time_ran_out_expires_it_and_says_so(self):
        assignment = assignment_claim(batch=self.batch, worker=self.worker)
        Assignment.objects.filter(pk=assignment.pk).update(deadline=timezone.now() - timedelta(seconds=1))
        client = Client()
        client.force_login(self.annotator)
        page = client.get(reverse("hits:assignment", args=[assignment.pk]))
        self.assertEqual(page.status_code, 410)
        self.assertContains(page, "ran out", status_code=410)
        assignment.refresh_from_db()
        self.assertEqual(assignment.state, "expired")

    def test_it_refuses_a_blocked_worker_at_claim_and_at_submit(self):
        assignment = assignment_claim(batch=self.batch, worker=self.worker)
        worker_block(worker=self.worker, reason="random answers")
        with self.assertRaisesRegex(CrowdError, "blocked"):
            assignment_claim(batch=self.batch, worker=self.worker)
        with self.assertRaisesRegex(CrowdError, "blocked"):
            assignment_submit(assignment=assignment, worker=self.worker, raw_answers=answers_for(assignment.hit))

    def test_it_completes_hits_and_the_batch_and_counts_money(self):
        workers = [worker_for_user(user) for user in (self.annotator, self.organizer)]
        for worker in workers:
            while (assignment := assignment_claim(batch=self.batch, worker=worker)) is not None:
                assignment_submit(assignment=assignment, worker=worker, raw_answers=answers_for(assignment.hit))
        batch_sync(batch=self.batch)
        self.batch.refresh_from_db()
        self.assertEqual(self.batch.state, "completed")
        self.assertEqual(set(Hit.objects.values_list("state", flat=True)), {"completed"})
        for assignment in Assignment.objects.all():
            assignment_approve(assignment=assignment)
        first = Assignment.objects.first()
        worker_bonus(worker=first.worker, assignment=first, amount="0.25", reason="careful work")
        worker_bonus(worker=first.worker, assignment=first, amount="0.25", reason="careful work")  # not twice
        bonus = first.payments.get(kind="bonus")
        self.assertEqual((bonus.amount, bonus.state), (Decimal("0.25"), "confirmed"))
        self.assertEqual(self.batch.spent(), 4 * self.batch.reward + bonus.amount)
        rewards = Payment.objects.filter(batch=self.batch, kind="reward", state="confirmed")
        self.assertEqual(rewards.count(), 4)


class FinishedBatchTests(InHouseTestCase):
    def test_claiming_from_a_finished_batch_goes_back_to_the_list_with_a_note(self):
        self.login(self.annotator)
        Batch.objects.filter(pk=self.batch.pk).update(state=Batch.State.COMPLETED)
        response = self.client.post(reverse("hits:claim", args=[self.batch.pk]), follow=True)
        self.assertRedirects(response, reverse("hits:work_list"))
        self.assertContains(response, f"{self.batch.name} is completed: no HIT of it is left.")
        self.assertFalse(Assignment.objects.exists())
