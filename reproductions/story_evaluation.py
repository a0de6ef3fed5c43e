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
from django.conf import settings

from aggregation.maths import alpha, alpha_interval, ordinal_alpha, ordinal_alpha_interval
from designs.items import Record
from designs.schemes.likert import Likert
from designs.schemes.pairwise import Pairwise
from designs.services import design_batch_create, design_version_save
from designs.task_type import design_of, record
from hits.models import Assignment, Batch, Item
from hits.services import CrowdError
from reproductions.stories import endings

RATINGS, COMPARISONS = "timetravel-ratings", "timetravel-comparisons"  # designs/<name>.yaml
# The comparison's choices as the design names them, and as the report (and the paper) calls them.
PAIR_LABELS = {"A": "a", "B": "b", "Equally good": "both_good", "Equally bad": "both_bad"}


def _context(entry: dict[str, Any]) -> str:
    story = entry["story"]
    return f"{story.premise} {entry['counterfactual']} (Original: {story.initial} {story.original_ending})"


def _design(name: str, scale: int = 3) -> Any:
    source = (settings.BASE_DIR / "designs" / f"{name}.yaml").read_text(encoding="utf-8")
    if scale != 3:  # another scale is another version of the design, its answers kept under it
        source = source.replace("size: 3", f"size: {scale}")
    return design_version_save(source=source, slug=name if scale == 3 else f"{name}-{scale}")


def likert_records(batch: Batch) -> list[Record]:
    """Each counterfactual's first edited ending ("human") and its original ending ("original") to rate."""
    found = endings(batch)
    if not found:
        raise CrowdError(f"workflow {batch.name!r} has no edited endings to rate yet")
    records = []
    for entry in found:
        outputs = {"human": " ".join(entry["endings"][0]["ending"]), "original": entry["story"].original_ending}
        records += [Record(id=f"{entry['story'].story_id}-{system}", text=output, group=system,
                           fields={"story": _context(entry), "system": system}) for system, output in outputs.items()]
    return records


def pairwise_records(batch: Batch, *, seed: int = 0) -> list[Record]:
    """The crowd's edited ending against the original ending, A and B in a seeded random order."""
    found = endings(batch)
    if not found:
        raise CrowdError(f"workflow {batch.name!r} has no edited endings to compare yet")
    rng = random.Random(seed)
    records = []
    for entry in found:
        pair = [("human", " ".join(entry["endings"][0]["ending"])), ("original", entry["story"].original_ending)]
        rng.shuffle(pair)
        records.append(Record(id=f"{entry['story'].story_id}-pair", text=_context(entry), fields={
            "endings": [pair[0][1], pair[1][1]], "system_a": pair[0][0], "system_b": pair[1][0]}))
    return records


def likert_batch_create(workflow: Batch, *, name: str, scale: int = 3, **options: Any) -> Batch:
    """A batch of designs/timetravel-ratings.yaml over the endings of the TimeTravel workflow `workflow` (any of
    its stages' batches); `options` as design_batch_create takes them."""
    return design_batch_create(version=_design(RATINGS, scale), records=likert_records(workflow), name=name,
                               **{"provider": "inhouse", **options})


def pairwise_batch_create(workflow: Batch, *, name: str, seed: int = 0, **options: Any) -> Batch:
    """A batch of designs/timetravel-comparisons.yaml over the workflow's endings."""
    return design_batch_create(version=_design(COMPARISONS), records=pairwise_records(workflow, seed=seed),
                               name=name, **{"provider": "inhouse", **options})


def ratings_batch_create(records: Sequence[Record], *, name: str, comparisons: bool = False, **options: Any) -> Batch:
    """A batch of either evaluation design for records made elsewhere (another system's outputs)."""
    return design_batch_create(version=_design(COMPARISONS if comparisons else RATINGS), records=records, name=name,
                               **{"provider": "inhouse", **options})


def _kind(design: Any) -> str | None:
    """RATINGS for two Likert questions (fluency, coherence), COMPARISONS for one pairwise question."""
    schemes = design.annotation_schemes if design else []
    if len(schemes) == 2 and all(isinstance(scheme, Likert) for scheme in schemes):
        return RATINGS
    if len(schemes) == 1 and isinstance(schemes[0], Pairwise):
        return COMPARISONS
    return None


def evaluation_kind(batch: Batch) -> str:
    """RATINGS or COMPARISONS: which evaluation design the batch was made from."""
    kind = _kind(design_of(batch))
    if kind is None:
        raise CrowdError(f"batch {batch.pk} is not a Likert or pairwise evaluation batch (designs/{RATINGS}.yaml or "
                         f"designs/{COMPARISONS}.yaml)")
    return kind


def _answers(batch: Batch, design: str) -> tuple[dict[int, Record], list[tuple[int, str, Any]], Any]:
    found = design_of(batch)
    if _kind(found) != design:
        what = "Likert" if design == RATINGS else "pairwise comparison"
        raise CrowdError(f"batch {batch.pk} is not a {what} batch (one made from designs/{design}.yaml)")
    items = {item.pk: record(item) for item in Item.objects.filter(batch=batch)}
    rows = []
    for worker, answers in (Assignment.objects.answered(batch)
                            .values_list("worker__external_id", "answers")):
        rows += [(int(item), worker, answer) for item, answer in answers.items()]
    return items, rows, found


def likert_report(batch: Batch, *, samples: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Per question: the mean rating of each system and Krippendorff's alpha (ordinal) with its bootstrap
    interval, over the items rated by two or more workers."""
    items, rows, design = _answers(batch, RATINGS)
    if not items:
        raise CrowdError(f"batch {batch.pk} has no items")
    questions = design.annotation_schemes
    scale = questions[0].size
    report: dict[str, Any] = {"batch": batch.pk, "scale": scale, "ratings": len(rows), "questions": []}
    index = {pk: n for n, pk in enumerate(items)}
    for question in questions:
        counts = np.zeros((len(items), scale))
        by_system: dict[str, list[int]] = defaultdict(list)
        for item, _, ratings in rows:
            counts[index[item], ratings[question.name] - 1] += 1
            by_system[items[item].fields["system"]].append(ratings[question.name])
        low, high = ordinal_alpha_interval(counts, samples=samples, seed=seed)
        report["questions"].append({
            "question": question.description, "alpha": ordinal_alpha(counts), "interval": [low, high],
            "mean": {system: sum(found) / len(found) for system, found in sorted(by_system.items())}})
    return report


def pairwise_report(batch: Batch, *, samples: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Each pair's majority answer (a tie when no answer leads), turned into wins of the systems; the share of
    each answer by system; nominal alpha over the four answers."""
    items, rows, design = _answers(batch, COMPARISONS)
    scheme = design.annotation_schemes[0].name
    votes: dict[int, Counter] = defaultdict(Counter)
    for item, _, answer in rows:
        votes[item][PAIR_LABELS[answer[scheme]]] += 1
    outcomes: Counter = Counter()
    for item, counted in votes.items():
        fields = items[item].fields
        ranked = counted.most_common()
        label = ranked[0][0] if len(ranked) == 1 or ranked[0][1] > ranked[1][1] else None
        outcomes["tie" if label is None else {"a": fields["system_a"], "b": fields["system_b"]}.get(label, label)] += 1
    labels = list(PAIR_LABELS.values())
    counts = np.array([[votes[item][label] for label in labels] for item in votes], dtype=float) \
        if votes else np.zeros((0, len(labels)))
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
