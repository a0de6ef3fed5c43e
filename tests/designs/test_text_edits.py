"""A text scheme whose boxes start as an item's text (prefill_key) and whose answer must stay an edit of it (edit:
max_changed, min_kept, must_change): refused on the server by name and shown as it is typed in Chromium."""

import pytest
from django.contrib.auth.models import User

from accounts import roles
from core.stories import edit_size
from designs.answers import read_item
from designs.items import Record
from designs.loader import DesignError, load_text
from designs.schemes import AnswerProblem
from designs.services import design_batch_create, design_version_save
from hits.models import Assignment
from hits.services import batch_publish
from tests.browser import log_in

DESIGN = """title: Edit the ending
items: {id_key: id, text_key: premise, show: [counterfactual]}
annotation_schemes:
  - annotation_type: text
    name: ending
    description: Edit the ending so that it follows the new sentence
    labels: [Sentence 3, Sentence 4]
    prefill_key: ending
    edit: {max_changed: 0.5, min_kept: 0.4}
    label_requirement: {required: true}
hits: {items_per_hit: 1, assignments_per_hit: 1}
"""
STORY = Record(id="s1", text="Ann planned a picnic.", fields={
    "counterfactual": "It rained all day.", "ending": ["She packed sandwiches.", "They ate on the grass."]})


def _read(fields):
    design = load_text(DESIGN, name="edit.yaml")
    return read_item(design, STORY, {f"a-1-0-{n}": text for n, text in enumerate(fields, 1)}, 1)


def test_an_edit_within_the_bound_is_kept_and_the_rest_are_refused_by_name():
    answers, missing = _read(["She packed umbrellas.", "They ate in the car."])
    assert answers == {"ending": {"Sentence 3": "She packed umbrellas.", "Sentence 4": "They ate in the car."}}
    assert missing == []
    for fields, message in [
        (["She packed sandwiches.", "They ate on the grass."], "edit: is unchanged; edit it"),
        (["Nobody came.", "The storm broke every window in town."], "edit: is rewritten, not edited: "),
        (["She packed umbrellas.", ""], "Sentence 4: is empty; edit it, do not delete it"),
    ]:
        with pytest.raises(AnswerProblem, match=message):
            _read(fields)


def test_an_edit_bound_without_a_prefill_is_refused_at_its_line():
    with pytest.raises(DesignError) as caught:
        load_text(DESIGN.replace("    prefill_key: ending\n", ""), name="edit.yaml")
    assert str(caught.value.problems[0]).startswith("edit.yaml:8: annotation_schemes.0.edit: an edit bound needs "
                                                    "prefill_key")


@pytest.mark.django_db(transaction=True)
def test_the_page_starts_from_the_ending_and_measures_the_edit_as_it_is_typed(browser_page, live_server):
    version = design_version_save(source=DESIGN, slug="edit")
    batch = batch_publish(batch=design_batch_create(version=version, records=[STORY], name="edits",
                                                    provider="inhouse"))
    user = User.objects.create_user("editor", password="pass-word-1")
    user.groups.add(roles.group(roles.ANNOTATOR))
    page = browser_page
    log_in(page, live_server, "editor", "pass-word-1", "/work/")
    page.click("text=Take a HIT")
    page.wait_for_selector(".design-item")
    boxes = page.locator(".text-input")
    assert [boxes.nth(n).input_value() for n in range(2)] == ["She packed sandwiches.", "They ate on the grass."]
    note = page.locator(".edit-note")
    page.wait_for_function("document.querySelector('.edit-note').textContent !== ''")  # the page's script has run
    assert note.inner_text() == "edit: is unchanged; edit it" and page.is_disabled("#cf-submit")
    boxes.nth(1).fill("The storm broke every window in the whole town.")
    assert note.inner_text().startswith("edit: is rewritten, not edited: ")
    boxes.nth(1).fill("They ate in the car.")
    # The page's measure is the server's: on -> in, grass -> car.
    expected = edit_size(STORY.fields["ending"], ["She packed sandwiches.", "They ate in the car."]).describe()
    assert note.inner_text() == expected == "2 word edits for 8 words (25% changed, 75% kept)"
    page.click("#cf-submit")
    page.wait_for_url(f"{live_server.url}/work/")
    assert Assignment.objects.get(hit__batch=batch).answers[str(batch.items.get().pk)]["ending"]["Sentence 4"] == \
        "They ate in the car."
