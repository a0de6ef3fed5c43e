from decimal import Decimal

from designs.semeval import labeling_batch_create
from hits.models import Batch, HitItem
from hits.providers.inhouse import InHouseProvider
from hits.providers.mturk import MTurkProvider
from hits.services import BatchSpec, BudgetExceeded, CrowdError, batch_create, batch_estimate_cost, batch_publish
from tests.base import BaseTestCase
from tests.hits.helpers import gold, items, make_batch


class BatchCreateTests(BaseTestCase):
    def test_it_packs_items_into_even_hits_with_domains_interleaved(self):
        batch = make_batch(count=130, items_per_hit=25)
        sizes = [hit.hit_items.count() for hit in batch.hits.all()]
        self.assertEqual(sizes, [22, 22, 22, 22, 21, 21])
        first = batch.hits.first().ordered_items()
        groups = [item.group for item in sorted(first, key=lambda i: i.key)]
        self.assertEqual(set(groups), {"finance", "healthcare", "politics"})
        self.assertEqual(HitItem.objects.filter(hit__batch=batch).count(), 130)

    def test_it_mixes_gold_items_into_every_hit(self):
        batch = labeling_batch_create(name="b", items=items(100), gold_items=gold(10),
                             items_per_hit=25, gold_rate=0.1)
        for hit in batch.hits.all():
            members = hit.ordered_items()
            self.assertEqual(sum(item.is_gold for item in members), 2)
            self.assertLessEqual(len(members), 25)
            self.assertEqual(len({item.pk for item in members}), len(members))

    def test_it_is_deterministic_with_a_seed(self):
        def layout(seed):
            batch = labeling_batch_create(name="b", items=items(60), gold_items=gold(6), gold_rate=0.1,
                                 seed=seed)
            return [[item.key for item in hit.ordered_items()] for hit in batch.hits.all()]

        self.assertEqual(layout(7), layout(7))
        self.assertNotEqual(layout(7), layout(8))

    def test_it_refuses_bad_batches(self):
        with self.assertRaisesRegex(CrowdError, "unknown task type 'subtask9'"):
            batch_create(spec=BatchSpec(name="b", task_type="subtask9"), items=items(3))
        with self.assertRaisesRegex(CrowdError, "keys must be unique"):
            labeling_batch_create(name="b", items=items(3) + items(1))
        with self.assertRaisesRegex(CrowdError, "at least one item"):
            labeling_batch_create(name="b", items=[])
        self.assertFalse(Batch.objects.exists())


class CostTests(BaseTestCase):
    def test_it_applies_mturk_fee_rules(self):
        mturk = MTurkProvider(client=None)
        self.assertEqual(mturk.cost_per_assignment(Decimal("0.50"), 5), Decimal("0.60"))
        self.assertEqual(mturk.cost_per_assignment(Decimal("0.50"), 10), Decimal("0.70"))
        self.assertEqual(mturk.cost_per_assignment(Decimal("0.50"), 5, masters=True), Decimal("0.63"))
        self.assertEqual(mturk.cost_per_assignment(Decimal("0.02"), 5), Decimal("0.03"))  # the 1-cent minimum
        self.assertEqual(mturk.cost_per_assignment(Decimal("0.125"), 5), Decimal("0.16"))  # half-up rounding
        self.assertEqual(mturk.cost_of_bonus(Decimal("1.00")), Decimal("1.20"))
        self.assertEqual(InHouseProvider().cost_per_assignment(Decimal("0.50"), 10), Decimal("0.50"))

    def test_it_refuses_to_publish_over_budget(self):
        batch = make_batch(count=50, reward=Decimal("0.50"), budget=Decimal("9.99"))  # 2 HITs x 5 x 0.50 = 5.00
        self.assertEqual(batch_estimate_cost(batch=batch), Decimal("5.00"))
        batch.budget = Decimal("4.99")
        batch.save()
        with self.assertRaisesRegex(BudgetExceeded, r"for 5.00 .* to 5.00, over its budget of 4.99"):
            batch_publish(batch=batch)
        self.assertFalse(batch.hits.exclude(provider_hit_id="").exists())


class GoldCycleTests(BaseTestCase):
    def test_it_uses_each_gold_item_once_before_repeating(self):
        batch = labeling_batch_create(name="b", items=items(88), gold_items=gold(9), items_per_hit=25,
                             gold_rate=0.12)  # 4 HITs x 3 gold = 12 uses of a pool of 9
        uses = {}
        for hit in batch.hits.all():
            members = [item for item in hit.ordered_items() if item.is_gold]
            self.assertEqual(len(members), 3)
            self.assertEqual(len(set(members)), 3)
            for item in members:
                uses[item.key] = uses.get(item.key, 0) + 1
        self.assertEqual(len(uses), 9)
        self.assertEqual(sorted(uses.values()), [1] * 6 + [2] * 3)
