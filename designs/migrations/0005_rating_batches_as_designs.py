"""Batches of the retired Likert and pairwise task types (TimeTravel's human evaluation) become batches of
designs/timetravel-ratings.yaml and designs/timetravel-comparisons.yaml, answers kept.

A rating item becomes a record (the output as text, the story it answers and the system as fields) and its
answer [r1, r2, …] {scheme of question 1: r1, …}; a batch whose questions or scale are not the shipped ones gets a
design version of its own written from them, so no answer loses its question. A pair becomes a record (the story
as text, the two outputs compared, which system wrote each) and "a", "b", "both_good", "both_bad" the design's
"A", "B", "Equally good", "Equally bad".
"""

import json
from pathlib import Path

from django.db import migrations
from django.db.models import Max

FOLDER = Path(__file__).resolve().parents[1]
PAIR = {"a": "A", "b": "B", "both_good": "Equally good", "both_bad": "Equally bad"}


def _version(DesignVersion, slug, source, title):
    found = DesignVersion.objects.filter(slug=slug, source=source).order_by("-number").first()
    if found is not None:
        return found
    number = (DesignVersion.objects.filter(slug=slug).aggregate(n=Max("number"))["n"] or 0) + 1
    return DesignVersion.objects.create(slug=slug, number=number, source=source, title=title)


def _ratings_source(questions, scale):
    shipped = (FOLDER / "timetravel-ratings.yaml").read_text(encoding="utf-8")
    if list(questions) == ["Does the ending fit the new second sentence?",
                           "Does the ending keep as much of the original as it could?"] and scale == 3:
        return shipped, ["fits", "minimal"]
    names = [f"q{number}" for number in range(1, len(questions) + 1)]
    schemes = "".join(f"  - {{annotation_type: likert, name: {name}, description: {json.dumps(question)}, "
                      f"size: {scale}, label_requirement: {{required: true}}}}\n"
                      for name, question in zip(names, questions, strict=True))
    source = ("title: Rate short texts\nitems: {id_key: id, text_key: ending, noun: text, show: [story], "
              "group_key: system}\nannotation_schemes:\n" + schemes + "hits: {items_per_hit: 10, "
              "assignments_per_hit: 2}\n")
    return source, names


def forwards(apps, schema_editor):
    Batch = apps.get_model("hits", "Batch")
    Item = apps.get_model("hits", "Item")
    Assignment = apps.get_model("hits", "Assignment")
    DesignVersion = apps.get_model("designs", "DesignVersion")
    DesignBatch = apps.get_model("designs", "DesignBatch")
    for batch in Batch.objects.filter(task_type__in=("likert", "pairwise")):
        items = list(Item.objects.filter(batch=batch))
        if batch.task_type == "likert":
            first = next((item.payload for item in items if item.payload.get("kind") == "rating"), {})
            source, names = _ratings_source(first.get("questions", ()), first.get("scale", 3))
            version = _version(DesignVersion, "timetravel-ratings", source, "Rate short texts")
            for item in items:
                payload = item.payload
                if payload.get("kind") == "rating":
                    item.payload = {"kind": "record", "record_id": payload["item_id"], "text": payload["output"],
                                    "fields": {"story": payload["context"], "system": payload.get("system", "")},
                                    "stage": "", "source_item": None}
                    item.save(update_fields=["payload"])

            def answer(value, names=names):
                return dict(zip(names, value, strict=False))
        else:
            source = (FOLDER / "timetravel-comparisons.yaml").read_text(encoding="utf-8")
            version = _version(DesignVersion, "timetravel-comparisons", source, "Compare two short texts")
            for item in items:
                payload = item.payload
                if payload.get("kind") == "pair":
                    item.payload = {"kind": "record", "record_id": payload["item_id"], "text": payload["context"],
                                    "fields": {"endings": [payload["output_a"], payload["output_b"]],
                                               "system_a": payload.get("system_a", ""),
                                               "system_b": payload.get("system_b", "")},
                                    "stage": "", "source_item": None}
                    item.save(update_fields=["payload"])

            def answer(value):
                return {"better": PAIR.get(value, value)}
        for assignment in Assignment.objects.filter(hit__batch=batch).exclude(answers=None):
            assignment.answers = {item: value if isinstance(value, dict) else answer(value)
                                  for item, value in assignment.answers.items()}
            assignment.save(update_fields=["answers"])
        DesignBatch.objects.get_or_create(batch=batch, defaults={"version": version, "stage": ""})
        batch.task_type = "design"
        batch.save(update_fields=["task_type"])


class Migration(migrations.Migration):
    dependencies = [("designs", "0004_design_workflows")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
