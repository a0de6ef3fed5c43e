"""Item payloads become typed records (core.items): a `kind`, and one shape per kind.

Before, a sentence payload came in three shapes: {"text", "domain",
"sentence_id": <our row id>} from a corpus, {"text", "source": "semeval:<id>"}
from the released files, and either of them with "source_item" for spans.
"""

from django.db import migrations


def to_sentence_items(apps, schema_editor):
    Item = apps.get_model("hits", "Item")
    Sentence = apps.get_model("filtering", "Sentence")
    legacy = [item for item in Item.objects.all() if "kind" not in item.payload]
    rows = {s.pk: s for s in Sentence.objects.filter(
        pk__in=[i.payload["sentence_id"] for i in legacy if isinstance(i.payload.get("sentence_id"), int)])
        .select_related("document__corpus")}
    for item in legacy:
        old = item.payload
        new = {"kind": "sentence", "text": old["text"], "sentence_id": item.key, "domain": old.get("domain", ""),
               "document": "", "corpus": "", "sentence_pk": None, "source_item": old.get("source_item")}
        source = old.get("source", "")
        if source.startswith("semeval:"):
            new.update(sentence_id=source.split(":", 1)[1], corpus="semeval2020t5")
        elif isinstance(old.get("sentence_id"), int):
            sentence = rows.get(old["sentence_id"])
            new.update(sentence_id=str(old["sentence_id"]), sentence_pk=old["sentence_id"])
            if sentence is not None:
                new.update(document=sentence.document.external_id, corpus=sentence.document.corpus.name)
        item.payload = new
        item.save(update_fields=["payload"])


class Migration(migrations.Migration):
    dependencies = [("hits", "0002_constraints"), ("filtering", "0003_sentence_sentence_start_before_end")]
    operations = [migrations.RunPython(to_sentence_items, migrations.RunPython.noop)]
