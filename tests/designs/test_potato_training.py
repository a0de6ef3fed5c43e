"""Potato's training round is a practice round here: the design's screening test, asked on the design's own page
before the real work, graded with the right answers and the explanations shown after it, and passed at Potato's
passing_criteria."""

import json

from designs.potato import UploadedFolder, import_config
from hits.services import batch_publish
from qualification.models import Attempt, Grant
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
    assert found.training_retake == 0  # allow_retry: try again at once
    assert not any(warning.startswith("training") for warning in found.warnings)

    wrong = TRAINING.replace(b'"topics": ["food"]', b'"topic": ["food"]')
    found = import_config(CONFIG, name="config.yaml", folder=_folder(wrong))
    assert found.errors == ["training.json: training_instances item 1: correct_answers names 'topic', which is not "
                            "a scheme of the config (mood, topics)"]


def test_an_annotator_passes_the_practice_round_and_then_works(chromium, live_server, tmp_path, capsys):
    for name, data in (("config.yaml", CONFIG), ("posts.jsonl", POSTS), ("training.json", TRAINING)):
        (tmp_path / name).write_bytes(data)
    project = potato_project(tmp_path / "config.yaml", capsys)
    test = project.tests.get()
    assert (test.name, test.pass_threshold, test.items.count()) == ("mood-of-posts-training", 67, 3)
    batch = batch_publish(batch=project.batches.get())
    annotator = project_annotator(project, "ada")

    context = chromium.new_context(**PHONE)
    page = context.new_page()
    log_in(page, live_server, "ada", "pass-word-1", "/work/")
    # The work says what it needs first, with the way to it.
    assert "This work needs the screening test" in page.inner_text("main")
    page.get_by_role("link", name="Take the screening test").click()
    # The practice round is the design's own page: the same keys, one item after another.
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    items = page.locator(".task-item")
    assert items.count() == 3 and "Best pizza of my life!" in items.nth(0).inner_text()
    page.keyboard.press("h")
    items.nth(0).locator("label:has-text('Food')").click()
    page.get_by_role("button", name="Next →").click()
    items.nth(1).locator("label:has-text('Sad')").click()
    items.nth(1).locator("label:has-text('Work')").click()  # weather left out: not right
    page.get_by_role("button", name="Next →").click()
    items.nth(2).locator("label:has-text('Happy')").click()
    screenshot(page, "potato-training-phone")
    axe_clean(page, "potato-training")
    page.click("#cf-submit")
    page.wait_for_selector("#verdict")
    assert page.inner_text("h1").endswith(": 67%")
    assert "You passed" in page.inner_text("#verdict")
    feedback = page.locator(".feedback-item")
    assert "✗ Not right" in feedback.nth(1).inner_text()
    assert "the answer: mood: sad; topics: work, weather" in feedback.nth(1).inner_text()
    assert "Both the office and the storm" in feedback.nth(1).inner_text()
    screenshot(page, "potato-training-result-phone")
    attempt = Attempt.objects.get(test=test)
    assert attempt.answers[str(test.items.get(sentence_id="t1").pk)] == {"mood": "happy", "topics": ["food"]}
    assert Grant.objects.filter(test=test).exists()

    page.get_by_role("link", name="Go to your work").click()
    page.click("text=Take a HIT")
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    assert "Lunch was great." in page.locator(".task-item").first.inner_text()
    assert batch.hits.filter(assignments__worker__user=annotator).exists()
    context.close()


def test_a_practice_round_page_on_a_desktop_reads_as_a_task_page(chromium, live_server, tmp_path, capsys):
    for name, data in (("config.yaml", CONFIG), ("posts.jsonl", POSTS), ("training.json", TRAINING)):
        (tmp_path / name).write_bytes(data)
    project = potato_project(tmp_path / "config.yaml", capsys)
    project_annotator(project, "bo")
    context = chromium.new_context(**DESKTOP)
    page = context.new_page()
    log_in(page, live_server, "bo", "pass-word-1", f"/qualification/{project.tests.get().name}/")
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    assert page.locator("#cf-submit").is_disabled()  # every item answered first, as on a HIT's page
    screenshot(page, "potato-training-desktop")
    context.close()
