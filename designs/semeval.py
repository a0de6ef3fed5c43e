"""SemEval Subtasks 1 and 2 as design files: a filter run's candidates (or released sentences) into batches of the
shipped designs/semeval-subtask1.yaml, with known-answer items from a released CSV, and an aggregation's positives
into batches of semeval-subtask2.yaml. The items keep the sentence payload the releases, the span stage and the
review read; the generic design page asks the files' schemes."""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from os import PathLike
from typing import Any

from django.conf import settings
from django.db import transaction

from aggregation import maths
from aggregation.models import AggregationRun
from core.items import SentenceItem, as_sentence
from core.semeval import read_subtask1_rows
from designs.loader import load_file
from designs.models import DesignBatch
from designs.services import shipped_version
from designs.task_type import label_rule
from filtering.models import Candidate, FilterRun
from hits.models import Batch, Item
from hits.services import BatchSpec, CrowdError, ItemSpec, batch_create

RELEASED_CORPUS = "semeval2020t5"
SUBTASK1_DESIGN = "semeval-subtask1"  # the shipped design files Subtask-1 and Subtask-2 batches are made from
SUBTASK2_DESIGN = "semeval-subtask2"


def subtask1_votes_required() -> int:
    """How many votes a sentence needs under designs/semeval-subtask1.yaml's rule (the paper's five)."""
    design = load_file(settings.BASE_DIR / "designs" / f"{SUBTASK1_DESIGN}.yaml")
    return maths.vote_rule(label_rule(design, "")).rules.votes_required


def subtask1_items(*, run: FilterRun, limit: int | None = None,
                   candidate_ids: Collection[int] | None = None) -> list[ItemSpec]:
    """Items for the Subtask-1 labeling task, one per candidate of a filter run (or of `candidate_ids`)."""
    candidates = (Candidate.objects.filter(run=run).select_related("sentence__document__corpus")
                  .order_by("sentence_id"))
    if candidate_ids is not None:
        candidates = candidates.filter(pk__in=candidate_ids)
    if limit:
        candidates = candidates[:limit]
    found = []
    for candidate in candidates:
        sentence, document = candidate.sentence, candidate.sentence.document
        payload = SentenceItem(text=sentence.text, sentence_id=str(sentence.pk), domain=document.domain,
                               document=document.external_id, corpus=document.corpus.name, sentence_pk=sentence.pk)
        found.append(ItemSpec(key=f"sentence:{sentence.pk}", group=document.domain, payload=payload))
    return found


def _released_item(sentence_id: str, label: int, text: str, group: str) -> ItemSpec:
    return ItemSpec(key=f"semeval:{sentence_id}", group=group, gold_answer=label,
                    payload=SentenceItem(text=text, sentence_id=sentence_id, corpus=RELEASED_CORPUS))


def semeval_gold_items(*, path: str | PathLike[str], count: int, seed: int = 0,
                       exclude: Collection[str] = ()) -> list[ItemSpec]:
    """`count` known-answer check items from a released Subtask-1 CSV, half of each label when it can."""
    rows: dict[int, list[tuple[str, int, str]]] = {0: [], 1: []}
    for row in read_subtask1_rows(path):
        if row[0] not in exclude:
            rows[row[1]].append(row)
    rng = random.Random(seed)
    positives = rng.sample(rows[1], min(len(rows[1]), count // 2))
    negatives = rng.sample(rows[0], min(len(rows[0]), count - len(positives)))
    return [_released_item(*row, group="gold") for row in positives + negatives]


def semeval_items(*, path: str | PathLike[str], count: int, seed: int = 0,
                  exclude: Collection[str] = ()) -> list[ItemSpec]:
    """`count` sentences of a released Subtask-1 CSV as items that carry their known label.

    `exclude`: sentence ids to leave out, e.g. those of the screening test."""
    rows = [row for row in read_subtask1_rows(path) if row[0] not in exclude]
    return [_released_item(*row, group="semeval") for row in random.Random(seed).sample(rows, min(count, len(rows)))]


def labeling_batch_create(*, name: str, items: Sequence[ItemSpec], **options: Any) -> Batch:
    """A batch of designs/semeval-subtask1.yaml for sentence items: the generic task page asks its yes/no
    scheme. The packing, pay and worker filters are the caller's (the project's batch step, a command's flags),
    as a SemEval project sets them."""
    return _design_batch(SUBTASK1_DESIGN, name=name, items=items, **options)


def _design_batch(slug: str, *, name: str, items: Sequence[ItemSpec], **options: Any) -> Batch:
    version = shipped_version(slug)
    with transaction.atomic():
        gold = options.pop("gold_items", ())
        batch = batch_create(spec=BatchSpec(name=name, task_type="design", **options), items=items, gold_items=gold)
        DesignBatch.objects.create(batch=batch, version=version)
    return batch


def subtask1_batch_create(*, run: FilterRun, name: str, gold_path: str | PathLike[str] | None = None,
                          gold_count: int = 0, gold_rate: float = 0.0, seed: int = 0, limit: int | None = None,
                          candidate_ids: Collection[int] | None = None, exclude_gold: Collection[str] = (),
                          **options: Any) -> Batch:
    items = subtask1_items(run=run, limit=limit, candidate_ids=candidate_ids)
    if not items:
        raise CrowdError(f"filter run {run.pk} has no candidates; run the filter first")
    gold = (semeval_gold_items(path=gold_path, count=gold_count, seed=seed, exclude=exclude_gold)
            if gold_path and gold_count else [])
    return labeling_batch_create(name=name, items=items, gold_items=gold, gold_rate=gold_rate, seed=seed, **options)


# --- Subtask 2: spans for the positives ------------------------------------------------

def subtask2_items(*, sources: Iterable[Item]) -> list[ItemSpec]:
    """One span item per Subtask-1 item in `sources`, unless the sentence is in a span batch already."""
    taken = set(Item.objects.filter(batch__design_link__version__slug=SUBTASK2_DESIGN).values_list("key", flat=True))
    found = []
    for source in sources:
        if source.key in taken:
            continue
        payload = as_sentence(source.content)
        if payload is None:
            raise CrowdError(f"item {source.pk} is a {source.content.kind} item, not a sentence; spans are marked in "
                             f"sentences")
        found.append(ItemSpec(key=source.key, group=source.group, payload=replace(payload, source_item=source.pk)))
    return found


def subtask2_batch_create(*, sources: Sequence[Item], name: str, items_per_hit: int = 10, annotators: int = 1,
                          **options: Any) -> Batch:
    """A batch of designs/semeval-subtask2.yaml for sentences the crowd called counterfactual: one annotator per
    sentence, as in the paper, or `annotators` (2 or more) for span agreement and a majority to start the review
    from. Each answer becomes a SpanAnswer for the review (the counterfactual-check component)."""
    if annotators < 1:
        raise CrowdError(f"annotators per sentence is {annotators}; use 1 (the paper) or more")
    items = subtask2_items(sources=sources)
    if not items:
        raise CrowdError("no positive sentence without spans yet; nothing to annotate")
    return spans_batch_create(name=name, items=items, items_per_hit=items_per_hit, assignments_per_hit=annotators,
                              **options)


def spans_batch_create(*, name: str, items: Sequence[ItemSpec], **options: Any) -> Batch:
    """A batch of designs/semeval-subtask2.yaml for sentence items (their `source_item` the Subtask-1 item, if
    any); packing, pay and filters are the caller's."""
    if options.get("adaptive"):
        raise CrowdError("adaptive redundancy needs a rule for when an item is settled, and a span batch has none "
                         "(the paper's rules settle yes/no votes of Subtask 1)")
    return _design_batch(SUBTASK2_DESIGN, name=name, items=items, **options)


def span_batch_create(*, run: AggregationRun, name: str, items_per_hit: int = 10, **options: Any) -> Batch:
    """A Subtask-2 batch of the sentences `run` called counterfactual (gold checks left out)."""
    positives = [outcome.item for outcome in run.outcomes.filter(outcome=maths.POSITIVE, item__is_gold=False)
                 .select_related("item").order_by("item_id")]
    if not positives:
        raise CrowdError(f"aggregation {run.pk} has no positive sentence; nothing to annotate")
    try:
        return subtask2_batch_create(sources=positives, name=name, items_per_hit=items_per_hit, **options)
    except CrowdError as error:
        raise CrowdError(f"aggregation {run.pk}: {error}") from None
