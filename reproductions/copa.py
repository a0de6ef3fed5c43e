"""Balanced COPA's validation as designs/bcopa.yaml runs it: the paper's sample of original and mirrored items,
their batch from the shipped design file, and what comes out of it: the majority answer per item with ties,
accuracy against the intended answers, and Fleiss' kappa and Krippendorff's alpha with bootstrap intervals,
overall and per subset (original vs mirrored)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from aggregation import maths
from core.copa import read_copa_lines
from core.items import ChoiceItem
from designs.items import Record
from designs.schemes.pairwise import Pairwise
from designs.services import design_batch_create, shipped_version
from hits.models import Assignment, Batch, Item, Worker
from hits.services import CrowdError

ORIGINAL, MIRRORED = "original", "mirrored"
DESIGN = "bcopa"  # the shipped design file the batches are made from
SCHEME = "choice"  # its one scheme: which alternative, "1" or "2"


def copa_sample(items: Sequence[ChoiceItem], *, per_subset: int | None, seed: int = 0) -> list[ChoiceItem]:
    """`per_subset` originals and `per_subset` mirrored items drawn (seeded) as the paper's 100 + 100;
    None keeps them all."""
    if per_subset is None:
        return list(items)
    rng = random.Random(seed)
    chosen = []
    for mirrored in (False, True):
        subset = [item for item in items if item.mirrored == mirrored]
        if per_subset > len(subset):
            raise CrowdError(f"asked for {per_subset} {MIRRORED if mirrored else ORIGINAL} items; the file has "
                             f"{len(subset)}")
        chosen += rng.sample(subset, per_subset)
    return chosen


def copa_records(items: Sequence[ChoiceItem]) -> list[Record]:
    """COPA items as the design's records: the premise is the text, what is asked and the two alternatives are
    shown, the subset is the group and the intended answer the known one (measured against, never shown)."""
    return [Record(id=item.item_id, text=item.premise, gold=str(item.answer),
                   group=MIRRORED if item.mirrored else ORIGINAL,
                   fields={"question": item.question, "alternatives": [item.alternative_1, item.alternative_2]})
            for item in items]


def copa_rows(data: bytes, name: str) -> list[tuple[int, dict[str, Any]]]:
    """A COPA XML file (an upload called `name`) as items under designs/bcopa.yaml's keys, every item of it, for
    `design new` and the browser (designs.items.XML_ITEMS); `manage.py copa batch` draws the paper's sample."""
    read = read_copa_lines(name, data)
    records = copa_records([item for _, item in read])
    return [(line, {"id": found.id, "premise": found.text, "answer": found.gold, "subset": found.group,
                    **found.fields}) for (line, _), found in zip(read, records, strict=True)]


def choice_batch_create(*, items: Sequence[ChoiceItem], name: str, **options: Any) -> Batch:
    """A batch of designs/bcopa.yaml for `items`; `options` as design_batch_create takes them (packing, reward,
    provider, filters, seed), the design's own where not given; the provider is the site's own annotators unless
    named, as for every batch a command makes (the design's MTurk is where the paper ran)."""
    options.setdefault("provider", "inhouse")
    return design_batch_create(version=shipped_version(DESIGN), records=copa_records(items), name=name, **options)


def choice_report(batch: Batch, *, samples: int = 1000, seed: int = 0, trusted: float = 0.8) -> dict[str, Any]:
    """The paper's numbers for a validation batch, overall and per subset.

    Per subset: items with votes, votes, Fleiss' kappa (items with 2 or more votes) and Krippendorff's
    alpha with bootstrap intervals, the majority's accuracy against the intended answers (a tie is
    counted as not correct, and the ties are reported). Per worker: accuracy against the intended answers;
    "trusted" repeats the overall numbers without the workers below `trusted` (a careless worker's random
    clicks pull kappa down for every item they touched), naming who was left out.
    """
    if not _is_choice_batch(batch):
        raise CrowdError(f"batch {batch.pk} is not a 2-choice batch (one made from designs/{DESIGN}.yaml or a design "
                         f"with a '{SCHEME}' scheme)")
    rows = (Assignment.objects.answered(batch)
            .values_list("answers", "worker_id"))
    votes = [(int(item), worker, int(answer[SCHEME])) for answers, worker in rows
             for item, answer in (answers or {}).items() if answer.get(SCHEME) is not None]
    subsets = dict(Item.objects.filter(batch=batch).values_list("pk", "group"))
    known: list[tuple[int, Any]] = list(Item.objects.filter(batch=batch).exclude(gold_answer=None)
                                        .values_list("pk", "gold_answer"))
    intended = {pk: int(answer) for pk, answer in known}
    report: dict[str, Any] = {"batch": batch.pk, "workers": len({worker for _, worker, _ in votes})}
    for name, members in (("all", votes), *((subset, [vote for vote in votes if subsets[vote[0]] == subset])
                                             for subset in (ORIGINAL, MIRRORED))):
        report[name] = _subset_report(members, intended, samples=samples, seed=seed)
    # Each worker against the intended answers: a careless worker stands out at about 50%.
    names = {worker.pk: worker.user.username if worker.user is not None else worker.external_id
             for worker in Worker.objects.filter(pk__in={worker for _, worker, _ in votes}).select_related("user")}
    tally: dict[int, list[int]] = {}
    for item, worker, label in votes:
        counts = tally.setdefault(worker, [0, 0])
        counts[0] += 1
        counts[1] += label == intended.get(item)
    report["by_worker"] = sorted(({"worker": names.get(worker, str(worker)), "votes": total, "accuracy": right / total}
                                  for worker, (total, right) in tally.items()), key=lambda row: row["accuracy"])
    careless = {worker for worker, (total, right) in tally.items() if right / total < trusted}
    kept = [vote for vote in votes if vote[1] not in careless]
    left_out = sorted(names.get(worker, str(worker)) for worker in careless)
    report["trusted"] = {"threshold": trusted, "left_out": left_out,
                         **_subset_report(kept, intended, samples=samples, seed=seed)}
    return report


def _subset_report(votes: list[tuple[int, int, int]], intended: dict[int, Any], *, samples: int,
                   seed: int) -> dict[str, Any]:
    table = maths.VoteTable(votes)
    decided = table.majority()
    correct = sum(found.label is not None and found.label == intended.get(found.item) for found in decided)
    rated = table.counts[table.counts.sum(axis=1) >= 2]
    kappa = maths.fleiss_kappa(rated) if len(rated) else float("nan")
    low, high = maths.fleiss_interval(rated, samples=samples, seed=seed) if len(rated) else (float("nan"),) * 2
    alpha = table.agreement(samples=samples, seed=seed)
    return {"items": len(decided), "votes": table.size, "correct": correct,
            "accuracy": correct / len(decided) if decided else None,
            "ties": sum(found.label is None for found in decided),
            "fleiss": {"value": _number(kappa), "low": _number(low), "high": _number(high), "items": len(rated)},
            "alpha": {"value": _number(alpha.alpha), "low": _number(alpha.low), "high": _number(alpha.high)}}


def _number(value: float | None) -> float | None:
    return None if value is None or value != value else float(value)


def _is_choice_batch(batch: Batch) -> bool:
    from designs.task_type import design_of

    design = design_of(batch)
    return design is not None and any(scheme.name == SCHEME and isinstance(scheme, Pairwise)
                                      for scheme in design.annotation_schemes)


def report_table(found):
    def number(value):
        return "-" if value is None else f"{value:.3f}"

    lines = [f"batch {found['batch']}: {found['workers']} workers",
             f"{'subset':<10} {'items':>6} {'votes':>6} {'accuracy':>9} {'ties':>5} {'Fleiss kappa [95%]':>26} "
             f"{'alpha':>7}"]
    for subset in ("original", "mirrored", "all"):
        row = found[subset]
        kappa = row["fleiss"]
        lines.append(f"{subset:<10} {row['items']:>6} {row['votes']:>6} "
                     f"{'-' if row['accuracy'] is None else format(row['accuracy'], '.1%'):>9} {row['ties']:>5} "
                     f"{number(kappa['value']):>8} [{number(kappa['low'])}, {number(kappa['high'])}]".ljust(60)
                     + f" {number(row['alpha']['value']):>7}")
    trusted = found.get("trusted")
    if trusted and trusted["left_out"]:
        kappa = trusted["fleiss"]
        lines.append(f"without {', '.join(trusted['left_out'])} (under {trusted['threshold']:.0%} against the intended "
                     f"answers): accuracy {trusted['accuracy']:.1%}, Fleiss' kappa {number(kappa['value'])} "
                     f"[{number(kappa['low'])}, {number(kappa['high'])}] over {kappa['items']} items")
    workers = found.get("by_worker") or []
    if workers:
        lines.append("workers against the intended answers, lowest first: " + ", ".join(
            f"{row['worker']} {row['accuracy']:.0%} of {row['votes']}" for row in workers))
    return "\n".join(lines)
