"""Potato's attention checks with their failure handling: known-answer items mixed into every HIT, a warning after
a submission once `warn_threshold` of them are answered wrong, and no more of the work once `block_threshold`
are (its message said when the worker next asks for work)."""

from __future__ import annotations

import html
import io
from datetime import timedelta

import pytest
from django.contrib.messages import get_messages
from django.core.management import call_command

from designs.potato import UploadedFolder, import_config
from hits.models import Assignment, Item
from hits.services import batch_publish, worker_filters
from tests.browser import axe_clean
from tests.designs.fixtures import hit_page, potato_project, project_annotator
from tests.test_accessibility import PHONE

CONFIG = b"""annotation_task_name: Careful moods
data_files: [posts.jsonl]
item_properties: {id_key: id, text_key: text}
assignment_strategy: fixed_order
attention_checks:
  enabled: true
  items_file: checks.jsonl
  frequency: 2
  failure_handling:
    warn_threshold: 1
    warn_message: "Please read each post before you answer."
    block_threshold: 2
    block_message: "You answered too many checks wrong to go on."
annotation_schemes:
  - {annotation_type: radio, name: mood, labels: [happy, sad]}
"""
POSTS = b"".join(b'{"id": "p%d", "text": "Post number %d."}\n' % (number, number) for number in range(1, 31))
CHECKS = b"".join(b'{"id": "c%d", "text": "Check %d: choose sad.", "expected_answer": {"mood": "sad"}}\n'
                  % (number, number) for number in range(1, 31))


def test_failure_handling_becomes_the_designs_attention_rules():
    found = import_config(CONFIG, name="c.yaml", folder=UploadedFolder({"posts.jsonl": POSTS,
                                                                       "checks.jsonl": CHECKS}))
    assert found.ok, found.errors
    attention = found.design.hits.attention
    assert (attention.warn_after, attention.block_after) == (1, 2)
    assert attention.block_message == "You answered too many checks wrong to go on."
    assert any("warned and then stopped as its failure_handling says" in note for note in found.notes)
    # Potato's defaults (2 and 5) when the block has no failure_handling; its refusals are ours too.
    plain = CONFIG.split(b"  failure_handling:")[0] + b"annotation_schemes:" + CONFIG.split(b"annotation_schemes:")[1]
    found = import_config(plain, name="c.yaml", folder=UploadedFolder({"posts.jsonl": POSTS, "checks.jsonl": CHECKS}))
    assert (found.design.hits.attention.warn_after, found.design.hits.attention.block_after) == (2, 5)
    backwards = CONFIG.replace(b"block_threshold: 2", b"block_threshold: 1")
    found = import_config(backwards, name="c.yaml", folder=UploadedFolder({"posts.jsonl": POSTS,
                                                                           "checks.jsonl": CHECKS}))
    assert found.errors == ["c.yaml:12: attention_checks.failure_handling.block_threshold: is 1, not more than "
                            "warn_threshold (1); Potato refuses this too"]
    found = import_config(CONFIG.replace(b"warn_threshold: 1", b"warn_threshold: often"), name="c.yaml",
                          folder=UploadedFolder({"posts.jsonl": POSTS, "checks.jsonl": CHECKS}))
    assert found.errors == ["c.yaml:10: attention_checks.failure_handling.warn_threshold: is 'often'; give a whole "
                            "number of failed checks, 1 or more"]


def _answer(client, assignment, wrong_checks: int) -> dict[str, str]:
    """Submit the assignment's page: every post happy, the checks sad except `wrong_checks` of them; the messages
    the worker is shown after it, each with its level ("success", "warning", "info")."""
    form, wrong = {}, 0
    for item in assignment.hit.ordered_items():
        answer = "happy"
        if item.gold_answer is not None:
            answer = "happy" if wrong < wrong_checks else "sad"
            wrong += answer == "happy"
        form[f"a-{item.pk}-0"] = answer
    assert wrong == wrong_checks, "the HIT has too few check items for the test"
    response = client.post(f"/work/assignments/{assignment.pk}/submit/", form)
    assert response.status_code == 302, response.content.decode()[:500]
    return {str(message): message.level_tag for message in get_messages(response.wsgi_request)}


@pytest.mark.django_db
def test_a_worker_is_warned_then_stopped_after_answering_checks_wrong(client, tmp_path, capsys):
    for name, data in (("config.yaml", CONFIG), ("posts.jsonl", POSTS), ("checks.jsonl", CHECKS)):
        (tmp_path / name).write_bytes(data)
    project = potato_project(tmp_path / "config.yaml", capsys)
    batch = batch_publish(batch=project.batches.get())
    assert batch.requirements["attention"]["block_after"] == 2
    # Where the organizer reads who may work (batch page, cost estimate, the command's summary), the stop is said.
    assert worker_filters(provider="inhouse", requirements=batch.requirements) == [
        "annotators with an account on this site", "stopped after 2 check items answered wrong"]
    assert Item.objects.filter(batch=batch, gold_answer__isnull=False).count() == 30
    client.force_login(project_annotator(project, "ada"))

    def claim():
        response = client.post(f"/work/batches/{batch.pk}/claim/")
        return Assignment.objects.filter(hit__batch=batch, state=Assignment.State.CLAIMED).first(), response

    first, _ = claim()
    said = _answer(client, first, wrong_checks=0)
    assert not any("read each post" in message for message in said)  # all checks right: no warning
    second, _ = claim()
    said = _answer(client, second, wrong_checks=1)
    assert "Please read each post before you answer. (1 check items answered wrong so far)" in said
    third, _ = claim()
    said = _answer(client, third, wrong_checks=1)
    assert "You answered too many checks wrong to go on. (2 check items answered wrong)" in said
    held, response = claim()
    assert held is None  # no more of the batch's work
    assert response.status_code == 403
    page = " ".join(html.unescape(response.content.decode()).split())
    assert "You answered too many checks wrong to go on. (2 check items of Careful moods" in page, page[-600:]
    assert "answered wrong; the work ends at 2)" in page
    # Another annotator is not touched by the first one's mistakes.
    client.force_login(project_annotator(project, "bo"))
    other, _ = claim()
    assert other is not None and other.worker.external_id != first.worker.external_id


@pytest.mark.django_db
def test_a_check_answered_too_soon_fails_as_potato_s_min_response_time_says(client, tmp_path, capsys):
    """min_response_time: a check whose answer reached the server (a saved draft, else the submission) sooner than
    that after the HIT was claimed counts as failed, right or not; the time is the server's, so a page cannot claim
    it took longer. A check answered later counts as its answer says."""
    config = CONFIG.replace(b"  frequency: 2\n", b"  frequency: 2\n  min_response_time: 30\n")
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"posts.jsonl": POSTS, "checks.jsonl": CHECKS}))
    assert found.design.hits.attention.min_response_s == 30 and not any("min_response" in w for w in found.warnings)
    assert any("a check answered in under 30 s counts as failed" in note for note in found.notes)
    refused = import_config(config.replace(b"min_response_time: 30", b"min_response_time: -1"), name="c.yaml",
                            folder=UploadedFolder({"posts.jsonl": POSTS, "checks.jsonl": CHECKS}))
    assert refused.errors == ["c.yaml:9: attention_checks.min_response_time: is -1; give a number of seconds, 0 or "
                              "more, as Potato asks"]
    for name, data in (("config.yaml", config), ("posts.jsonl", POSTS), ("checks.jsonl", CHECKS)):
        (tmp_path / name).write_bytes(data)
    project = potato_project(tmp_path / "config.yaml", capsys)
    batch = batch_publish(batch=project.batches.get())
    client.force_login(project_annotator(project, "ada"))
    client.post(f"/work/batches/{batch.pk}/claim/")
    first = Assignment.objects.get(hit__batch=batch, state=Assignment.State.CLAIMED)
    checks = [item for item in first.hit.ordered_items() if item.gold_answer is not None]
    # Every answer right, in a draft saved at once: the checks surely took under 30 s.
    client.post(f"/work/assignments/{first.pk}/draft/", {f"a-{checks[0].pk}-0": "sad"})
    first.refresh_from_db()
    assert first.answers_seen[f"a-{checks[0].pk}-0"] < 30
    said = _answer(client, first, wrong_checks=0)
    assert f"You answered too many checks wrong to go on. ({len(checks)} check items answered wrong or in under " \
           f"30 s)" in said
    # Another annotator's HIT, taken a minute ago: its checks, right, count as right.
    client.cookies.pop("messages", None)  # the first annotator's, not yet shown
    client.force_login(project_annotator(project, "bo"))
    client.post(f"/work/batches/{batch.pk}/claim/")
    second = Assignment.objects.get(hit__batch=batch, state=Assignment.State.CLAIMED)
    Assignment.objects.filter(pk=second.pk).update(claimed=second.claimed - timedelta(minutes=1))
    second.refresh_from_db()
    said = _answer(client, second, wrong_checks=0)
    assert not any("check items answered" in message for message in said), said
    second.refresh_from_db()
    assert all(after >= 60 for after in second.answers_seen.values())


def test_the_warning_and_the_stop_as_an_annotator_meets_them_on_a_phone(chromium, live_server, tmp_path, capsys):
    """In Chromium at 390 px, by keyboard: an annotator who answers every item of a HIT "happy" gets its check items
    wrong; after Submit the work list says why they may go on no longer, and lists the batch as closed to them."""
    for name, data in (("config.yaml", CONFIG), ("posts.jsonl", POSTS), ("checks.jsonl", CHECKS)):
        (tmp_path / name).write_bytes(data)
    project = potato_project(tmp_path / "config.yaml", capsys)
    batch_publish(batch=project.batches.get())
    project_annotator(project, "cy")
    context, page = hit_page(chromium, live_server, "cy", PHONE)
    while True:
        current = page.locator(".task-item.current")
        choice = current.locator("input[value=happy]")
        choice.focus()
        page.keyboard.press("Space")
        assert choice.is_checked()
        ahead = page.get_by_role("button", name="Next →")
        if not ahead.is_visible() or not ahead.is_enabled():
            break
        ahead.focus()
        page.keyboard.press("Enter")
    page.locator("#cf-submit").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/work/")
    warning = page.locator(".messages .warning")
    assert " ".join(warning.inner_text().split()).startswith("warning: You answered too many checks wrong to go on. (")
    axe_clean(page, "potato-attention-stopped-phone")
    # The batch is listed with why it is closed to them, not with a Take a HIT button.
    assert page.get_by_role("button", name="Take a HIT").count() == 0
    card = page.locator("main").inner_text()
    assert "Work not open to you" in card
    assert "check items of Careful moods (careful-moods) answered wrong; the work ends at 2)." in " ".join(card.split())
    context.close()


GOLD = b"""annotation_task_name: Taught moods
data_files: [posts.jsonl]
item_properties: {id_key: id, text_key: text}
assignment_strategy: fixed_order
gold_standards:
  enabled: true
  items_file: gold.jsonl
  frequency: 2
  feedback: {show_correct_answer: true, show_explanation: true}
  accuracy: {min_threshold: 0.9, evaluation_count: 2}
annotation_schemes:
  - {annotation_type: radio, name: mood, labels: [happy, sad]}
"""
GOLD_ITEMS = b"".join(b'{"id": "g%d", "text": "Gold %d: a sad post.", "gold_label": {"mood": "sad"}, '
                      b'"explanation": "It speaks of a loss."}\n' % (number, number) for number in range(1, 31))


@pytest.mark.django_db
def test_gold_feedback_tells_the_worker_what_they_got_wrong_after_each_hit(client, tmp_path, capsys):
    """Potato's gold_standards.feedback (show_correct_answer, show_explanation): after the HIT, how many of its gold
    items were right, and each one got wrong with its answer and explanation; its `accuracy` measured once enough
    gold items are answered, the worker under it told so, and the design report listing who is under it."""
    found = import_config(GOLD, name="c.yaml", folder=UploadedFolder({"posts.jsonl": POSTS, "gold.jsonl": GOLD_ITEMS}))
    assert found.ok, found.errors
    assert found.design.hits.gold_feedback.model_dump() == {"answer": True, "explanation_key": "explanation"}
    assert found.design.hits.gold_accuracy.model_dump() == {"min_threshold": 0.9, "evaluation_count": 2}
    assert not any(warning.startswith("gold_standards.accuracy") for warning in found.warnings)
    for name, data in (("config.yaml", GOLD), ("posts.jsonl", POSTS), ("gold.jsonl", GOLD_ITEMS)):
        (tmp_path / name).write_bytes(data)
    project = potato_project(tmp_path / "config.yaml", capsys)
    batch = batch_publish(batch=project.batches.get())
    client.force_login(project_annotator(project, "ada"))
    client.post(f"/work/batches/{batch.pk}/claim/")
    assignment = Assignment.objects.get(hit__batch=batch)
    checks = sum(item.gold_answer is not None for item in assignment.hit.ordered_items())
    said = _answer(client, assignment, wrong_checks=1)
    told = next(message for message in said if message.startswith("Check items of this HIT"))
    assert told.startswith(f"Check items of this HIT: {checks - 1} of {checks} right. “Gold ")
    assert told.endswith(f": a sad post.”: not right; the answer is mood: sad (It speaks of a loss.). Your check "
                         f"items so far: {checks - 1} of {checks} right ({(checks - 1) / checks:.0%}); this study asks "
                         f"for 90%.")
    assert said[told] == "warning"
    report = io.StringIO()
    call_command("design", "report", str(batch.pk), stdout=report)
    assert f"known-answer items right: W1 {checks - 1} of {checks} ({(checks - 1) / checks:.0%})" in report.getvalue()
    assert "under the 90% asked (from 2 answered): W1" in report.getvalue()
    # A HIT with every check right is told so, as news, not as a warning.
    client.post(f"/work/batches/{batch.pk}/claim/")
    following = Assignment.objects.get(hit__batch=batch, state=Assignment.State.CLAIMED)
    checks = sum(item.gold_answer is not None for item in following.hit.ordered_items())
    said = _answer(client, following, wrong_checks=0)
    assert said[f"Check items of this HIT: {checks} of {checks} right."] == "info"


@pytest.mark.parametrize(("accuracy", "found"), [
    (b"0.8", {"min_threshold": 0.8, "evaluation_count": 10}),
    (b"{evaluation_count: 4}", {"min_threshold": 0.7, "evaluation_count": 4}),
    (b"1.5", "c.yaml:10: gold_standards.accuracy: min_threshold is 1.5; give a share from 0 to 1, as Potato asks"),
    (b"high", "c.yaml:10: gold_standards.accuracy: is 'high'; write a fraction such as 0.8, or {min_threshold: 0.8, "
              "evaluation_count: 10}"),
    (b"{min_threshold: 0.8, evaluation_count: 0}", "c.yaml:10: gold_standards.accuracy: evaluation_count is 0; give "
                                                   "a whole number of gold items, 1 or more, as Potato asks"),
])
def test_gold_accuracy_is_read_as_potato_reads_it(accuracy, found):
    """A bare fraction or a mapping, Potato's defaults filling what is not given; what Potato refuses is an error at
    its line."""
    config = GOLD.replace(b"{min_threshold: 0.9, evaluation_count: 2}", accuracy)
    imported = import_config(config, name="c.yaml", folder=UploadedFolder({"posts.jsonl": POSTS,
                                                                           "gold.jsonl": GOLD_ITEMS}))
    if isinstance(found, dict):
        assert imported.ok, imported.errors
        assert imported.design.hits.gold_accuracy.model_dump() == found
    else:
        assert imported.errors == [found]
