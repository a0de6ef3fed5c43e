"""span_link (Potato's span_link, its coreference, Label Studio's Relations): links between two spans a span scheme of
the item marked, made by keyboard with pickers, checked on the server against the spans of the same answer."""

import json

import pytest
from django.contrib.auth.models import User

from accounts import roles
from designs.answers import read_item
from designs.export import export_batch
from designs.items import read_items
from designs.loader import DesignError, load_text
from designs.potato import import_file
from designs.schemes import SCHEME_TYPES, AnswerProblem, Record
from designs.services import design_batch_create, design_version_save
from hits.models import Assignment
from hits.services import batch_publish
from tests.browser import axe_clean, screenshot
from tests.designs.fixtures import hit_page
from tests.test_accessibility import DESKTOP

SOURCE = """title: Who works where
hits: {layout: item, order: file, items_per_hit: 1, assignments_per_hit: 1}
annotation_schemes:
  - annotation_type: span
    name: entities
    description: Mark each person and organisation.
    labels: [person, organisation]
    sequential_key_binding: true
  - annotation_type: span_link
    name: relations
    description: Link each person to where they work.
    span_schema: entities
    link_types:
      - {name: works_for, directed: true, allowed_source_labels: [person], allowed_target_labels: [organisation]}
      - {name: knows}
"""
TEXT = "Ada met Bob at Acme."
ADA, BOB, ACME = [0, 3, "person"], [8, 11, "person"], [15, 19, "organisation"]


def _read(spans, links):
    design = load_text(SOURCE, name="links.yaml")
    raw = {"a-1-0": json.dumps(spans), "a-1-1": json.dumps(links)}
    return read_item(design, Record("t1", TEXT), raw, 1)[0]


def test_a_link_joins_two_marked_spans_of_the_labels_its_type_allows():
    answers = _read([ADA, BOB, ACME], [["works_for", ADA, ACME], ["knows", ADA, BOB]])
    assert answers["relations"] == [
        {"type": "works_for", "from": {"start": 0, "end": 3, "label": "person"},
         "to": {"start": 15, "end": 19, "label": "organisation"}},
        {"type": "knows", "from": {"start": 0, "end": 3, "label": "person"},
         "to": {"start": 8, "end": 11, "label": "person"}}]
    for spans, links, said in (
            ([ADA, BOB], [["works_for", ADA, BOB]], "works_for link's second span is a person; it must be an "
                                                     "organisation"),
            ([ADA, ACME], [["works_for", ADA, ADA]], "joins two different spans"),
            ([ADA, BOB], [["knows", ADA, BOB], ["knows", BOB, ADA]], "the same knows link is given twice"),
            ([ADA], [["knows", ADA, BOB]], "names a span not marked in entities \\(person at 8:11\\)"),
            ([ADA, BOB], [["likes", ADA, BOB]], "is not a link \\[type, span, span\\] of one of works_for, knows")):
        with pytest.raises(AnswerProblem, match=said):
            _read(spans, links)
    # A directed link may go both ways: Ada works for Acme is not Acme works for Ada (refused here by its labels).
    assert len(_read([ADA, BOB], [["knows", ADA, BOB]])["relations"]) == 1


def test_a_link_scheme_names_a_span_scheme_and_its_labels():
    bad = SOURCE.replace("span_schema: entities", "span_schema: people").replace("[organisation]", "[company]")
    with pytest.raises(DesignError) as found:
        load_text(bad, name="links.yaml")
    assert "links.yaml:" in str(found.value) and "span_schema: names 'people', which is not a span scheme of the " \
                                                "design; its span schemes are entities" in str(found.value)
    with pytest.raises(DesignError, match="'company' is not a label of entities \\(organisation, person\\)"):
        load_text(SOURCE.replace("[organisation]", "[company]"), name="links.yaml")


def test_potato_coreference_runs_as_links_between_mentions(tmp_path):
    (tmp_path / "data.jsonl").write_text('{"id": "d1", "text": "Ada said she would come."}\n')
    config = tmp_path / "config.yaml"
    config.write_text("""annotation_task_name: Who is who
data_files: [data.jsonl]
item_properties: {id_key: id, text_key: text}
annotation_schemes:
  - {annotation_type: span, name: mentions, description: Mark each mention., labels: [PERSON]}
  - {annotation_type: coreference, name: chains, description: Link mentions of one entity., span_schema: mentions,
     entity_types: [PERSON]}
""")
    found = import_file(str(config))
    assert found.ok, found.errors
    chains = found.design.scheme("chains")
    assert chains.annotation_type == "span_link" and [kind.name for kind in chains.link_types] == ["same entity"]
    assert any("coreference chains, run as links between mentions" in note and "entity_types are not asked" in note
               for note in found.notes)
    # Written to Potato's export as Potato keeps chains: one undirected link of all the mentions of an entity.
    same = "same entity"
    ada, she, bo, him, it = ({"start": start, "end": end, "label": "PERSON"} for start, end in
                             ((0, 3), (9, 12), (30, 32), (40, 43), (50, 52)))
    links = [{"type": same, "from": she, "to": ada}, {"type": same, "from": him, "to": bo},
             {"type": same, "from": it, "to": she}]
    written = SCHEME_TYPES.of(chains).potato_alias_answer("coreference", chains, links, None)
    assert written == {"links": [
        {"id": "chain_1", "schema": "chains", "link_type": "coreference",
         "span_ids": ["mentions_PERSON_0_3", "mentions_PERSON_9_12", "mentions_PERSON_50_52"],
         "direction": "undirected", "properties": {"color": "#6E56CF"}},
        {"id": "chain_2", "schema": "chains", "link_type": "coreference",
         "span_ids": ["mentions_PERSON_30_32", "mentions_PERSON_40_43"], "direction": "undirected",
         "properties": {"color": "#EF4444"}}]}
    assert found.design.export.potato_types == {"chains": "coreference"}


def test_links_are_made_by_keyboard_and_go_with_their_spans(chromium, live_server, tmp_path):
    annotator = User.objects.create_user("linker", password="pass-word-1")
    annotator.groups.add(roles.group(roles.ANNOTATOR))
    version = design_version_save(source=SOURCE, slug="links")
    records = read_items(json.dumps({"id": "t1", "text": TEXT}).encode() + b"\n", name="t.jsonl",
                         design=version.design)
    batch = batch_publish(batch=design_batch_create(version=version, records=records, name="links"))
    context, page = hit_page(chromium, live_server, "linker", DESKTOP)
    item = page.locator(".task-item").first
    item.locator(".span-text").focus()
    for keys, label in ((["ArrowRight"], "1"), (["ArrowRight"] * 2, "1"), (["ArrowRight"] * 2, "2")):
        for key in keys:  # Ada, Bob, Acme: each a word, its label's key after it
            page.keyboard.press(key)
        page.keyboard.press(label)
    assert item.locator(".link-from option").all_inner_texts() == [
        "person: “Ada”", "person: “Bob”", "organisation: “Acme”"]
    item.locator(".link-to").focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")  # the second span: Acme
    item.get_by_role("button", name="Add the link").focus()
    page.keyboard.press("Enter")
    assert item.locator(".link-list").inner_text().startswith("person: “Ada” → works_for → organisation: “Acme”")
    item.locator(".link-type").focus()
    page.keyboard.press("ArrowDown")  # knows
    item.locator(".link-to").focus()
    page.keyboard.press("ArrowUp")  # Bob
    item.get_by_role("button", name="Add the link").click()
    assert item.locator(".link-list li").count() == 2
    screenshot(page, "span-links")
    axe_clean(page, "span-links")
    # Removing Bob's span takes the link to Bob with it.
    item.get_by_role("button", name="Remove person").nth(1).click()
    assert item.locator(".link-list li").count() == 1
    page.click("#cf-submit")
    page.wait_for_url(f"{live_server.url}/work/")
    context.close()
    answer = next(iter(Assignment.objects.get(hit__batch=batch).answers.values()))
    assert answer["relations"] == [{"type": "works_for", "from": {"start": 0, "end": 3, "label": "person"},
                                    "to": {"start": 15, "end": 19, "label": "organisation"}}]
    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "out", formats=("potato",))}
    record = json.loads(written["annotations.jsonl"].read_text().splitlines()[0])
    assert record["links"] == {"relations": [{
        "id": "relations_1", "schema": "relations", "link_type": "works_for",
        "span_ids": ["entities_person_0_3", "entities_organisation_15_19"], "direction": "directed",
        "properties": {}}]}
