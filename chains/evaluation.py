"""Human evaluation of a workflow's outputs, as the TimeTravel paper did it: each edited ending rated on a
Likert scale by two workers (its Table: 3-point, Krippendorff's alpha 0.42), and pairwise comparisons of two
systems' endings for the same story. The systems here are the crowd's edited ending and the original ending
left as it was (the copy baseline a model must beat); a model's outputs are rated the same way."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from aggregation.maths import alpha, alpha_interval, ordinal_alpha, ordinal_alpha_interval
from aggregation.services import COUNTED
from chains.models import Workflow
from chains.report import endings
from core.items import PairItem, RatingItem
from hits.models import Assignment, Batch, Item
from hits.services import CrowdError, ItemSpec, batch_create

QUESTIONS = (
    "Does the ending fit the new second sentence?",
    "Does the ending keep as much of the original as it could?",
)
PAIR_QUESTION = "Which ending fits the story with its new second sentence better, changing as little as needed?"
PAIR_LABELS = ("a", "b", "both_good", "both_bad")


def _context(entry: dict[str, Any]) -> str:
    story = entry["story"]
    return f"{story.premise} {entry['counterfactual']} (Original: {story.initial} {story.original_ending})"


def likert_batch_create(workflow: Workflow, *, name: str, scale: int = 3, questions: Sequence[str] = QUESTIONS,
                        assignments_per_hit: int = 2, items_per_hit: int = 10, **options: Any) -> Batch:
    """Each counterfactual's first edited ending ("human") and its original ending ("original") to rate."""
    found = endings(workflow)
    if not found:
        raise CrowdError(f"workflow {workflow.name} has no edited endings to rate yet")
    items = []
    for entry in found:
        outputs = {"human": " ".join(entry["endings"][0]["ending"]), "original": entry["story"].original_ending}
        for system, output in outputs.items():
            items.append(ItemSpec(key=f"{system}:{entry['chain']}:{entry['round']}", group=system, payload=RatingItem(
                item_id=f"{entry['story'].story_id}-{system}", context=_context(entry), output=output,
                questions=tuple(questions), scale=scale, system=system)))
    return batch_create(name=name, task_type="likert", items=items, items_per_hit=items_per_hit,
                        assignments_per_hit=assignments_per_hit, **options)


def pairwise_batch_create(workflow: Workflow, *, name: str, assignments_per_hit: int = 3, items_per_hit: int = 10,
                          seed: int = 0, **options: Any) -> Batch:
    """The crowd's edited ending against the original ending, A and B in a seeded random order."""
    found = endings(workflow)
    if not found:
        raise CrowdError(f"workflow {workflow.name} has no edited endings to compare yet")
    rng = random.Random(seed)
    items = []
    for entry in found:
        pair = [("human", " ".join(entry["endings"][0]["ending"])), ("original", entry["story"].original_ending)]
        rng.shuffle(pair)
        items.append(ItemSpec(key=f"pair:{entry['chain']}:{entry['round']}", payload=PairItem(
            item_id=f"{entry['story'].story_id}-pair", context=_context(entry), output_a=pair[0][1],
            output_b=pair[1][1], question=PAIR_QUESTION, system_a=pair[0][0], system_b=pair[1][0])))
    return batch_create(name=name, task_type="pairwise", items=items, items_per_hit=items_per_hit,
                        assignments_per_hit=assignments_per_hit, **options)


def _answers(batch: Batch) -> tuple[dict[int, Item], list[tuple[int, str, Any]]]:
    items = {item.pk: item for item in Item.objects.filter(batch=batch)}
    rows = []
    for worker, answers in (Assignment.objects.filter(hit__batch=batch, state__in=COUNTED).exclude(answers=None)
                            .values_list("worker__external_id", "answers")):
        rows += [(int(item), worker, answer) for item, answer in answers.items()]
    return items, rows


def likert_report(batch: Batch, *, samples: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Per question: the mean rating of each system and Krippendorff's alpha (ordinal) with its bootstrap
    interval, over the items rated by two or more workers."""
    if batch.task_type != "likert":
        raise CrowdError(f"batch {batch.pk} is a {batch.task_type} batch, not a Likert one")
    items, rows = _answers(batch)
    if not items:
        raise CrowdError(f"batch {batch.pk} has no items")
    first = next(iter(items.values())).content
    report: dict[str, Any] = {"batch": batch.pk, "scale": first.scale, "ratings": len(rows), "questions": []}
    index = {pk: n for n, pk in enumerate(items)}
    for number, question in enumerate(first.questions):
        counts = np.zeros((len(items), first.scale))
        by_system: dict[str, list[int]] = defaultdict(list)
        for item, _, ratings in rows:
            counts[index[item], ratings[number] - 1] += 1
            by_system[items[item].content.system].append(ratings[number])
        low, high = ordinal_alpha_interval(counts, samples=samples, seed=seed)
        report["questions"].append({
            "question": question, "alpha": ordinal_alpha(counts), "interval": [low, high],
            "mean": {system: sum(found) / len(found) for system, found in sorted(by_system.items())}})
    return report


def pairwise_report(batch: Batch, *, samples: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Each pair's majority answer (a tie when no answer leads), turned into wins of the systems; the share of
    each answer by system; nominal alpha over the four answers."""
    if batch.task_type != "pairwise":
        raise CrowdError(f"batch {batch.pk} is a {batch.task_type} batch, not a pairwise one")
    items, rows = _answers(batch)
    votes: dict[int, Counter] = defaultdict(Counter)
    for item, _, answer in rows:
        votes[item][answer] += 1
    outcomes: Counter = Counter()
    for item, counted in votes.items():
        payload = items[item].content
        ranked = counted.most_common()
        label = ranked[0][0] if len(ranked) == 1 or ranked[0][1] > ranked[1][1] else None
        outcomes["tie" if label is None else {"a": payload.system_a, "b": payload.system_b}.get(label, label)] += 1
    counts = np.array([[votes[item][label] for label in PAIR_LABELS] for item in votes], dtype=float) \
        if votes else np.zeros((0, len(PAIR_LABELS)))
    low, high = alpha_interval(counts, samples=samples, seed=seed) if len(counts) else (float("nan"),) * 2
    return {"batch": batch.pk, "pairs": len(votes), "answers": len(rows), "outcomes": dict(sorted(outcomes.items())),
            "alpha": alpha(counts) if len(counts) else float("nan"), "interval": [low, high]}


def report_text(likert: dict[str, Any] | None, pairwise: dict[str, Any] | None) -> str:
    lines = []
    if likert:
        lines.append(f"Likert ({likert['scale']}-point, {likert['ratings']} ratings):")
        for row in likert["questions"]:
            means = ", ".join(f"{system} {mean:.2f}" for system, mean in row["mean"].items())
            low, high = row["interval"]
            lines.append(f"  {row['question']} mean: {means}; ordinal alpha {row['alpha']:.3f} "
                         f"[{low:.3f}, {high:.3f}]")
    if pairwise:
        low, high = pairwise["interval"]
        lines.append(f"Pairwise ({pairwise['pairs']} pairs, {pairwise['answers']} answers): " + ", ".join(
            f"{name} {count}" for name, count in pairwise["outcomes"].items())
            + f"; alpha {pairwise['alpha']:.3f} [{low:.3f}, {high:.3f}]")
    return "\n".join(lines)
