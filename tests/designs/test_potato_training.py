"""Potato's training round is a practice round here: the design's screening test, asked on the design's own page
before the real work one item at a time, told right or wrong with the explanation after each answer, tried again
where Potato allows it, and passed at Potato's passing_criteria."""

import json

import pytest
import yaml

from designs.potato import UploadedFolder, import_config
from hits.services import batch_publish
from qualification.models import Attempt, Grant
from qualification.practice import Practice
from tests.browser import axe_clean, log_in, screenshot
from tests.designs.fixtures import potato_project, project_annotator
from tests.test_accessibility import DESKTOP, PHONE

CONFIG = b"""\
annotation_task_name: Mood of posts
data_files: [posts.jsonl]
item_properties: {id_key: id, text_key: text}
training:
  enabled: true
  data_file: training.json
  allow_retry: true
  passing_criteria: {min_correct: 2}
annotation_schemes:
  - annotation_type: radio
    name: mood
    description: What is the mood of the post?
    labels: [{name: happy, key_value: h}, {name: sad, key_value: s}]
  - annotation_type: multiselect
    name: topics
    description: What is it about?
    labels: [food, work, weather]
"""
POSTS = b'{"id": "p1", "text": "Lunch was great."}\n{"id": "p2", "text": "Rain again, and a long day at work."}\n'
TRAINING = json.dumps({"training_instances": [
    {"id": "t1", "text": "Best pizza of my life!", "correct_answers": {"mood": "happy", "topics": ["food"]},
     "explanation": "Praise of a meal: happy, about food."},
    {"id": "t2", "text": "Stuck at the office in the storm.", "correct_answers": {"mood": "sad",
                                                                               "topics": ["work", "weather"]},
     "explanation": "Both the office and the storm are what it is about."},
    {"id": "t3", "text": "Sunny and warm today.", "correct_answers": {"mood": "happy"},
     "explanation": "Good weather, said gladly."}]}).encode()


def _folder(training=TRAINING):
    return UploadedFolder({"posts.jsonl": POSTS, "training.json": training})


def test_training_becomes_the_designs_screening_test_at_potatos_pass_mark():
    found = import_config(CONFIG, name="config.yaml", folder=_folder())
    assert found.ok, found.errors
    assert [record.id for record, _, _ in found.training] == ["t1", "t2", "t3"]
    assert found.design.qualification.test == "mood-of-posts-training"
    assert found.design.qualification.min_score == 67  # min_correct 2 of 3
    assert found.training_rules == Practice(min_correct=2, retry=True)
    assert not any(warning.startswith("training") for warning in found.warnings)

    wrong = TRAINING.replace(b'"topics": ["food"]', b'"topic": ["food"]')
    found = import_config(CONFIG, name="config.yaml", folder=_folder(wrong))
    assert found.errors == ["training.json: training_instances item 1: correct_answers names 'topic', which is not "
                            "a scheme of the config (mood, topics)"]


def _tick(page, label):
    """A box ticked from the keyboard: by the key its control declares (aria-keyshortcuts), else by Space on it
    (this config binds no keys to the topics, as in Potato without sequential_key_binding)."""
    box = page.locator(f".task-item label:has-text('{label}') input")
    key = box.get_attribute("aria-keyshortcuts")
    if key:
        page.keyboard.press(key)
    else:
        box.focus()
        page.keyboard.press("Space")


def _check(page):
    """Check my answer, from the keyboard."""
    page.locator("#cf-submit").focus()
    page.keyboard.press("Enter")


def test_an_annotator_practises_item_by_item_with_feedback_and_then_works(chromium, live_server, tmp_path, capsys):
    for name, data in (("config.yaml", CONFIG), ("posts.jsonl", POSTS), ("training.json", TRAINING)):
        (tmp_path / name).write_bytes(data)
    project = potato_project(tmp_path / "config.yaml", capsys)
    test = project.tests.get()
    assert (test.name, test.pass_threshold, test.items.count()) == ("mood-of-posts-training", 67, 3)
    assert test.practice == Practice(min_correct=2, retry=True).stored()
    batch = batch_publish(batch=project.batches.get())
    annotator = project_annotator(project, "ada")

    context = chromium.new_context(**PHONE)
    page = context.new_page()
    log_in(page, live_server, "ada", "pass-word-1", "/work/")
    # The work says what it needs first, with the way to it.
    assert "This work needs the screening test" in page.inner_text("main")
    page.get_by_role("link", name="Take the screening test").click()
    # One item at a time on the design's own page, answered by keyboard with the keys Potato binds.
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    assert page.locator(".task-item").count() == 1
    assert "Item 1 of 3" in page.inner_text("#practice-rules")
    assert "Best pizza of my life!" in page.inner_text(".task-item")
    page.keyboard.press("h")
    _tick(page, "Food")
    assert page.locator("#cf-submit").is_enabled()
    _check(page)
    page.wait_for_selector("#practice-told")
    assert "✓ Right." in page.inner_text("#practice-told")
    assert "Praise of a meal" in page.inner_text("#practice-told")
    assert "Item 2 of 3" in page.inner_text("#practice-rules")

    # Wrong: told why, not the answer, and the same item again with the answer kept to change.
    page.keyboard.press("s")
    _tick(page, "Work")  # weather left out: not right
    _check(page)
    page.wait_for_selector("#practice-told")
    told = page.inner_text("#practice-told")
    assert "✗ Not right." in told and "Both the office and the storm" in told and "Change your answer" in told
    assert "Item 2 of 3" in page.inner_text("#practice-rules")
    page.wait_for_function("document.querySelector('.task-item.current')")
    assert page.locator("label:has-text('Work') input").is_checked()
    screenshot(page, "potato-training-phone")
    axe_clean(page, "potato-training")
    _tick(page, "Weather")
    _check(page)
    # Two right (the second after a retry) is the pass mark: the round passes without the third item.
    page.wait_for_selector("#verdict")
    assert page.inner_text("h1").endswith(": 67%")
    assert "You passed" in page.inner_text("#verdict")
    feedback = page.locator(".feedback-item")
    assert "1 wrong try first" in feedback.nth(1).inner_text()
    assert "Not asked: the round was passed before it" in feedback.nth(2).inner_text()
    assert "1 wrong answer on the way" in page.inner_text("main")
    screenshot(page, "potato-training-result-phone")
    attempt = Attempt.objects.get(test=test)
    assert attempt.answers[str(test.items.get(sentence_id="t1").pk)] == {"mood": "happy", "topics": ["food"]}
    assert attempt.progress["mistakes"] == 1
    assert Grant.objects.filter(test=test).exists()

    page.get_by_role("link", name="Go to your work").click()
    page.click("text=Take a HIT")
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    assert "Lunch was great." in page.locator(".task-item").first.inner_text()
    assert batch.hits.filter(assignments__worker__user=annotator).exists()
    context.close()


def test_a_practice_round_without_retries_ends_at_a_wrong_answer_and_is_not_taken_again(
        chromium, live_server, tmp_path, capsys):
    config = CONFIG.replace(b"allow_retry: true", b"allow_retry: false")
    for name, data in (("config.yaml", config), ("posts.jsonl", POSTS), ("training.json", TRAINING)):
        (tmp_path / name).write_bytes(data)
    project = potato_project(tmp_path / "config.yaml", capsys)
    test = project.tests.get()
    project_annotator(project, "bo")
    context = chromium.new_context(**DESKTOP)
    page = context.new_page()
    log_in(page, live_server, "bo", "pass-word-1", f"/qualification/{test.name}/")
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    assert page.locator("#cf-submit").is_disabled()  # the item answered first, as on a HIT's page
    screenshot(page, "potato-training-desktop")
    page.keyboard.press("s")  # wrong: the post is happy
    _tick(page, "Food")
    _check(page)
    page.wait_for_selector("#verdict")
    assert "this practice round does not let an item be tried again" in page.inner_text("#verdict")
    assert not Grant.objects.filter(test=test).exists()
    page.goto(f"{live_server.url}/qualification/{test.name}/")
    assert "in this project it is not taken again" in page.inner_text("#verdict")
    context.close()


@pytest.mark.django_db
def test_an_answer_sent_twice_counts_once(client, tmp_path, capsys):
    """The same page sent again (a double click, a second tab) is refused and changes nothing."""
    for name, data in (("config.yaml", CONFIG), ("posts.jsonl", POSTS), ("training.json", TRAINING)):
        (tmp_path / name).write_bytes(data)
    project = potato_project(tmp_path / "config.yaml", capsys)
    test = project.tests.get()
    annotator = project_annotator(project, "cy")
    client.force_login(annotator)
    client.get(f"/qualification/{test.name}/")
    attempt = Attempt.objects.get(test=test)
    first = test.items.get(sentence_id="t1")
    scheme = {scheme["name"]: number for number, scheme in enumerate(
        yaml.safe_load(test.design_source)["annotation_schemes"])}
    form = {"practice_item": first.pk, f"a-{first.pk}-{scheme['mood']}": "sad"}
    url = f"/qualification/{test.name}/attempts/{attempt.pk}/submit/"
    assert client.post(url, form).status_code == 302
    attempt.refresh_from_db()
    assert attempt.progress["mistakes"] == 1 and attempt.progress["at"] == 0
    form[f"a-{first.pk}-{scheme['mood']}"] = "happy"
    form[f"a-{first.pk}-{scheme['topics']}-1"] = "1"
    assert client.post(url, form).status_code == 302
    again = client.post(url, form)
    assert again.status_code == 409 and "answered already" in again.content.decode()
    attempt.refresh_from_db()
    assert (attempt.progress["at"], attempt.progress["right"], attempt.progress["mistakes"]) == (1, [first.pk], 1)
