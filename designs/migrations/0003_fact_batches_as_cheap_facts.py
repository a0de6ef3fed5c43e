"""Batches of the retired facts task type become batches of designs/cheap-facts.yaml, answers and evidence kept.

Each old paragraph payload becomes a record with the entity, its offset, the instruction and its rules as fields;
every answer [s1, s2, …] becomes {"statements": {"Statement 1": s1, …}}, the shape the design's text scheme
stores, and the raw form fields and writing evidence are renamed to the design's fields ("a-<item>-0-<n>"), so
the writing-evidence review reads old submissions as it reads new ones.
"""

import json
import re
from pathlib import Path

from django.db import migrations
from django.db.models import Max

DESIGN = Path(__file__).resolve().parents[1] / "cheap-facts.yaml"
PROMPTS = {
    "facts": ("Write several facts about the highlighted words according to the paragraph. You may add common "
              "knowledge (e.g. Paris is in France), but mainly use what the paragraph says. Do not copy and paste."),
    "counterfacts": ("Write several statements that contradict the paragraph. Make them about the highlighted "
                     "words and use mainly what the paragraph says. Avoid words like not or never."),
}
OLD_FIELD = re.compile(r"^fact-(\d+)-(\d+)$")


def _record(payload):
    rules = payload.get("rules") or {}
    instruction = payload.get("instruction", "facts")
    return {"kind": "record", "record_id": payload["item_id"], "text": payload["text"], "stage": "",
            "source_item": None,
            "fields": {"entity": payload["entity"], "entity_start": payload["entity_start"],
                       "instruction": instruction, "prompt": PROMPTS.get(instruction, ""),
                       "rules": {"banned": list(rules["banned"])} if rules.get("banned") else {},
                       "hypothesis": payload.get("hypothesis", ""), "label": payload.get("label", ""),
                       "source": payload.get("source", "")}}


def _renamed(name):
    found = OLD_FIELD.match(name)
    return f"a-{found.group(1)}-0-{found.group(2)}" if found else name


def _raw(raw):
    raw = {_renamed(name): value for name, value in (raw or {}).items()}
    try:
        evidence = json.loads(raw.get("_evidence") or "{}")
    except ValueError:
        return raw
    if isinstance(evidence, dict) and isinstance(evidence.get("lines"), dict):
        evidence["lines"] = {_renamed(name): value for name, value in evidence["lines"].items()}
        raw["_evidence"] = json.dumps(evidence)
    return raw


def forwards(apps, schema_editor):
    Batch = apps.get_model("hits", "Batch")
    Item = apps.get_model("hits", "Item")
    Assignment = apps.get_model("hits", "Assignment")
    DesignVersion = apps.get_model("designs", "DesignVersion")
    DesignBatch = apps.get_model("designs", "DesignBatch")
    batches = list(Batch.objects.filter(task_type="facts"))
    if not batches:
        return
    source = DESIGN.read_text(encoding="utf-8")
    version = DesignVersion.objects.filter(slug="cheap-facts", source=source).order_by("-number").first()
    if version is None:
        number = (DesignVersion.objects.filter(slug="cheap-facts").aggregate(n=Max("number"))["n"] or 0) + 1
        version = DesignVersion.objects.create(slug="cheap-facts", number=number, source=source,
                                               title="Write about the highlighted words")
    for batch in batches:
        for item in Item.objects.filter(batch=batch):
            if item.payload.get("kind") == "fact":
                item.payload = _record(item.payload)
                item.save(update_fields=["payload"])
        for assignment in Assignment.objects.filter(hit__batch=batch):
            if assignment.answers:
                assignment.answers = {
                    item: value if isinstance(value, dict) else
                    {"statements": {f"Statement {line}": text for line, text in enumerate(value, 1)}}
                    for item, value in assignment.answers.items()}
            assignment.raw_answers = _raw(assignment.raw_answers) if assignment.raw_answers else assignment.raw_answers
            assignment.save(update_fields=["answers", "raw_answers"])
        DesignBatch.objects.get_or_create(batch=batch, defaults={"version": version, "stage": ""})
        batch.task_type = "design"
        batch.save(update_fields=["task_type"])


class Migration(migrations.Migration):
    dependencies = [("designs", "0002_choice_batches_as_bcopa")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
