"""Money under concurrency and budgets, with real threads against the Prolific and MTurk emulators, on the
database the run uses (SQLite's IMMEDIATE transactions on the embedded defaults, PostgreSQL's row locks in
the integration run): N requests for one bonus pay it once; no payment path goes past a budget."""

import re
import threading
from decimal import Decimal

import pytest
from django.db import connection
from django.test import Client

from emulators.mturk import MTurkEmulator
from emulators.mturk.worker_client import EmulatedWorker
from emulators.prolific import ProlificEmulator
from emulators.prolific.participant import EmulatedParticipant
from hits.models import Assignment, Payment
from hits.providers import use_provider
from hits.providers.mturk import MTurkProvider
from hits.providers.prolific import ProlificProvider
from hits.reconcile import batch_reconcile
from hits.services import (
    BudgetExceeded,
    PaymentInFlight,
    assignment_approve,
    batch_publish,
    batch_sync,
    worker_bonus,
)
from projects.services import project_create
from tests.hits.helpers import make_batch

pytestmark = pytest.mark.django_db(transaction=True)
RACERS = 8


def _prolific(vat_region, vat):
    emulator = ProlificEmulator(seed=1, vat_region=vat_region).start()
    provider = ProlificProvider(emulator.api_url, emulator.token, external_url="http://testserver",
                                complete_url=f"{emulator.url}/submissions/complete", backoff=0, vat=vat)
    previous = use_provider("prolific", provider)
    yield emulator
    use_provider("prolific", previous)
    emulator.stop()


@pytest.fixture
def prolific():
    """A UK workspace (the default): 20% VAT on every fee."""
    yield from _prolific("uk", Decimal("0.20"))


@pytest.fixture
def prolific_abroad():
    """A workspace outside the EU VAT regime: no VAT."""
    yield from _prolific("none", Decimal(0))


@pytest.fixture
def mturk():
    emulator = MTurkEmulator(seed=1).start()
    previous = use_provider("mturk", MTurkProvider(emulator.client(backoff=False)))
    yield emulator
    use_provider("mturk", previous)
    emulator.stop()


def prolific_work(emulator, budget=None, reward="1.00"):
    """A published Prolific batch and one participant's approved submission: (batch, assignment)."""
    batch = batch_publish(batch=make_batch(count=4, items_per_hit=2, provider="prolific", assignments_per_hit=2,
                                           reward=Decimal(reward), budget=budget))
    participant = EmulatedParticipant(emulator.url, "RACER1")
    session, url = participant.start(batch.provider_state["study_id"])
    client = Client()
    start = client.get(url.split("http://testserver", 1)[1])
    page = client.get(start.url).content.decode()
    done = client.post(start.url + "submit/", {name: "1" for name in re.findall(r'name="(a-\d+-0)" value="1"', page)})
    participant.complete(done.url)
    assignment = Assignment.objects.get(provider_assignment_id=session)
    assignment_approve(assignment=assignment)
    return batch, assignment


def mturk_work(emulator, budget=None):
    batch = batch_publish(batch=make_batch(count=4, items_per_hit=2, provider="mturk", assignments_per_hit=2,
                                           budget=budget))
    worker = EmulatedWorker(emulator.url, "AWORKERRACE")
    hit = batch.hits.first()
    assignment_id = worker.accept(hit.provider_hit_id)
    worker.submit(assignment_id, {f"a-{item.pk}-0": "1" for item in hit.ordered_items()})
    batch_sync(batch=batch)
    assignment = Assignment.objects.get(provider_assignment_id=assignment_id)
    assignment_approve(assignment=assignment)
    return batch, assignment


def race(assignment, amount, reason, count=RACERS):
    """`count` threads ask for the same bonus at the same moment: (payments returned, errors raised)."""
    barrier = threading.Barrier(count)
    paid, refused = [], []

    def ask():
        try:
            mine = Assignment.objects.select_related("worker", "hit__batch").get(pk=assignment.pk)
            barrier.wait()
            paid.append(worker_bonus(worker=mine.worker, assignment=mine, amount=amount, reason=reason))
        except Exception as error:
            refused.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=ask) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return paid, refused


def test_eight_requests_for_one_prolific_bonus_pay_it_once(prolific):
    batch, assignment = prolific_work(prolific)
    prolific.faults.slow("bonus.pay", 0.5)  # the first request holds the payment while the others arrive
    paid, refused = race(assignment, "0.40", "careful work")
    prolific.faults.slow("bonus.pay", 0)
    assert len(paid) >= 1 and len(paid) + len(refused) == RACERS
    assert all(isinstance(error, PaymentInFlight) for error in refused), refused
    assert prolific.workspace.submissions[assignment.provider_assignment_id].bonus_payments == [40]
    assert [bonus.paid for bonus in prolific.workspace.bonuses.values()] == [1]
    bonus = Payment.objects.get(kind="bonus")
    assert (bonus.state, bonus.sending_since) == ("confirmed", None)
    # Asked again once it is paid: the same payment, nothing sent.
    again = worker_bonus(worker=assignment.worker, assignment=assignment, amount="0.40", reason="careful work")
    assert again.pk == bonus.pk and [b.paid for b in prolific.workspace.bonuses.values()] == [1]
    assert batch_reconcile(batch=batch).clean


def test_eight_requests_for_one_mturk_bonus_pay_it_once(mturk):
    batch, assignment = mturk_work(mturk)
    mturk.faults.slow("SendBonus", 0.5)
    paid, refused = race(assignment, "0.30", "gold right")
    mturk.faults.slow("SendBonus", 0)
    assert len(paid) >= 1 and all(isinstance(error, PaymentInFlight) for error in refused), refused
    bonuses = mturk.client(backoff=False).list_bonus_payments(AssignmentId=assignment.provider_assignment_id)
    assert [b["BonusAmount"] for b in bonuses["BonusPayments"]] == ["0.30"]
    assert Payment.objects.filter(kind="bonus", state="confirmed").count() == 1
    assert batch_reconcile(batch=batch).clean


def test_a_bonus_over_the_batch_budget_is_refused_with_the_amounts_and_nothing_is_written(prolific):
    # 4 places at 1.00 + 0.3334 Prolific fee + 0.0667 VAT on it: 5.60 promised when published; 6.00 leaves 0.40.
    _, assignment = prolific_work(prolific, budget=Decimal("6.00"))
    with pytest.raises(BudgetExceeded, match=r"a bonus of 50.00 \(and 20.00 prolific fee with VAT\) on assignment "
                                             r"\d+ would take batch \d+ to 75.60, over its budget of 6.00 \(5.60 spent "
                                             r"or promised already, 0.40 left\)"):
        worker_bonus(worker=assignment.worker, assignment=assignment, amount="50.00", reason="too much")
    assert not Payment.objects.filter(kind="bonus").exists()
    assert prolific.workspace.bonuses == {}
    small = worker_bonus(worker=assignment.worker, assignment=assignment, amount="0.25", reason="fits")  # 0.3501
    assert small.state == "confirmed"
    with pytest.raises(BudgetExceeded, match=r"0\.05 left"):
        worker_bonus(worker=assignment.worker, assignment=assignment, amount="0.10", reason="a little more")


def test_racing_bonuses_under_a_project_budget_never_spend_past_it(prolific):
    # Two batches of one project; the project may spend 12.70: 2 x 5.6004 promised leaves 1.4992, room for one
    # bonus of 1.00 (1.4001 with its fee and the fee's VAT) of the eight asked for at once, each for another reason.
    first, assignment = prolific_work(prolific)
    project = project_create(name="Budgeted", budget=Decimal("12.70"))
    second = batch_publish(batch=make_batch(count=4, items_per_hit=2, provider="prolific", assignments_per_hit=2,
                                            reward=Decimal("1.00")))
    project.batches.add(first, second)
    barrier = threading.Barrier(RACERS)
    outcomes = []

    def ask(number):
        try:
            mine = Assignment.objects.select_related("worker", "hit__batch").get(pk=assignment.pk)
            barrier.wait()
            outcomes.append(worker_bonus(worker=mine.worker, assignment=mine, amount="1.00", reason=f"r{number}"))
        except Exception as error:
            outcomes.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=ask, args=(n,)) for n in range(RACERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    refused = [o for o in outcomes if isinstance(o, Exception)]
    assert len(outcomes) - len(refused) == 1
    assert all(isinstance(error, BudgetExceeded) and f"project {project.slug}" in str(error) for error in refused)
    assert Payment.objects.filter(kind="bonus").count() == 1
    assert prolific.workspace.submissions[assignment.provider_assignment_id].bonus_payments == [100]


def test_prolific_fees_keep_their_fractions_and_are_rounded_once(prolific_abroad):
    # 8.50 a place: Prolific's fee is 283.34 pence, not 283. Three places cost 3 x 11.3334 = 34.0002 -> 34.00
    # (rounding each fee first would give 33.99).
    prolific = prolific_abroad
    batch, assignment = prolific_work(prolific, reward="8.50")
    fee = Payment.objects.get(kind="fee", fee_of__kind="reward")
    assert fee.amount == Decimal("2.8334")
    assert not Payment.objects.filter(kind="vat").exists()  # no VAT outside the EU VAT regime
    from hits.services import cost_estimate

    assert cost_estimate(provider="prolific", hits=1, assignments_per_hit=3, reward="8.50").total == Decimal("34.00")
    for number in range(3):
        worker_bonus(worker=assignment.worker, assignment=assignment, amount="8.50", reason=f"bonus {number}")
    fees = Payment.objects.filter(kind="fee", fee_of__kind="bonus")
    assert sorted(fees.values_list("amount", flat=True)) == [Decimal("2.8334")] * 3  # as Prolific stated them
    bonus_set = next(iter(prolific.workspace.bonuses.values()))
    assert bonus_set.amount == 850
    assert batch_reconcile(batch=batch).clean


def test_vat_on_fees_is_counted_and_the_ledger_matches_prolific_to_the_penny(prolific):
    # A UK workspace: 20% VAT on the fee. 8.50 a place: fee 283.34 pence, VAT 56.67 pence; a bonus of 8.50 the same.
    start = prolific.workspace.balance
    batch, assignment = prolific_work(prolific, reward="8.50")
    reward = Payment.objects.get(kind="reward")
    assert list(charged_amounts(reward)) == [Decimal("8.5000"), Decimal("2.8334"), Decimal("0.5667")]
    from hits.services import cost_estimate

    estimate = cost_estimate(provider="prolific", hits=1, assignments_per_hit=4, reward="8.50")
    assert (estimate.total, estimate.fees, estimate.vat) == (Decimal("47.60"), Decimal("13.60"), Decimal("2.27"))
    bonus = worker_bonus(worker=assignment.worker, assignment=assignment, amount="8.50", reason="careful")
    assert list(charged_amounts(bonus)) == [Decimal("8.5000"), Decimal("2.8334"), Decimal("0.5667")]
    bonus_set = next(iter(prolific.workspace.bonuses.values()))
    # What Prolific took for the bonus, and what the ledger says the bonus cost: the same, to the penny.
    assert Decimal(850) + Decimal("283.34") + Decimal("56.67") == sum(charged_amounts(bonus)) * 100
    assert bonus_set.amount == 850
    # The study's places were set aside at publishing (reward, fee and VAT each); the bonus came out of the rest.
    spent = (start - prolific.workspace.balance) / 100
    study = prolific.workspace.studies[batch.provider_state["study_id"]]
    assert spent == study["_reserved"] / 100 + sum(charged_amounts(reward)) + sum(charged_amounts(bonus))
    assert batch_reconcile(batch=batch).clean
    # The balance Prolific reports splits its fees and VAT at the rate the settings name.
    from hits.providers import get_provider

    assert get_provider("prolific").balance_vat_rate() == Decimal("0.200")


def charged_amounts(payment):
    from hits.services.payments import charged

    return charged(payment).order_by("pk").values_list("amount", flat=True)


def test_the_batch_page_pays_a_bonus_and_refuses_one_over_budget_with_the_amounts(prolific, client):
    from django.contrib.auth.models import User

    from accounts import roles

    batch, assignment = prolific_work(prolific, budget=Decimal("6.00"))
    project = project_create(name="Paid")
    project.batches.add(batch)
    organizer = User.objects.create_user("payer")
    organizer.groups.add(roles.group("organizer"))
    client.force_login(organizer)
    url = f"/projects/{project.slug}/batches/{batch.pk}/bonus/"
    page = client.post(url, {"assignment": assignment.pk, "amount": "50.00", "reason": "too much"}, follow=True)
    assert re.search(r"bonus refused: a bonus of 50.00 \(and 20.00 prolific fee with VAT\) .* over its budget of "
                     r"6.00", page.content.decode())
    assert not Payment.objects.filter(kind="bonus").exists()
    page = client.post(url, {"assignment": assignment.pk, "amount": "0.25", "reason": "careful"}, follow=True)
    assert "Bonus of 0.25 paid to" in page.content.decode()
    assert prolific.workspace.submissions[assignment.provider_assignment_id].bonus_payments == [25]
