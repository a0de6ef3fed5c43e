"""Batches of the retired Subtask-2 task type become batches of designs/semeval-subtask2.yaml, answers kept.

SemEval Subtask 2's span page ("subtask2") was replaced by the design file on the generic page; a site that
collected spans before keeps them: each batch becomes a design batch of semeval-subtask2.yaml's text as it is when
this runs, its sentence items unchanged, and every answer {"counterfactual": true, "antecedent": [start, end],
"consequent": [start, end] or [-1, -1]} (end inclusive) becomes the design's {"counterfactual": "yes", "spans":
[{start, end, label, text}]} (end exclusive); a "no" keeps its reason. The SpanAnswer and SpanAnnotation rows the
review reads were written when the answers came in and stay as they are. A claimed HIT's draft keeps its double
checks and reasons under the design page's field names; its half-marked spans (word numbers on the old page) are
marked again on the new one.
"""

from pathlib import Path

from django.db import migrations
from django.db.models import Max

DESIGN = Path(__file__).resolve().parents[1] / "semeval-subtask2.yaml"
SLUG = "semeval-subtask2"
YES = {True: "yes", False: "no"}


def _answer(value, text):
    if not isinstance(value, dict) or "spans" in value or not isinstance(value.get("counterfactual"), bool):
        return value  # already the design's shape
    found = {"counterfactual": YES[value["counterfactual"]]}
    if value["counterfactual"]:
        found["spans"] = [{"start": start, "end": end + 1, "label": label, "text": text[start:end + 1]}
                          for label in ("antecedent", "consequent")
                          for start, end in [value.get(label) or (-1, -1)] if start >= 0]
    elif value.get("reason"):
        found["reason"] = value["reason"]
    return found


def _draft(draft):
    kept = {}
    for key, value in draft.items():
        kind, _, item = key.partition("-")
        if kind == "cf" and item.isdigit():
            kept[f"a-{item}-0"] = "yes" if str(value).strip().lower() in ("1", "yes", "true") else "no"
        elif kind == "why" and item.isdigit():
            kept[f"a-{item}-2"] = value
        elif kind not in ("ant", "con", "nocon"):
            kept[key] = value
    return kept


def forwards(apps, schema_editor):
    Batch = apps.get_model("hits", "Batch")
    Item = apps.get_model("hits", "Item")
    Assignment = apps.get_model("hits", "Assignment")
    DesignVersion = apps.get_model("designs", "DesignVersion")
    DesignBatch = apps.get_model("designs", "DesignBatch")
    batches = list(Batch.objects.filter(task_type="subtask2"))
    if not batches:
        return
    source = DESIGN.read_text(encoding="utf-8")
    version = DesignVersion.objects.filter(slug=SLUG, source=source).order_by("-number").first()
    if version is None:
        number = (DesignVersion.objects.filter(slug=SLUG).aggregate(n=Max("number"))["n"] or 0) + 1
        version = DesignVersion.objects.create(slug=SLUG, number=number, source=source,
                                               title="Mark the antecedent and the consequent")
    for batch in batches:
        texts = {str(pk): payload.get("text", "") for pk, payload in
                 Item.objects.filter(batch=batch).values_list("pk", "payload")}
        for assignment in Assignment.objects.filter(hit__batch=batch):
            fields = []
            if assignment.answers is not None:
                assignment.answers = {item: _answer(value, texts.get(item, ""))
                                      for item, value in assignment.answers.items()}
                fields.append("answers")
            if assignment.draft:
                assignment.draft = _draft(assignment.draft)
                fields.append("draft")
            if fields:
                assignment.save(update_fields=fields)
        DesignBatch.objects.get_or_create(batch=batch, defaults={"version": version, "stage": ""})
        batch.task_type = "design"
        batch.save(update_fields=["task_type"])


class Migration(migrations.Migration):
    dependencies = [
        ("designs", "0008_subtask1_batches_as_designs"),
        ("hits", "0009_payment_fractions_and_send_lease"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
