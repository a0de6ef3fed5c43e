"""A later stage's items that share their record's id with items made before them in their batch (one an output
of each writer, one each round) get their own id, `<record id>#<n>`, as designs/stages.py now names them: the
exports, the reports and Label Studio's tasks told them apart by their order only. The first of a record's items
keeps the record's id, so an export where no id repeats stays as it was."""

from collections import Counter

from django.db import migrations


def name_copies(apps, schema_editor):
    Item = apps.get_model("hits", "Item")
    made: Counter = Counter()
    batch = None
    for pk, batch_id, payload in (Item.objects.filter(payload__kind="record").order_by("batch_id", "pk")
                                  .values_list("pk", "batch_id", "payload").iterator(chunk_size=2000)):
        if batch_id != batch:
            made, batch = Counter(), batch_id
        made[payload["record_id"]] += 1
        if made[payload["record_id"]] > 1 and not payload.get("own_id"):
            Item.objects.filter(pk=pk).update(
                payload={**payload, "own_id": f"{payload['record_id']}#{made[payload['record_id']]}"})


class Migration(migrations.Migration):

    dependencies = [
        ("designs", "0016_shared_events"),
        ("hits", "0012_answers_seen"),
    ]

    operations = [migrations.RunPython(name_copies, migrations.RunPython.noop)]
