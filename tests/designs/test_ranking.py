"""The ranking scheme type (Potato's ranking, Label Studio's Ranker): the labels put in order with buttons a keyboard
reaches, read back whole, compared per label by place, combined by mean place, written to Potato's export."""

import json

import pytest
from django.contrib.auth.models import User

from accounts import roles
from designs.export import export_batch
from designs.items import read_items
from designs.loader import load_text
from designs.schemes import SCHEME_TYPES, AnswerProblem, Fields, Record
from designs.services import design_batch_create, design_version_save
from hits.models import Assignment
from hits.services import batch_publish
from tests.browser import axe_clean, log_in, screenshot
from tests.test_accessibility import PHONE

SOURCE = """title: Headlines
hits: {layout: item, order: file, items_per_hit: 2, assignments_per_hit: 1}
annotation_schemes:
  - annotation_type: ranking
    name: order
    description: In what order would you read them?
    labels: [markets, storm, cup]
"""
RECORD = Record(id="i1", text="", fields={})


def _scheme():
    return load_text(SOURCE, name="headlines.yaml").annotation_schemes[0]


def test_an_order_is_read_whole_and_compared_by_place():
    scheme, kind = _scheme(), SCHEME_TYPES.of(_scheme())
    assert kind.read(scheme, Fields({"a": '["storm", "markets", "cup"]'}, "a"), RECORD) == ["storm", "markets", "cup"]
    assert kind.read(scheme, Fields({}, "a"), RECORD) is None
    for wrong in ('["storm", "markets"]', '["storm", "storm", "cup"]', '["storm", "markets", "rain"]', "{"):
        with pytest.raises(AnswerProblem):
            kind.read(scheme, Fields({"a": wrong}, "a"), RECORD)
    assert kind.units(scheme, ["storm", "markets", "cup"]) == {"storm": 1, "markets": 2, "cup": 3}
    # Borda: by mean place; storm is first twice and second once, markets first once.
    answers = [["storm", "markets", "cup"], ["storm", "cup", "markets"], ["markets", "storm", "cup"]]
    assert kind.combine(scheme, answers) == ["storm", "markets", "cup"]
    assert kind.potato_answer(scheme, ["storm", "markets", "cup"], RECORD) == {
        "labels": {"rank_order": "storm,markets,cup"}}


def test_an_annotator_orders_the_labels_by_keyboard_on_a_phone(chromium, live_server, tmp_path):
    annotator = User.objects.create_user("rater", password="pass-word-1")
    annotator.groups.add(roles.group(roles.ANNOTATOR))
    version = design_version_save(source=SOURCE, slug="headlines")
    records = read_items(b'{"id": "a", "text": "Monday\'s front page."}\n{"id": "b", "text": "Tuesday\'s."}\n',
                         name="h.jsonl", design=version.design)
    batch = batch_publish(batch=design_batch_create(version=version, records=records, name="headlines"))
    context = chromium.new_context(**PHONE)
    page = context.new_page()
    log_in(page, live_server, "rater", "pass-word-1", "/work/")
    page.click("text=Take a HIT")
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    first = page.locator(".task-item").first
    first.get_by_role("button", name="Move storm down", exact=True).focus()
    page.keyboard.press("Enter")  # storm below cup
    first.get_by_role("button", name="Move cup up", exact=True).focus()
    page.keyboard.press("Enter")  # cup above markets: cup, markets, storm
    assert first.locator(".ranking-row").evaluate_all("rows => rows.map(r => r.dataset.label)") == [
        "cup", "markets", "storm"]
    screenshot(page, "ranking-phone")
    axe_clean(page, "ranking")
    page.get_by_role("button", name="Next →").click()
    page.locator(".task-item").nth(1).get_by_role("button", name="Keep this order").click()
    page.click("#cf-submit")
    page.wait_for_url(f"{live_server.url}/work/")
    context.close()
    assignment = Assignment.objects.get(hit__batch=batch)
    orders = {item.content.record_id: assignment.answers[str(item.pk)]["order"]
              for item in assignment.hit.ordered_items()}
    assert orders == {"a": ["cup", "markets", "storm"], "b": ["markets", "storm", "cup"]}
    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "out", formats=("potato",))}
    lines = [json.loads(line) for line in written["annotations.jsonl"].read_text().splitlines()]
    assert {line["instance_id"]: line["labels"] for line in lines} == {
        "a": {"order": {"rank_order": "cup,markets,storm"}}, "b": {"order": {"rank_order": "markets,storm,cup"}}}
