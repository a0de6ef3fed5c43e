"""Batches of the retired Subtask-1 task type become batches of designs/semeval-subtask1.yaml, answers kept.

SemEval Subtask 1 ("subtask1") was replaced by the design file on the generic page; a site that labeled sentences
before keeps them: each batch becomes a design batch of semeval-subtask1.yaml's text as it is when this runs, its
sentence items unchanged (the releases and the span stage read them), every answer {item: 1|0} becomes
{item: {"counterfactual": "1"|"0"}}, the shape the design's radio scheme stores, and a claimed HIT's draft keeps
its answers under the design page's field names ("item-<id>" -> "a-<id>-0").
"""

from pathlib import Path

from django.db import migrations
from django.db.models import Max

DESIGN = Path(__file__).resolve().parents[1] / "semeval-subtask1.yaml"
SLUG, SCHEME = "semeval-subtask1", "counterfactual"


def _draft(draft):
    return {f"a-{key[5:]}-0" if key.startswith("item-") else key: value for key, value in draft.items()}


def forwards(apps, schema_editor):
    Batch = apps.get_model("hits", "Batch")
    Assignment = apps.get_model("hits", "Assignment")
    DesignVersion = apps.get_model("designs", "DesignVersion")
    DesignBatch = apps.get_model("designs", "DesignBatch")
    batches = list(Batch.objects.filter(task_type="subtask1"))
    if not batches:
        return
    source = DESIGN.read_text(encoding="utf-8")
    version = DesignVersion.objects.filter(slug=SLUG, source=source).order_by("-number").first()
    if version is None:
        number = (DesignVersion.objects.filter(slug=SLUG).aggregate(n=Max("number"))["n"] or 0) + 1
        version = DesignVersion.objects.create(slug=SLUG, number=number, source=source,
                                               title="Is this sentence counterfactual?")
    for batch in batches:
        for assignment in Assignment.objects.filter(hit__batch=batch):
            fields = []
            if assignment.answers is not None:
                assignment.answers = {item: value if isinstance(value, dict) else {SCHEME: str(value)}
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
        ("designs", "0007_story_workflows_as_designs"),
        ("hits", "0009_payment_fractions_and_send_lease"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
