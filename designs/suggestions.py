"""A model's answers shown to people as suggestions, pre-filled and marked on their page, with a randomized holdout
of (annotator, item) pairs that see none, and the pull of the suggestion measured on what people then answered.

A batch's suggestions (DesignBatch.suggest) name the model (an annotator of source "model" in the batch), the share
held out and when they started (and stopped): work claimed in that window saw them. Whether a pair is held out is
a hash of the batch, the worker and the item, so the page and the report agree without storing it, the same
annotator keeps their group on an item however often the page is opened, and no one can choose their group. The
report compares the two groups scheme by scheme: how often people gave the model's answer, how often they were
right on known-answer items, and their agreement (Krippendorff's alpha), each with a bootstrap interval over items.
MTurk shows every worker one HTMLQuestion, so a holdout cannot be kept there: its batches are refused. While they
run, they stand in for the suggestions items carry of their own (a Label Studio task's prediction, whose model's
answers are stored as a model's too), so that the pull of a project's own predictions is measured the same way."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from datetime import datetime
from typing import Any

import numpy as np
from django.utils import timezone

from aggregation.maths import alpha, bootstrap_interval
from core.errors import CrowdsetError
from designs.answers import known_answer
from designs.models import DesignBatch, OutsideAnswer, batch_design
from designs.schemes import SCHEME_TYPES
from hits.models import Assignment, Batch, Item

HOLDOUT = 0.2  # the default share of (annotator, item) pairs that see no suggestion
RESAMPLES = 500


class SuggestionError(CrowdsetError):
    pass


def suggestions_start(*, batch: Batch, annotator: str = "", holdout: float = HOLDOUT) -> dict[str, Any]:
    """Show the model's answers (by default those of the model that answered the batch last) to the people who
    claim its work from now on, except to the held-out share of (annotator, item) pairs."""
    link = DesignBatch.objects.filter(batch=batch).first()
    if link is None:
        raise SuggestionError(f"batch {batch.pk} is not made from a design file; suggestions are shown on a "
                              f"design's task page")
    if batch.provider == "mturk":
        raise SuggestionError(f"batch {batch.pk} is on MTurk, which shows every worker the same HTMLQuestion: the "
                              f"holdout of (annotator, item) pairs cannot be kept there; publish in-house or on "
                              f"Prolific to show suggestions")
    if not 0 <= holdout < 1:
        raise SuggestionError(f"--holdout {holdout}: give the share of pairs that see no suggestion, from 0 up to "
                              f"(not including) 1; 0.2 is usual")
    name = OutsideAnswer.model_named(batch, annotator)
    link.suggest = {"annotator": name, "holdout": holdout, "since": timezone.now().isoformat()}
    link.save(update_fields=["suggest"])
    return link.suggest


def suggestions_stop(*, batch: Batch) -> dict[str, Any]:
    """No more suggestions on pages claimed from now on; the report still reads the window they ran in."""
    link = DesignBatch.objects.filter(batch=batch).first()
    if link is None or not link.suggest:
        raise SuggestionError(f"batch {batch.pk} shows no suggestions")
    if "until" not in link.suggest:
        link.suggest = {**link.suggest, "until": timezone.now().isoformat()}
        link.save(update_fields=["suggest"])
    return link.suggest


def held_out(batch_id: int, worker_id: int, item_id: int, holdout: float) -> bool:
    """Whether the pair sees no suggestion: a uniform number from the hash of the three keys, below `holdout`."""
    digest = hashlib.sha256(f"{batch_id}:{worker_id}:{item_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2 ** 64 < holdout


def _window(settings: dict[str, Any], claimed: datetime) -> bool:
    since = datetime.fromisoformat(settings["since"])
    until = datetime.fromisoformat(settings["until"]) if settings.get("until") else None
    return claimed >= since and (until is None or claimed < until)


def for_assignment(assignment: Assignment) -> tuple[str, list[Item], dict[int, dict[str, Any]]]:
    """(the model's name, the HIT's items, {item id: the model's answers}) of the suggestions this assignment's page
    shows: none outside the window or for held-out pairs. One query when the batch shows none (the items are read
    only when it does)."""
    link = DesignBatch.objects.filter(batch_id=assignment.hit.batch_id).only("suggest").first()
    settings = link.suggest if link is not None else {}
    if not settings or not _window(settings, assignment.claimed):
        return "", [], {}
    items = assignment.hit.ordered_items()
    shown = [item.pk for item in items if not held_out(assignment.hit.batch_id, assignment.worker_id, item.pk,
                                                       settings["holdout"])]
    return settings["annotator"].split(" @ ")[0], items, dict(OutsideAnswer.objects.filter(
        batch_id=assignment.hit.batch_id, source=OutsideAnswer.MODEL, annotator=settings["annotator"],
        item_id__in=shown).values_list("item_id", "answers"))


def pull(batch: Batch, *, seed: int = 0) -> dict[str, Any] | None:
    """What the suggestion did to people's answers, scheme by scheme (those with one label an item): the answers
    given with it shown and held out, how often each group gave the model's answer, its accuracy on known-answer
    items and its alpha, with 95% bootstrap intervals over items and the difference shown minus held out. None when
    the batch never showed suggestions."""
    link = DesignBatch.objects.filter(batch=batch).first()
    settings = link.suggest if link is not None else {}
    if not settings:
        return None
    design, _ = batch_design(batch.pk)
    model = dict(OutsideAnswer.objects.filter(batch=batch, source=OutsideAnswer.MODEL, annotator=settings["annotator"])
                 .values_list("item_id", "answers"))
    known = dict(Item.objects.filter(batch=batch, gold_answer__isnull=False).values_list("pk", "gold_answer"))
    # (item, worker, answer, shown) of every counted answer to an item the model answered, in the window.
    given = []
    for worker, claimed, answers in Assignment.objects.answered(batch).values_list("worker_id", "claimed", "answers"):
        if not _window(settings, claimed):
            continue
        for item, answer in (answers or {}).items():
            if int(item) in model and isinstance(answer, dict):
                given.append((int(item), worker, answer,
                              not held_out(batch.pk, worker, int(item), settings["holdout"])))
    rng = np.random.default_rng(seed)
    schemes = []
    for scheme in design.annotation_schemes:
        kind = SCHEME_TYPES.of(scheme)
        if not kind.answers or not kind.one_label(scheme):
            continue
        rows = [(item, worker, str(answer[scheme.name]), shown) for item, worker, answer, shown in given
                if answer.get(scheme.name) is not None and model[item].get(scheme.name) is not None]
        if rows:
            schemes.append(_scheme_pull(scheme.name, rows, model, known, rng))
    return {"batch": batch.pk, "model": settings["annotator"], "holdout": settings["holdout"],
            "since": settings["since"], "until": settings.get("until"), "schemes": schemes}


def _scheme_pull(name: str, rows: list[tuple[int, int, str, bool]], model: dict[int, dict], known: dict[int, Any],
                 rng: np.random.Generator) -> dict[str, Any]:
    by_item: dict[int, list[tuple[int, str, bool]]] = defaultdict(list)
    for item, worker, answer, shown in rows:
        by_item[item].append((worker, answer, shown))
    items = sorted(by_item)

    def measures(chosen: list[int]) -> dict[str, float | None]:
        found: dict[str, float | None] = {}
        for group, shown in (("shown", True), ("held_out", False)):
            picked = [(item, worker, answer) for item in chosen for worker, answer, seen in by_item[item]
                      if seen is shown]
            found[f"{group}.follows"] = _share([answer == str(model[item][name]) for item, _, answer in picked])
            found[f"{group}.gold"] = _share([answer == str(known_answer(known[item], name))
                                             for item, _, answer in picked
                                             if item in known and known_answer(known[item], name) is not None])
            found[f"{group}.alpha"] = _alpha(picked)
        for measure in ("follows", "gold", "alpha"):
            shown_value, held = found[f"shown.{measure}"], found[f"held_out.{measure}"]
            found[f"difference.{measure}"] = None if shown_value is None or held is None else shown_value - held
        return found

    point = measures(items)
    draws: dict[str, list[float]] = defaultdict(list)
    for _ in range(RESAMPLES):
        for key, value in measures([items[index] for index in rng.integers(0, len(items), len(items))]).items():
            if value is not None:
                draws[key].append(value)
    result: dict[str, Any] = {"scheme": name, "items": len(items)}
    for group, shown in (("shown", True), ("held_out", False)):
        result[group] = {"answers": sum(seen is shown for item in items for _, _, seen in by_item[item])}
    for key, value in point.items():
        group, measure = key.split(".")
        result.setdefault(group, {})[measure] = bootstrap_interval(value, draws[key])
    return result


def _share(flags: list[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def _alpha(picked: list[tuple[int, int, str]]) -> float | None:
    """Krippendorff's alpha (nominal) of one group's answers, over the items two or more of its people answered."""
    labels = sorted({answer for _, _, answer in picked})
    votes: dict[int, list[int]] = defaultdict(lambda: [0] * len(labels))
    for item, _, answer in picked:
        votes[item][labels.index(answer)] += 1
    counts = np.array([row for row in votes.values() if sum(row) >= 2])
    if len(labels) < 2 or len(counts) < 1:
        return None
    value = alpha(counts)
    return None if np.isnan(value) else value

