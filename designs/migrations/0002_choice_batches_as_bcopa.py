"""Batches of the retired 2-choice task type become batches of designs/bcopa.yaml, answers kept.

Balanced COPA's task type ("choice") was replaced by the design file; a site that ran COPA batches before keeps
them: each becomes a design batch of bcopa.yaml's text as it is when this runs (a version of its own), its items
records with the question and the two alternatives shown, and every answer {item: 1|2} becomes
{item: {"choice": "1"|"2"}}, the shape the design's pairwise scheme stores.
"""

from pathlib import Path

from django.db import migrations
from django.db.models import Max

QUESTIONS = {"cause": "What was the cause of this?", "effect": "What happened as a result?"}
DESIGN = Path(__file__).resolve().parents[1] / "bcopa.yaml"


def _record(payload):
    return {"kind": "record", "record_id": payload["item_id"], "text": payload["premise"],
            "fields": {"question": QUESTIONS.get(payload.get("asks_for", "cause"), QUESTIONS["cause"]),
                       "alternatives": [payload["alternative_1"], payload["alternative_2"]]},
            "stage": "", "source_item": None}


def forwards(apps, schema_editor):
    Batch = apps.get_model("hits", "Batch")
    Item = apps.get_model("hits", "Item")
    Assignment = apps.get_model("hits", "Assignment")
    DesignVersion = apps.get_model("designs", "DesignVersion")
    DesignBatch = apps.get_model("designs", "DesignBatch")
    batches = list(Batch.objects.filter(task_type="choice"))
    if not batches:
        return
    source = DESIGN.read_text(encoding="utf-8")
    version = DesignVersion.objects.filter(slug="bcopa", source=source).order_by("-number").first()
    if version is None:
        number = (DesignVersion.objects.filter(slug="bcopa").aggregate(n=Max("number"))["n"] or 0) + 1
        version = DesignVersion.objects.create(slug="bcopa", number=number, source=source,
                                               title="Which alternative is more plausible?")
    for batch in batches:
        for item in Item.objects.filter(batch=batch):
            if item.payload.get("kind") == "choice":
                item.payload = _record(item.payload)
            if item.gold_answer is not None:
                item.gold_answer = str(item.gold_answer)
            item.save(update_fields=["payload", "gold_answer"])
        for assignment in Assignment.objects.filter(hit__batch=batch).exclude(answers=None):
            assignment.answers = {item: value if isinstance(value, dict) else {"choice": str(value)}
                                  for item, value in assignment.answers.items()}
            assignment.save(update_fields=["answers"])
        DesignBatch.objects.get_or_create(batch=batch, defaults={"version": version, "stage": ""})
        batch.task_type = "design"
        batch.save(update_fields=["task_type"])


class Migration(migrations.Migration):
    dependencies = [
        ("designs", "0001_initial"),
        ("hits", "0009_payment_fractions_and_send_lease"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
