"""Potato's error_span and extractive_qa run as span schemes: error types as labels with a severity asked of each
span, and one answer span of the passage (or Unanswerable), the question shown before it."""

import json

import pytest

from designs.loader import load_text
from designs.potato import import_file
from designs.schemes import SCHEME_TYPES, AnswerProblem, Fields, Record
from hits.services import batch_publish
from tests.browser import axe_clean, drag_characters
from tests.designs.fixtures import hit_page, potato_project, project_annotator
from tests.test_accessibility import PHONE

CONFIG = """annotation_task_name: Translation errors and answers
data_files: [data.jsonl]
item_properties: {id_key: id, text_key: question}
annotation_schemes:
  - annotation_type: error_span
    name: errors
    description: Mark each error and its severity.
    source_field: translation
    error_types:
      - {name: Accuracy, subtypes: [Mistranslation, Omission]}
      - {name: Fluency}
    severities: [{name: Minor, weight: -1}, {name: Major, weight: -5}]
  - annotation_type: extractive_qa
    name: answer
    description: Select the answer in the passage.
    question_field: question
    passage_field: translation
"""
DATA = [{"id": "q1", "question": "Who came?", "translation": "The dog come home late."},
        {"id": "q2", "question": "Why?", "translation": "Nobody knows."}]


def _write(folder):
    (folder / "data.jsonl").write_text("".join(json.dumps(row) + "\n" for row in DATA))
    config = folder / "config.yaml"
    config.write_text(CONFIG)
    return config


def test_error_spans_and_extractive_answers_import_as_span_schemes(tmp_path):
    found = import_file(str(_write(tmp_path)))
    assert found.ok, found.errors
    design = found.design
    errors, answer = design.annotation_schemes
    assert [label.name for label in errors.labels] == ["Accuracy: Mistranslation", "Accuracy: Omission", "Fluency"]
    assert errors.attribute.labels == ["Minor", "Major"] and errors.unit == "characters"
    assert answer.one_per_label and answer.nothing == "Unanswerable"
    # Both mark the translation; the question (Potato's text_key) is shown before it.
    assert design.items.text_key == "translation" and design.items.show == ["question"]
    notes = "\n".join(found.notes)
    assert "error spans, run as spans labelled by error type" in notes and "quality score shown beside" in notes
    assert (errors.attribute.score_from, errors.attribute.weights) == (100, {"Minor": 1, "Major": 5})
    assert "an extractive answer, run as one span labelled answer of 'translation'" in notes


def test_a_span_s_severity_is_asked_and_nothing_to_mark_is_an_answer():
    design = load_text("""title: t
annotation_schemes:
  - annotation_type: span
    name: errors
    labels: [Accuracy, Fluency]
    attribute: {name: severity, labels: [Minor, Major]}
    nothing: No errors
""", name="t.yaml")
    scheme = design.annotation_schemes[0]
    kind, record = SCHEME_TYPES.of(scheme), Record("r1", "The dog come home.")
    read = lambda value: kind.read(scheme, Fields({"a": value}, "a"), record)  # noqa: E731
    assert read(json.dumps([[8, 12, "Fluency", "Minor"]])) == [
        {"start": 8, "end": 12, "label": "Fluency", "text": "come", "severity": "Minor"}]
    with pytest.raises(AnswerProblem, match='pick the severity of the Fluency "come" \\(Minor, Major\\)'):
        read(json.dumps([[8, 12, "Fluency"]]))
    assert read("none") == []  # answered: no errors
    assert read("") is None
    assert kind.answer_schema(scheme)["items"]["required"] == ["start", "end", "label", "text", "severity"]


def test_errors_and_an_answer_are_marked_on_a_phone(chromium, live_server, tmp_path, capsys):
    project = potato_project(_write(tmp_path), capsys)
    batch = batch_publish(batch=project.batches.get())
    project_annotator(project, "ada")
    context, page = hit_page(chromium, live_server, "ada", PHONE)
    first = page.locator(".task-item").first
    assert first.locator(".design-field").inner_text() == "question: Who came?"
    drag_characters(page, first.locator(".span-text"), 8, 12)  # "come"
    first.locator("[data-scheme=errors] .span-label", has_text="Fluency").click()
    assert "done" not in first.get_attribute("class").split()  # its severity is not picked yet
    picker = first.get_by_role("combobox", name="severity of Fluency “come”")
    picker.focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")  # Major
    assert first.get_by_role("combobox", name="severity of Fluency “come”").input_value() == "Major"
    drag_characters(page, first.locator(".span-text"), 0, 7)  # "The dog"
    first.locator("[data-scheme=answer] .span-label").click()
    axe_clean(page, "potato-error-spans-phone")
    page.get_by_role("button", name="Next →").click()
    second = page.locator(".task-item").nth(1)
    second.get_by_role("button", name="Unanswerable").click()
    assert second.locator("[data-scheme=answer] .span-list").inner_text() == "Unanswerable"
    page.click("#cf-submit")
    page.wait_for_url(f"{live_server.url}/work/")
    context.close()
    from hits.models import Assignment

    assignment = Assignment.objects.get(hit__batch=batch)
    answers = {item.content.record_id: assignment.answers[str(item.pk)] for item in assignment.hit.ordered_items()}
    assert answers["q1"] == {
        "errors": [{"start": 8, "end": 12, "label": "Fluency", "text": "come", "severity": "Major"}],
        "answer": [{"start": 0, "end": 7, "label": "answer", "text": "The dog"}]}
    assert answers["q2"] == {"answer": []}
