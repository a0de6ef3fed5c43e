"""Ids typed into a review page's query string or form: a word, "²" (a digit to str.isdigit that int refuses)
or a number past 64 bits finds nothing, never a server error (the database driver cannot bind such a number)."""

from core.ids import LARGEST_ID, object_id
from hits.models import Assignment
from projects.models import Project
from tests.base import BaseTestCase
from tests.hits.helpers import make_batch

ODD = ["99999999999999999999", "²", "abc", "-1", "0", ""]


def test_an_object_id_is_ascii_digits_from_one_to_the_largest_bigint():
    assert [object_id(raw) for raw in ("7", str(LARGEST_ID), str(LARGEST_ID + 1), "²", "٣", " 7", "0", None, 7)] == [
        7, LARGEST_ID, None, None, None, None, None, None, None]


class TypedIdsTest(BaseTestCase):
    def setUp(self):
        self.batch = make_batch(4, items_per_hit=2, assignments_per_hit=1)
        Project.objects.create(slug="ids", name="Ids").batches.add(self.batch)
        self.login(self.organizer)

    def test_review_pages_read_odd_ids_as_none(self):
        for odd in ODD:
            self.assertEqual(self.client.get("/review/spot-checks/", {"batch": odd}).status_code, 200, odd)
            self.assertEqual(self.client.get("/review/spans/", {"worker": odd, "batch": odd}).status_code, 200, odd)
            self.assertEqual(self.client.post("/review/spot-checks/sanction/", {"batch": odd}).status_code, 404, odd)

    def test_a_batch_without_spot_checks_one_reviews_is_said_not_shown_as_another(self):
        page = self.client.get("/review/spot-checks/", {"batch": "99999999999999999999"})
        self.assertContains(page, "Batch 99999999999999999999 has no spot checks you review; showing every "
                                  "batch&#x27;s.")
        self.assertNotContains(self.client.get("/review/spot-checks/"), "has no spot checks you review")

    def test_a_ticked_assignment_past_64_bits_is_not_waiting_for_review(self):
        response = self.client.post(f"/projects/ids/batches/{self.batch.pk}/review/",
                                    {"assignments": ["99999999999999999999", "²"], "decision": "approve"},
                                    follow=True)
        self.assertEqual(response.status_code, 200)
        self.assertContains(response, "assignments:")
        self.assertFalse(Assignment.objects.exists())
