"""Saving design versions and making batches from a design and its items."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max

from core.errors import InputError
from core.items import RecordItem
from designs.items import Given, Record, highlight, item_key
from designs.loader import load_text
from designs.model import Design, Qualification
from designs.model import slug as make_slug
from designs.models import DesignBatch, DesignVersion, OutsideAnswer, SharedEvent
from designs.schemes import SCHEME_TYPES
from designs.schemes.text import rules as text_rules
from designs.stages import later_stages_create
from designs.task_type import task_context
from hits.models import Batch, Item
from hits.services import BatchSpec, ItemSpec, batch_create, pack


def design_version_save(*, source: str, slug: str = "", name: str = "design.yaml",
                        created_by: Any = None) -> DesignVersion:
    """A new version of the design `slug` (checked first; nothing is saved if it does not validate). Saving
    the text of the latest version again returns that version: versions mark changes, not saves."""
    design = load_text(source, name=name)
    slug = slug or make_slug(design.title)
    with transaction.atomic():
        latest = DesignVersion.objects.select_for_update().filter(slug=slug).order_by("-number").first()
        if latest is not None and latest.source == source:
            return latest
        number = (DesignVersion.objects.filter(slug=slug).aggregate(n=Max("number"))["n"] or 0) + 1
        return DesignVersion.objects.create(slug=slug, number=number, title=design.title, source=source,
                                            created_by=created_by if getattr(created_by, "pk", None) else None)


def shipped_version(slug: str) -> DesignVersion:
    """The current version of a design file the project ships (designs/SLUG.yaml), saved if it changed."""
    source = (settings.BASE_DIR / "designs" / f"{slug}.yaml").read_text(encoding="utf-8")
    return design_version_save(source=source, slug=slug)


def requirements_of(design: Design) -> dict[str, Any]:
    """The design's worker filters for its provider, in the batch's terms."""
    provider = design.provider
    found: dict[str, Any] = {}
    settings = {"mturk": provider.mturk, "prolific": provider.prolific}.get(provider.name)
    if settings is not None:
        for name in ("min_approval_rate", "min_approved_hits"):
            if getattr(settings, name) is not None:
                found[name] = getattr(settings, name)
    for name in ("attention", "gold_feedback", "gold_accuracy"):
        if getattr(design.hits, name) is not None:
            # Read by designs.attention at each claim and submission, from the batch row already loaded.
            found[name] = getattr(design.hits, name).model_dump()
    if provider.name == "mturk":
        if provider.mturk.locales:
            found["locales"] = list(provider.mturk.locales)
        if provider.mturk.masters:
            found["masters"] = True
    return found


def screening_requirements(qualification: Qualification) -> dict[str, Any]:
    """The batch requirements that let only workers who passed the design's screening test work: the test's
    grant on this site and at Prolific (its participant group), its qualification type at MTurk with the
    design's minimum score. The test must exist: a batch nobody may take is refused before it is made."""
    from qualification.services import current_test

    test = current_test(qualification.test)
    if test is None:
        raise InputError(f"the design asks for the screening test {qualification.test!r}, which this site does not "
                         f"have; draw it first (the project's Screening test step, or `manage.py qualification "
                         f"draw --name {qualification.test} --file LABELLED.csv`), or take the qualification block "
                         f"out",
                         field="qualification.test")
    found: dict[str, Any] = {"qualification": test.name, "min_score": qualification.min_score}
    if test.mturk_qualification_type_id:
        found["qualification_type_id"] = test.mturk_qualification_type_id
    return found


def item_specs(design: Any, records: Sequence[Record], stage: str = "") -> tuple[list[ItemSpec], list[ItemSpec]]:
    """(the batch's items, the checks mixed into every HIT) for `records`: items with a known answer are the checks
    when the design sets a gold_rate and some items have none; otherwise they are items like the rest."""
    specs = [ItemSpec(key=item_key(record.id), group=record.group[:40], gold_answer=record.gold,
                      payload=RecordItem(record_id=record.id, text=record.text, fields=record.fields, stage=stage))
             for record in records]
    checks = design.hits.gold_rate and any(spec.gold_answer is None for spec in specs)
    gold = [spec for spec in specs if spec.gold_answer is not None] if checks else []
    plain = [spec for spec in specs if spec not in gold] if gold else specs
    return plain, gold


def first_hit(design: Any, records: Sequence[Record], stage: str = "", seed: int = 0) -> list[ItemSpec]:
    """The items of the first HIT a batch of `design` for `records` holds, in page order, packed as
    design_batch_create packs them (for the design page's preview)."""
    plain, gold = item_specs(design, records, stage)
    own = next((entry.hits for entry in design.stages if entry.name == stage), None)
    size = (own.items_per_hit if own is not None else None) or design.hits.items_per_hit
    _, hits = pack(plain, gold, items_per_hit=size, gold_rate=design.hits.gold_rate if gold else 0.0, seed=seed,
                   shuffle=design.hits.order == "shuffled")
    return hits[0] if hits else []


def preview_context(design: Design, records: Sequence[Record], items_name: str) -> dict[str, Any]:
    """What the preview page (projects/design_preview.html) shows: the first HIT as the batch packs it, its items
    in page order, with no database row (the design page's preview and `design preview --html` alike)."""
    stage = design.stages[0].name if design.stages else ""
    items = [SimpleNamespace(pk=number, id=number, content=spec.payload)
             for number, spec in enumerate(first_hit(design, records, stage), 1)]
    return {**task_context(design, design.stage_schemes(stage), items), "items_name": items_name,
            "count": len(records), "stage": stage, "duration": design.hits.assignment_duration}


def design_batch_create(*, version: DesignVersion, records: Sequence[Record], name: str, stage: str = "",
                        provider: str | None = None, created_by: Any = None, seed: int = 0,
                        items_per_hit: int | None = None, assignments_per_hit: int | None = None,
                        reward: Any = None, requirements: dict[str, Any] | None = None) -> Batch:
    """A draft batch of the design's HITs for `records` (for a multi-stage design's first stage, the later stages'
    batches too: empty, filled by its outputs; designs.stages). Items with a known answer become the checks mixed into
    every HIT when the design sets a gold_rate and some items have none; otherwise (no gold_rate, or every item
    known, as in a released file) they are the batch's items, measured against. The packing, reward and worker
    filters are the design's unless given (a command's flags)."""
    design = version.design
    if stage and stage not in [entry.name for entry in design.stages]:
        raise InputError(f"the design has no stage {stage!r}; its stages are "
                         f"{', '.join(entry.name for entry in design.stages) or 'none'}", field="stage")
    hits = design.hits
    own = next((entry.hits for entry in design.stages if entry.name == stage), None)
    if own is not None:  # the stage's own packing and pay, unless a command's flags give them
        items_per_hit = items_per_hit or own.items_per_hit
        assignments_per_hit = assignments_per_hit or own.assignments_per_hit
        reward = own.reward if reward is None else reward
    _check_records(design, records)
    why = design.served_per_worker()
    if (provider or design.provider.name) == "mturk" and why:
        raise InputError(f"MTurk shows every worker of a HIT the same page, and {why}: make the batch in-house or on "
                         f"Prolific", field="provider")
    plain, gold = item_specs(design, records, stage)
    requirements = requirements_of(design) if requirements is None else requirements
    if design.qualification is not None:
        requirements = {**requirements, **screening_requirements(design.qualification)}
    with transaction.atomic():
        batch = batch_create(spec=BatchSpec(
            name=name, task_type="design", provider=provider or design.provider.name,
            items_per_hit=items_per_hit or hits.items_per_hit,
            assignments_per_hit=assignments_per_hit or hits.assignments_per_hit,
            gold_rate=hits.gold_rate if gold else 0.0, seed=seed, reward=hits.reward if reward is None else reward,
            budget=hits.budget, requirements=requirements,
            created_by=created_by if getattr(created_by, "pk", None) else None,
            assignment_duration=hits.assignment_duration, lifetime=hits.lifetime, shuffle=hits.order == "shuffled"),
            items=plain, gold_items=gold)
        DesignBatch.objects.create(batch=batch, version=version, stage=stage)
        for scheme in design.annotation_schemes:
            if SCHEME_TYPES.of(scheme).keeps_shared:  # its seed events are there before anyone works
                SharedEvent.seed(batch, scheme)
        if design.stages and stage == design.stages[0].name:
            later_stages_create(first=batch, version=version)
    return batch


def _check_records(design: Design, records: Sequence[Record]) -> None:
    """What reading an items file checks, for records made in code too (an RTE draw, a stage's outputs): the
    highlight stands where it is said to, and an item's own text rules can be read."""
    keyed = [scheme for scheme in design.annotation_schemes if getattr(scheme, "rules_key", None)]
    for record in records:
        try:
            highlight(record, design.items)
            for scheme in keyed:
                text_rules(scheme, record)
        except InputError as error:
            raise InputError(f"item {record.id!r}: {error.message}", field=error.field) from None


def outside_answers_store(*, batch: Any, given: Sequence[Given], source: str) -> int:
    """Store answers given in another tool (designs.items.Given) on the batch's items, beside the crowd's (one an
    annotator and item: the database refuses a second). Returns how many were stored."""
    keys = {item_key(entry.item) for entry in given}
    items = dict(Item.objects.filter(batch=batch, key__in=keys).values_list("key", "pk"))
    rows = []
    for entry in given:
        item = items.get(item_key(entry.item))
        if item is None:
            raise InputError(f"item {entry.item!r} is not in batch {batch.pk}; its answers by {entry.annotator} "
                             f"have nowhere to go")
        rows.append(OutsideAnswer(batch=batch, item_id=item, source=source, annotator=entry.annotator[:200],
                                  answers=entry.answers, given=entry.when, meta=entry.meta or {}))
    OutsideAnswer.objects.bulk_create(rows, batch_size=1000)
    return len(rows)
