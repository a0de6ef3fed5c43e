"""Workflows of the retired story-write / story-edit task types (chains/) become runs of designs/timetravel.yaml,
answers and lineage kept.

The write stage's batch is the workflow's first batch (stage "write"), the check-and-edit stage's its "check"
stage. A story item becomes a record (the premise as text; the second sentence and the ending as fields); a
checked counterfactual's item carries it as the field `counterfactual`, its round and the chain's first item
(`origin`), as designs/stages.py makes them. A check {"checks": {...}, "passed", "rewrite" | "ending"} becomes
{"conditions": {row: "yes" | "no"}, "rewrite" | "edited_ending"}. A workflow whose loop limit is not the shipped
file's gets a version of its own (max_rounds = loop limit - 1: the failed checks before the organizer decides),
and the organizer's decisions become ChainDecisions.

The workflow tables (chains_workflow, chains_stage, chains_chain, chains_step) are read with SQL, as they are:
the app that made them is gone (designs/0010 drops them), and a database made after it never had them.
"""

import json
import re
from pathlib import Path
from types import SimpleNamespace

import yaml
from django.db import migrations
from django.db.models import Max

FOLDER = Path(__file__).resolve().parents[1]
CONDITIONS = ("related", "premise", "ending")  # the old check's keys, in the order of the design's rows


def _version(DesignVersion, source, title):
    found = DesignVersion.objects.filter(slug="timetravel", source=source).order_by("-number").first()
    if found is not None:
        return found
    number = (DesignVersion.objects.filter(slug="timetravel").aggregate(n=Max("number"))["n"] or 0) + 1
    return DesignVersion.objects.create(slug="timetravel", number=number, source=source, title=title)


def _record(payload, stage, **extra):
    fields = {"initial": payload["initial"], "ending": list(payload["ending"])}
    if payload.get("counterfactual"):
        fields["counterfactual"] = payload["counterfactual"]
    return {"kind": "record", "record_id": payload["story_id"], "text": payload["premise"], "fields": fields,
            "stage": stage, "source_item": None, "round": payload.get("round", 0), "origin": None, **extra}


def _check(value, rows, boxes):
    if not isinstance(value, dict) or "checks" not in value:
        return value
    found = {"conditions": {row: "yes" if value["checks"].get(key) else "no"
                            for row, key in zip(rows, CONDITIONS, strict=True)}}
    if value.get("passed"):
        found["edited_ending"] = dict(zip(boxes, value.get("ending", []), strict=False))
    elif value.get("rewrite"):
        found["rewrite"] = value["rewrite"]
    return found


OLD_TABLES = ("chains_workflow", "chains_stage", "chains_chain", "chains_step")


def _rows(cursor, sql, params=()):
    cursor.execute(sql, params)
    names = [column[0] for column in cursor.description]
    return [SimpleNamespace(**dict(zip(names, row, strict=True))) for row in cursor.fetchall()]


def _json(value):
    return json.loads(value) if isinstance(value, str | bytes) else value


def forwards(apps, schema_editor):
    Batch = apps.get_model("hits", "Batch")
    Item = apps.get_model("hits", "Item")
    Assignment = apps.get_model("hits", "Assignment")
    DesignVersion = apps.get_model("designs", "DesignVersion")
    DesignBatch = apps.get_model("designs", "DesignBatch")
    ChainDecision = apps.get_model("designs", "ChainDecision")
    if not Batch.objects.filter(task_type__in=("story-write", "story-edit")).exists():
        return
    connection = schema_editor.connection
    cursor = connection.cursor()
    old = set(OLD_TABLES) <= set(connection.introspection.table_names(cursor))
    key = connection.ops.quote_name("key")
    shipped = (FOLDER / "timetravel.yaml").read_text(encoding="utf-8")
    design = yaml.safe_load(shipped)
    schemes = {scheme["name"]: scheme for scheme in design["annotation_schemes"]}
    rows, boxes = schemes["conditions"]["options"], schemes["edited_ending"]["labels"]
    rounds = next(stage for stage in design["stages"] if stage["name"] == "check").get("max_rounds", 1)

    def convert(batch, stage, version, workflow, note=""):
        for item in Item.objects.filter(batch=batch):
            if item.payload.get("kind") == "story":
                item.payload = _record(item.payload, stage)
                item.save(update_fields=["payload"])
        for assignment in Assignment.objects.filter(hit__batch=batch).exclude(answers=None):
            assignment.answers = {key: _check(value, rows, boxes) for key, value in assignment.answers.items()}
            assignment.save(update_fields=["answers"])
        DesignBatch.objects.get_or_create(batch=batch, defaults={"version": version, "stage": stage,
                                                                 "workflow": workflow, "note": note[:500]})
        batch.task_type = "design"
        batch.save(update_fields=["task_type"])

    workflows = _rows(cursor, "SELECT id, loop_limit FROM chains_workflow ORDER BY id") if old else []
    for workflow in workflows:
        stages = {stage.key: stage for stage in _rows(
            cursor, f"SELECT {key} AS key, note, batch_id FROM chains_stage WHERE workflow_id = %s", [workflow.id])}
        if "write" not in stages or "edit" not in stages:
            continue
        steps = _rows(cursor, "SELECT s.kind, s.round, s.value, s.chain_id, s.item_id FROM chains_step s JOIN "
                              "chains_chain c ON s.chain_id = c.id WHERE c.workflow_id = %s ORDER BY s.id",
                      [workflow.id])
        limit = max(workflow.loop_limit - 1, 1)
        source = shipped if limit == rounds else re.sub(r"max_rounds: \d+", f"max_rounds: {limit}", shipped, count=1)
        version = _version(DesignVersion, source, design["title"])
        first, check = Batch.objects.get(pk=stages["write"].batch_id), Batch.objects.get(pk=stages["edit"].batch_id)
        # The lineage first: which write item each chain began with, and which check's rewrite made each round.
        origin, made = {}, {}
        for step in steps:
            if step.kind == "counterfactual":
                origin.setdefault(step.chain_id, step.item_id)
            elif step.kind == "rewrite":
                made.setdefault((step.chain_id, step.round), step.item_id)
        for item in Item.objects.filter(batch=check):
            match = re.fullmatch(r"chain:(\d+):r(\d+)", item.key)
            if match is None or item.payload.get("kind") != "story":
                continue
            chain, round_ = int(match.group(1)), int(match.group(2))
            start = origin.get(chain)
            item.payload = _record(item.payload, "check", origin=start, round=round_,
                                   source_item=start if round_ == 0 else made.get((chain, round_)))
            if round_:
                item.key = f"check:{start}:r{round_}"  # as designs.stages names a round's item
            item.save(update_fields=["payload", "key"])
        convert(first, "write", version, first, stages["write"].note)
        convert(check, "check", version, first, stages["edit"].note)
        for step in (step for step in steps if step.kind == "organizer"):
            start = origin.get(step.chain_id)
            decision = {"accept": "again", "drop": "drop"}.get((_json(step.value) or {}).get("decision"))
            if start is not None and decision is not None:
                # The old round counted the failed checks; the new one is the round of the item that failed.
                ChainDecision.objects.get_or_create(origin_id=start, round=max(step.round - 1, 0),
                                                    defaults={"workflow": first, "decision": decision})
    # A story batch made outside a workflow keeps its answers as a one-stage run of the design.
    version = _version(DesignVersion, shipped, design["title"])
    for batch in Batch.objects.filter(task_type__in=("story-write", "story-edit")):
        convert(batch, "write" if batch.task_type == "story-write" else "check", version, None)


class Migration(migrations.Migration):
    dependencies = [("designs", "0006_chain_decisions")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
