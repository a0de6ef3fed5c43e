"""A model as one more voter in a live adaptive batch under SemEval's 100%/80% rule: an item stops where the model
and the first people settle it, the rest gets the full crowd, and the aggregation decides each as it stopped."""

import io
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command

from aggregation.maths import DISCARDED, NEGATIVE_100, POSITIVE
from aggregation.report import write_report
from aggregation.services import batch_aggregate, run_staleness, settled_items
from core.items import SentenceItem
from designs.compare import compare
from designs.model_votes import model_votes, model_votes_start, model_votes_stop
from designs.models import DesignBatch, OutsideAnswer
from designs.semeval import labeling_batch_create
from hits.models import Assignment, Hit, Worker
from hits.services import CrowdError, ItemSpec, assignment_approve, assignment_claim, assignment_submit, batch_publish
from hits.task_types import get_task_type
from projects.services import project_create
from tests.base import BaseTestCase
from tests.hits.helpers import spec

MODEL = "tiny @ 127.0.0.1 · prompt abc"


def _batch(adaptive="outcomes"):
    items = [spec(f"s{n}", f"Sentence {n}.", group="finance") for n in range(8)]
    return batch_publish(batch=labeling_batch_create(name="with a model", items=items, items_per_hit=4,
                                                     assignments_per_hit=5, adaptive=adaptive,
                                                     reward=Decimal("0.40")))


def _model(batch, says, confidence=0.95):
    """The model's answers: `says(item)` is "1" or "0", with a confidence."""
    scheme = get_task_type(batch.task_type).label_key(batch)
    for item in batch.items.all():
        OutsideAnswer.objects.create(batch=batch, item=item, source=OutsideAnswer.MODEL, annotator=MODEL,
                                     answers={scheme: says(item)}, meta={"confidence": {scheme: confidence}})


def _work(batch, name, no=()):
    worker, _ = Worker.objects.get_or_create(provider="inhouse", external_id=name)
    assignment = assignment_claim(batch=batch, worker=worker)
    if assignment is None:
        return None
    assignment_submit(assignment=assignment, worker=worker, raw_answers={
        f"a-{item.pk}-0": "0" if item.pk in no else "1" for item in assignment.hit.ordered_items()})
    return assignment.hit


@pytest.mark.django_db
def test_the_model_and_four_people_settle_a_positive_and_the_hit_takes_no_fifth_vote():
    batch = _batch()
    first, second = batch.hits.order_by("index")
    doubted = min(first.items.values_list("pk", flat=True))
    # The model says yes to every item but one of the first HIT, where it is unsure (below the gate).
    _model(batch, lambda item: "1")
    scheme = get_task_type(batch.task_type).label_key(batch)
    OutsideAnswer.objects.filter(item_id=doubted).update(meta={"confidence": {scheme: 0.5}})
    settings = model_votes_start(batch=batch)
    assert settings == {"annotator": MODEL, "min_confidence": 0.9, "min_people": 1}
    for name in ("w1", "w2", "w3", "w4"):
        assert _work(batch, name) == first
    # Four people's yes and the model's settle three of the first HIT's items as positives: most of the HIT is
    # settled, so it is retired after four places; the doubted item waits for the full crowd.
    first.refresh_from_db()
    assert (first.places, first.state) == (4, Hit.State.COMPLETED)
    settled = settled_items(batch)
    assert set(first.items.values_list("pk", flat=True)) - settled == {doubted}
    # Without the model nothing is settled by four yes: a positive needs five.
    model_votes_stop(batch=batch)
    assert settled_items(batch) == set()
    model_votes_start(batch=batch)
    run = batch_aggregate(batch=batch, samples=0)
    outcomes = dict(run.outcomes.values_list("item_id", "outcome"))
    assert {outcomes[pk] for pk in settled} == {POSITIVE}
    assert outcomes[doubted] == "pending"  # four people, and a model vote that does not count
    assert second.pk and run.summary["outcomes"][POSITIVE] == 3


@pytest.mark.django_db
def test_an_item_the_full_crowd_answers_is_the_peoples_alone_and_the_model_can_only_stop_it_early():
    # The model says no to everything; people say yes to everything.
    waits = _batch()
    _model(waits, lambda item: "0")
    model_votes_start(batch=waits, min_people=5)  # its vote never counts before five people: the full crowd
    first = waits.hits.order_by("index").first()
    for name in ("w1", "w2", "w3", "w4", "w5"):
        assert _work(waits, name) == first
    outcomes = dict(batch_aggregate(batch=waits, samples=0).outcomes.values_list("item_id", "outcome"))
    assert {outcomes[pk] for pk in first.items.values_list("pk", flat=True)} == {POSITIVE}  # five people's yes
    # Counted after one person, its no and two people's yes settle an item as discarded (two yes and a no can be
    # neither positive nor negative): the HIT stops at two places, and the outcome is the one it stopped at.
    early = _batch()
    _model(early, lambda item: "0")
    model_votes_start(batch=early)
    first = early.hits.order_by("index").first()
    assert [_work(early, name) for name in ("w1", "w2")] == [first, first]
    first.refresh_from_db()
    assert (first.places, first.state) == (2, Hit.State.COMPLETED)
    outcomes = dict(batch_aggregate(batch=early, samples=0).outcomes.values_list("item_id", "outcome"))
    assert {outcomes[pk] for pk in first.items.values_list("pk", flat=True)} == {DISCARDED}
    assert NEGATIVE_100 not in outcomes.values()


@pytest.mark.django_db
def test_a_truth_inference_method_weighs_the_model_as_one_more_worker_where_it_stopped_items():
    batch = _batch()
    _model(batch, lambda item: "0")
    model_votes_start(batch=batch)
    first = batch.hits.order_by("index").first()
    assert [_work(batch, name) for name in ("w1", "w2")] == [first, first]  # stopped early, the model's no counted
    for method in ("majority", "dawid-skene", "mace"):
        run = batch_aggregate(batch=batch, samples=0, method=method)
        # The method read the model's votes on the four items it stopped (a skill is estimated only for a worker
        # whose votes it read); the people's votes, agreement and worker table are the people's.
        assert run.summary["model"]["votes"] == 4 and run.summary["model"]["skill"] is not None, method
        assert run.votes == 8 and 0 not in set(run.worker_stats.values_list("worker_id", flat=True))
    run = batch_aggregate(batch=batch, samples=0)
    assert run.summary["model"] == {"votes": 4, "skill": None}
    out = io.StringIO()
    write_report(out, run)
    assert ("a model's vote, counted as one more voter, is in the outcome of 4 items with fewer people than the rules "
            "need") in out.getvalue()
    model_votes_stop(batch=batch)
    for method in ("paper", "dawid-skene"):
        assert "model" not in batch_aggregate(batch=batch, samples=0, method=method).summary


def _tied(batch):
    """Two people who disagree on every item (one says yes to all, one no) and the model, which says yes to the
    items of even id and no to the rest: alone, every item is a tie; beside them, the model's vote decides it."""
    for name, no in (("yes", ()), ("no", set(batch.items.values_list("pk", flat=True)))):
        assert [_work(batch, name, no=no) for _ in range(2)] == list(batch.hits.order_by("index"))
    _model(batch, lambda item: "1" if item.pk % 2 == 0 else "0", confidence=0.3)


@pytest.mark.django_db
def test_a_method_reads_the_model_beside_the_people_on_every_item_and_says_what_it_changes():
    batch = _batch(adaptive="")
    _tied(batch)
    alone = batch_aggregate(batch=batch, samples=0, method="majority")
    run = batch_aggregate(batch=batch, samples=0, method="majority", with_model="")
    labels = dict(run.outcomes.values_list("item_id", "label"))
    # Every item the people voted on takes the model's vote (whatever its confidence): with it, two votes to one.
    assert labels == {item: 1 if item % 2 == 0 else 0 for item in batch.items.values_list("pk", flat=True)}
    before = dict(alone.outcomes.values_list("item_id", "label"))
    changed = sum(before[item] != label for item, label in labels.items())
    # Whichever way a tie falls alone, the model's vote goes against it on half the items.
    assert changed == 4
    assert {key: value for key, value in run.summary["model"].items() if key != "digest"} == {
        "name": MODEL, "beside": True, "votes": 8, "skill": 1.0, "people": 2, "below": 2, "changed": changed}
    # The run stands until the model's answers change; then it is stale, as when people's work changes.
    assert run_staleness(run) == ""
    answer = OutsideAnswer.objects.filter(batch=batch, source=OutsideAnswer.MODEL).order_by("pk").first()
    kept = dict(answer.answers)
    answer.answers = {key: "0" if value == "1" else "1" for key, value in kept.items()}
    answer.save()
    assert f"aggregation {run.pk} is stale: the answers of {MODEL}, read beside the people, changed" in \
        run_staleness(run)
    assert run_staleness(alone) == ""  # a run without the model does not read them
    answer.answers = kept
    answer.save()
    assert run_staleness(run) == ""
    # The votes, agreement and worker table stay the people's.
    assert (run.votes, alone.votes) == (16, 16) and run.alpha == alone.alpha
    assert 0 not in set(run.worker_stats.values_list("worker_id", flat=True))
    out = io.StringIO()
    write_report(out, run)
    assert (f"{MODEL} was read beside the people on 8 items: majority gives it a skill of 1.00, above 2 of the 2 "
            f"people; it changes the label of 4 items from what the people alone give") in out.getvalue()
    # The command says the same, and refuses the agreement rules with the model.
    out = io.StringIO()
    call_command("aggregate", str(batch.pk), "--method", "majority", "--with-model", "--samples", "0", stdout=out)
    assert f"{MODEL} was read beside the people on 8 items" in out.getvalue()
    with pytest.raises(CommandError, match="give a method to read its answers beside the people's"):
        call_command("aggregate", str(batch.pk), "--with-model", MODEL)
    # Dawid-Skene and MACE estimate its skill beside the people's too.
    for method in ("dawid-skene", "mace"):
        model = batch_aggregate(batch=batch, samples=0, method=method, with_model=MODEL).summary["model"]
        assert model["votes"] == 8 and model["skill"] is not None and model["people"] == 2, method


@pytest.mark.django_db
def test_a_model_beside_the_people_leaves_items_no_person_voted_on_pending_and_is_refused_where_it_cannot_run():
    batch = _batch(adaptive="")
    _model(batch, lambda item: "1")
    first = batch.hits.order_by("index").first()
    assert _work(batch, "w1") == first  # the second HIT's items have the model's answer and no person's
    run = batch_aggregate(batch=batch, samples=0, method="majority", with_model=MODEL)
    assert run.summary["model"]["votes"] == 4 and run.summary["outcomes"]["pending"] == 4
    with pytest.raises(CrowdError, match="the agreement rules count a model only as an adaptive batch's voter"):
        batch_aggregate(batch=batch, samples=0, with_model=MODEL)
    with pytest.raises(CrowdError, match="no model 'other' answered batch"):
        batch_aggregate(batch=batch, samples=0, method="majority", with_model="other")
    with pytest.raises(CrowdError, match="no model has answered batch"):
        batch_aggregate(batch=_batch(adaptive=""), samples=0, method="majority", with_model="")


@pytest.mark.django_db
def test_counting_a_model_is_refused_where_it_cannot_stop_anything():
    batch = _batch(adaptive="")
    with pytest.raises(CrowdError, match="not adaptive"):
        model_votes_start(batch=batch)
    batch = _batch()
    with pytest.raises(CrowdError, match="design ask-model"):
        model_votes_start(batch=batch)
    _model(batch, lambda item: "1")
    with pytest.raises(CrowdError, match="at least one person"):
        model_votes_start(batch=batch, min_people=0)
    with pytest.raises(CrowdError, match="no model 'other'"):
        model_votes_start(batch=batch, annotator="other")


class BatchPageTests(BaseTestCase):
    """The batch page counts a model's vote, and stops counting it, as `manage.py design model-votes` does."""

    def setUp(self):
        self.login(self.organizer)
        self.project = project_create(name="Counterfactuals", design="semeval", user=self.organizer)

    def _page(self, batch):
        return self.client.get(f"/projects/{self.project.slug}/batches/{batch.pk}/")

    def _post(self, batch, data):
        return self.client.post(f"/projects/{self.project.slug}/batches/{batch.pk}/model-votes/", data, follow=True)

    def test_it_counts_the_model_s_vote_from_the_batch_page_and_stops(self):
        batch = _batch()
        self.project.batches.add(batch)
        self.assertNotContains(self._page(batch), 'id="model-votes"')  # no model has answered: nothing to count
        _model(batch, lambda item: "1", confidence=0.95)
        page = self._page(batch)
        self.assertContains(page, 'id="votes-form"')
        self.assertContains(page, f'<option value="{MODEL}">{MODEL}</option>', html=True)
        page = self._post(batch, {"votes-model": MODEL, "votes-min_confidence": "0.8", "votes-min_people": "2"})
        assert DesignBatch.objects.get(batch=batch).model_vote == {"annotator": MODEL, "min_confidence": 0.8,
                                                                   "min_people": 2}
        self.assertContains(page, f"From now on {MODEL}&#x27;s answers count as one more voter (from confidence "
                                  f"0.8, after 2 people or more)")
        self.assertContains(page, 'id="model-vote"')
        self.assertNotContains(page, 'id="votes-form"')
        # Its vote now settles items with the first people, and the aggregation page says on how many.
        assert model_votes(batch)[1] == 2
        first = batch.hits.order_by("index").first()
        assert [_work(batch, name) for name in ("w1", "w2")] == [first, first]
        run = batch_aggregate(batch=batch, samples=0, method="dawid-skene")
        self.project.aggregations.add(run)
        page = self.client.get(f"/projects/{self.project.slug}/aggregations/{run.pk}/")
        self.assertContains(page, "A model's vote, counted as one more voter, is in the outcome of 4 items with "
                                  "fewer people than the rules need; dawid-skene weighs it at a skill of")
        page = self._post(batch, {"stop": "1"})
        assert DesignBatch.objects.get(batch=batch).model_vote == {}
        self.assertContains(page, "No model&#x27;s vote counts from now on.")
        self.assertContains(page, 'id="votes-form"')

    def test_it_names_what_is_wrong_and_counts_nothing(self):
        batch = _batch()
        self.project.batches.add(batch)
        _model(batch, lambda item: "1")
        page = self._post(batch, {"votes-model": "someone else", "votes-min_confidence": "1.5",
                                  "votes-min_people": "0"})
        self.assertContains(page, "the model&#x27;s vote: model: Select a valid choice.")
        self.assertContains(page, "the model&#x27;s vote: min_confidence: Ensure this value is less than or equal "
                                  "to 1.")
        self.assertContains(page, "the model&#x27;s vote: min_people: Ensure this value is greater than or equal "
                                  "to 1.")
        # Empty confidence: its vote counts whatever its confidence.
        self._post(batch, {"votes-model": MODEL, "votes-min_confidence": "", "votes-min_people": "1"})
        assert DesignBatch.objects.get(batch=batch).model_vote["min_confidence"] is None
        fixed = _batch(adaptive="")
        self.project.batches.add(fixed)
        _model(fixed, lambda item: "1")
        page = self._page(fixed)
        self.assertContains(page, "This batch is not adaptive, so a model's vote could stop nothing early")
        self.assertNotContains(page, 'id="votes-form"')
        page = self._post(fixed, {"votes-model": MODEL, "votes-min_confidence": "0.9", "votes-min_people": "1"})
        self.assertContains(page, f"the model&#x27;s vote: batch {fixed.pk} is not adaptive, so nothing stops early")
        assert DesignBatch.objects.get(batch=fixed).model_vote == {}
        # Another project's organizer finds no such batch.
        other = project_create(name="Other", design="semeval", user=self.organizer)
        response = self.client.post(f"/projects/{other.slug}/batches/{batch.pk}/model-votes/", {"stop": "1"})
        assert response.status_code == 404
        assert DesignBatch.objects.get(batch=batch).model_vote != {}


    def test_it_aggregates_with_the_model_beside_the_people_from_the_batch_page(self):
        batch = _batch(adaptive="")
        self.project.batches.add(batch)
        self.assertNotContains(self._page(batch), 'name="with_model"')  # no model has answered: nothing offered
        _tied(batch)
        self.assertContains(self._page(batch), f'<option value="{MODEL}">{MODEL}</option>', html=True)
        url = f"/projects/{self.project.slug}/batches/{batch.pk}/aggregate/"
        form = {"method": "paper", "keep_partial_negatives": "1.0", "seed": "0", "samples": "100",
                "with_model": MODEL}
        page = self.client.post(url, form, follow=True)
        self.assertContains(page, "with_model: the paper&#x27;s rules count no model beside the people: pick a "
                                  "method")
        assert not batch.aggregations.exists()
        with self.captureOnCommitCallbacks(execute=True):  # the job runs once its row is committed
            self.client.post(url, {**form, "method": "majority"})
        run = batch.aggregations.get()
        assert run.summary["model"]["changed"] == 4
        page = self.client.get(f"/projects/{self.project.slug}/aggregations/{run.pk}/")
        self.assertContains(page, f"{MODEL} was read beside the people on 8 items: majority gives it a skill of "
                                  f"1.00, above 2 of the 2 people; it changes the label of 4 items from what the "
                                  f"people alone give. The agreement and workers below are the people's.")
        # Without the model, the people's alone.
        with self.captureOnCommitCallbacks(execute=True):
            self.client.post(url, {**form, "method": "majority", "with_model": ""})
        assert "model" not in batch.aggregations.order_by("-pk").first().summary


def _organizer_on_a_phone(chromium, live_server, batch, section, name):
    """An organizer of a project holding the batch, logged in on a phone at the batch page's section, which fits
    the width and passes axe (checked under `name`)."""
    from django.contrib.auth.models import User

    from accounts import roles
    from tests.browser import axe_clean, log_in
    from tests.test_accessibility import PHONE

    organizer = User.objects.create_user("org", password="pass-word-1")
    organizer.groups.add(roles.group(roles.ORGANIZER))
    project = project_create(name="Counterfactuals", design="semeval", user=organizer)
    project.batches.add(batch)
    context = chromium.new_context(**PHONE)
    page = context.new_page()
    log_in(page, live_server, "org", "pass-word-1", f"/projects/{project.slug}/batches/{batch.pk}/#{section}")
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    axe_clean(page, name)
    return project, context, page


@pytest.mark.django_db(transaction=True)
def test_an_organizer_counts_the_model_s_vote_by_keyboard_on_a_phone(chromium, live_server):
    from tests.browser import axe_clean, screenshot
    from tests.test_accessibility import PHONE

    batch = _batch()
    _model(batch, lambda item: "1")
    project, context, page = _organizer_on_a_phone(chromium, live_server, batch, "model-votes", "model-votes-phone")
    # From the model picker on, by keyboard alone: a confidence typed, two people first, the button pressed.
    page.focus("#id_votes-model")
    page.keyboard.press("Tab")
    page.keyboard.press("Control+A")
    page.keyboard.type("0.75")
    page.keyboard.press("Tab")
    page.keyboard.press("Control+A")
    page.keyboard.type("2")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Count its vote"
    with page.expect_navigation():
        page.keyboard.press("Enter")
    said = page.inner_text("#model-vote")
    assert f"{MODEL}'s answers count as one more voter (from confidence 0.75, after 2 people or more)" in said
    assert DesignBatch.objects.get(batch=batch).model_vote["min_people"] == 2
    screenshot(page, "model-votes-counted-phone")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.locator("#model-votes").scroll_into_view_if_needed()
    screenshot(page, "model-votes-counted-desktop", full_page=False)
    # Two people and the model stop the first HIT's items; the aggregation page says so, on a phone and a desktop.
    first = batch.hits.order_by("index").first()
    assert [_work(batch, name) for name in ("w1", "w2")] == [first, first]
    run = batch_aggregate(batch=batch, samples=0, method="dawid-skene")
    project.aggregations.add(run)
    page.goto(f"{live_server.url}/projects/{project.slug}/aggregations/{run.pk}/")
    assert "is in the outcome of 4 items with fewer people than the rules need" in page.inner_text("#model-counted")
    screenshot(page, "model-votes-aggregation-desktop")
    page.set_viewport_size(PHONE["viewport"])
    axe_clean(page, "model-votes-aggregation-phone")
    page.goto(f"{live_server.url}/projects/{project.slug}/batches/{batch.pk}/#model-votes")
    page.get_by_role("button", name="Stop counting its vote").click()
    page.wait_for_selector("#votes-form")
    assert DesignBatch.objects.get(batch=batch).model_vote == {}
    context.close()


@pytest.mark.django_db(transaction=True)
def test_an_organizer_aggregates_with_the_model_beside_the_people_by_keyboard_on_a_phone(chromium, live_server):
    from tests.browser import axe_clean, screenshot
    from tests.test_accessibility import PHONE

    batch = _batch(adaptive="")
    _tied(batch)
    project, context, page = _organizer_on_a_phone(chromium, live_server, batch, "aggregate", "model-beside-form-phone")
    # By keyboard alone: a method picked, then the model, then the button.
    page.focus("#aggregate-form #id_method")
    page.keyboard.press("Home")
    page.keyboard.press("ArrowDown")  # majority vote
    while page.evaluate("document.activeElement.id") != "id_with_model":
        page.keyboard.press("Tab")
    page.keyboard.press("ArrowDown")
    assert page.input_value("#id_with_model") == MODEL
    page.locator("#aggregate").scroll_into_view_if_needed()
    screenshot(page, "model-beside-form-phone", full_page=False)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.locator("#aggregate").scroll_into_view_if_needed()
    screenshot(page, "model-beside-form-desktop", full_page=False)
    page.set_viewport_size(PHONE["viewport"])
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Aggregate the votes"
    with page.expect_navigation():
        page.keyboard.press("Enter")
    run = batch.aggregations.get()
    assert (run.method, run.summary["model"]["name"]) == ("majority", MODEL)
    page.goto(f"{live_server.url}/projects/{project.slug}/aggregations/{run.pk}/")
    said = page.inner_text("#model-beside")
    assert f"{MODEL} was read beside the people on 8 items" in said and "changes the label of 4 items" in said
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    axe_clean(page, "model-beside-aggregation-phone")
    page.set_viewport_size({"width": 1280, "height": 900})
    screenshot(page, "model-beside-aggregation-desktop")
    context.close()


@pytest.mark.django_db
def test_a_model_is_compared_with_the_crowd_on_sentences_whose_key_is_not_their_id():
    """A SemEval batch's items are keyed by where they came from (`sentence:<pk>` from the candidate filter,
    `semeval:<id>` from a release), not by the sentence id the crowd's labels are read under: `design compare`
    matches the model's answers by the id (it matched none). The crowd's label is the label of the rule's outcome
    (a positive is "1"), not the outcome's name, which no model answer equals."""
    items = [ItemSpec(key=f"sentence:{n}", group="finance",
                      payload=SentenceItem(text=f"Sentence {n}.", sentence_id=f"s{n}", domain="finance"))
             for n in range(8)]
    batch = batch_publish(batch=labeling_batch_create(name="compared", items=items, items_per_hit=4,
                                                      assignments_per_hit=5, reward=Decimal("0.40")))
    _model(batch, lambda item: "1" if item.pk % 2 else "0")
    split = set(batch.items.order_by("pk").values_list("pk", flat=True)[:2])
    for name in ("w1", "w2", "w3", "w4", "w5") * 2:
        _work(batch, name, no=split if name == "w5" else ())  # five yes (a positive), or four (discarded)
    scheme = get_task_type(batch.task_type).label_key(batch)
    found = next(entry for entry in compare(batch)["schemes"] if entry["scheme"] == scheme)
    assert (found["compared"], found["accuracy"]["value"]) == (6, 0.5)  # a discarded item has no label
    assert found["confusion"] == {"1": {"0": 3, "1": 3}}
    for assignment in Assignment.objects.filter(hit__batch=batch):
        assignment_approve(assignment=assignment)
    # Ten rewards of 0.40, summed to the cent (SQLite sums decimals as floats: 3.9999999999999996).
    assert compare(batch)["crowd_cost"] == {"total": "4.00", "per_item": "0.5000"}
    from reproductions.project_steps import _design_numbers  # the project page's "Agreement and labels" step

    assert "counterfactual: the model agrees with the crowd's label on 50% of 6 items" in _design_numbers(
        batch, lambda done, total: None)
