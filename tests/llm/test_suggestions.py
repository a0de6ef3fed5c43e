"""A model's answers as suggestions on people's pages, with a randomized holdout of (annotator, item) pairs, and the
pull of the suggestion measured against the held-out pairs."""

import pytest

from core.errors import CrowdsetError
from designs.items import Record
from designs.models import OutsideAnswer
from designs.suggestions import held_out, pull, suggestions_start, suggestions_stop
from hits.models import Assignment, Worker
from hits.services import assignment_claim, assignment_submit, batch_publish
from hits.task_types import get_task_type
from projects.services import design_project_create
from reproductions.project_steps import _design_numbers
from tests.browser import axe_clean, log_in, screenshot
from tests.designs.fixtures import project_annotator
from tests.test_accessibility import PHONE

DESIGN = """
title: Mood with suggestions
hits: {items_per_hit: 10, assignments_per_hit: 4, order: file}
annotation_schemes:
  - {annotation_type: radio, name: mood, labels: [good, bad]}
"""
TRUTH = ["good", "bad"] * 10
MODEL = "tiny @ 127.0.0.1 · abc123"


def _batch(count=20, gold=()):
    records = [Record(id=f"i{number}", text=f"item {number}") for number in range(count)]
    project, batch = design_project_create(source=DESIGN, file_name="mood.yaml", records=records)
    batch = batch_publish(batch=batch)
    for item in batch.items.all():
        number = int(item.key.removeprefix("record:i"))
        # The model is wrong on every other item.
        said = TRUTH[number] if number % 2 else ("bad" if TRUTH[number] == "good" else "good")
        OutsideAnswer.objects.create(batch=batch, item=item, source=OutsideAnswer.MODEL, annotator=MODEL,
                                     answers={"mood": said})
        if number in gold:
            item.is_gold, item.gold_answer = True, {"mood": TRUTH[number]}
            item.save(update_fields=["is_gold", "gold_answer"])
    return project, batch


def test_the_holdout_is_a_fixed_share_of_pairs_the_same_each_time():
    pairs = [(worker, item) for worker in range(100) for item in range(200)]
    out = [held_out(7, worker, item, 0.2) for worker, item in pairs]
    assert 0.19 < sum(out) / len(out) < 0.21
    assert out == [held_out(7, worker, item, 0.2) for worker, item in pairs]
    assert not any(held_out(7, worker, item, 0.0) for worker, item in pairs[:500])
    assert out != [held_out(8, worker, item, 0.2) for worker, item in pairs]  # another batch, another draw


@pytest.mark.django_db
def test_a_page_whose_pairs_are_all_held_out_still_says_suggestions_run():
    """While suggestions run, a page whose every pair is held out says so with no items: its script then starts no
    item with a suggestion the items carry of their own (a Label Studio prediction)."""
    _, batch = _batch()
    suggestions_start(batch=batch, holdout=0.999999)
    worker = Worker.objects.create(provider="inhouse", external_id="a")
    page = get_task_type("design").assignment_page(assignment_claim(batch=batch, worker=worker))
    assert page == {"suggestions": {"model": "tiny", "items": {}}}


@pytest.mark.django_db
def test_suggestions_are_refused_where_they_cannot_run():
    _, batch = _batch()
    with pytest.raises(CrowdsetError, match="from 0 up to"):
        suggestions_start(batch=batch, holdout=1.0)
    with pytest.raises(CrowdsetError, match="no model 'other' answered"):
        suggestions_start(batch=batch, annotator="other")
    OutsideAnswer.objects.filter(batch=batch).delete()
    with pytest.raises(CrowdsetError, match="design ask-model"):
        suggestions_start(batch=batch)
    batch.provider = "mturk"
    with pytest.raises(CrowdsetError, match="same HTMLQuestion"):
        suggestions_start(batch=batch)


@pytest.mark.django_db
def test_each_worker_s_page_shows_the_suggestions_of_the_pairs_not_held_out_and_the_report_measures_the_pull():
    _, batch = _batch(gold=(0, 4, 8, 12, 16, 1))
    settings = suggestions_start(batch=batch, holdout=0.3)
    assert settings["annotator"] == MODEL
    task = get_task_type("design")
    model = {item.pk: answer["mood"] for item, answer in (
        (entry.item, entry.answers) for entry in OutsideAnswer.objects.filter(batch=batch).select_related("item"))}
    truth = {item.pk: TRUTH[int(item.key.removeprefix("record:i"))] for item in batch.items.all()}
    pairs = []  # (item, hidden) of every answer given
    for name in ("a", "b", "c", "d", "e", "f", "g"):  # one place left for the late worker
        worker = Worker.objects.create(provider="inhouse", external_id=name)
        assignment = assignment_claim(batch=batch, worker=worker)
        items = assignment.hit.ordered_items()
        page = task.assignment_page(assignment)
        suggested = {int(pk): fields for pk, fields in page.get("suggestions", {}).get("items", {}).items()}
        for item in items:
            hidden = held_out(batch.pk, worker.pk, item.pk, 0.3)
            assert (item.pk in suggested) is not hidden  # the page and the holdout agree, pair by pair
            if not hidden:
                assert suggested[item.pk] == {f"a-{item.pk}-0": model[item.pk]}
        assert page["suggestions"]["model"] == "tiny"
        # People who take the suggestion when they see it, and answer rightly when they do not.
        raw = {}
        for item in items:
            hidden = item.pk not in suggested
            raw[f"a-{item.pk}-0"] = truth[item.pk] if hidden else model[item.pk]
            pairs.append((item.pk, hidden))
        assignment_submit(assignment=assignment, worker=worker, raw_answers=raw)
    held = [item for item, hidden in pairs if hidden]
    shown = [item for item, hidden in pairs if not hidden]
    # 70 pairs, 30% held out: both groups have answers on items the model gets wrong.
    assert any(model[item] != truth[item] for item in held) and any(model[item] != truth[item] for item in shown)

    found = pull(batch)
    (mood,) = found["schemes"]
    assert (mood["shown"]["answers"], mood["held_out"]["answers"]) == (len(shown), len(held))
    assert mood["shown"]["follows"]["value"] == 1.0
    # Held out, they answered rightly: they gave the model's answer only where it was right.
    assert mood["held_out"]["follows"]["value"] == round(sum(model[item] == truth[item] for item in held)
                                                         / len(held), 4)
    assert mood["difference"]["follows"]["low"] > 0  # the pull, with an interval clear of nothing
    gold = {item.pk for item in batch.items.filter(is_gold=True)}
    held_gold, shown_gold = [item for item in held if item in gold], [item for item in shown if item in gold]
    assert mood["held_out"]["gold"]["value"] == (1.0 if held_gold else None)
    assert mood["shown"]["gold"]["value"] == (round(sum(model[item] == truth[item] for item in shown_gold)
                                                    / len(shown_gold), 4) if shown_gold else None)
    # The project page's figures say the pull too, with its interval.
    said = _design_numbers(batch, lambda done, total: None)
    difference = mood["difference"]["follows"]
    assert (f"mood: people shown the suggestion gave the model's answer 100% (95% interval 100% to 100%), those "
            f"held out {mood['held_out']['follows']['value']:.0%} (95% interval") in said
    assert (f"(difference {difference['value']:+.0%}, 95% interval {difference['low']:+.0%} to "
            f"{difference['high']:+.0%})") in said

    # Stopped: work claimed later sees none, and the report keeps the window the suggestions ran in.
    suggestions_stop(batch=batch)
    late = Worker.objects.create(provider="inhouse", external_id="late")
    assert task.assignment_page(assignment_claim(batch=batch, worker=late)) == {}
    assert pull(batch)["schemes"][0]["shown"]["answers"] == len(shown)


@pytest.mark.django_db(transaction=True)
def test_a_suggestion_is_shown_pre_filled_and_marked_and_the_person_may_change_it(chromium, live_server):
    project, batch = _batch()
    suggestions_start(batch=batch, holdout=0.2)
    user = project_annotator(project, "ada")
    context = chromium.new_context(**PHONE)
    page = context.new_page()
    log_in(page, live_server, "ada", "pass-word-1", "/work/")
    page.click("text=Take a HIT")
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    assignment = Assignment.objects.get(worker__user=user)
    items = assignment.hit.ordered_items()
    fieldsets = page.locator(".task-item")
    for place, item in enumerate(items):
        hidden = held_out(batch.pk, assignment.worker_id, item.pk, 0.2)
        fieldset = fieldsets.nth(place)
        assert (fieldset.locator(".suggested-note").count() == 0) is hidden
        said = OutsideAnswer.objects.get(item=item).answers["mood"]
        checked = fieldset.locator("input[type=radio]:checked")
        if hidden:
            assert checked.count() == 0
        else:
            assert checked.get_attribute("value") == said
            assert "Pre-filled with the suggestion of tiny" in fieldset.locator(".suggested-note").inner_text()
    first_shown = next(place for place, item in enumerate(items)
                       if not held_out(batch.pk, assignment.worker_id, item.pk, 0.2))
    screenshot(page, "suggestions-phone")
    axe_clean(page, "suggestions")
    # The person changes a suggestion by keyboard: their answer is what is stored.
    page.evaluate(f"window.crowdsetTask.setCurrent({first_shown})")
    said = OutsideAnswer.objects.get(item=items[first_shown]).answers["mood"]
    other = "bad" if said == "good" else "good"
    fieldsets.nth(first_shown).locator(f"input[value={other}]").focus()
    page.keyboard.press("Space")
    for place in range(len(items)):
        if fieldsets.nth(place).locator("input[type=radio]:checked").count() == 0:
            fieldsets.nth(place).locator("input[value=good]").focus()
            page.keyboard.press("Space")
    page.locator("#cf-submit").focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    context.close()
    assignment.refresh_from_db()
    assert assignment.answers[str(items[first_shown].pk)] == {"mood": other}
