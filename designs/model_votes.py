"""A model as one more voter in an adaptive batch (SemEval's 100%/80% rule or any design's threshold rule).

Adaptive redundancy stops buying votes for an item once no further vote can change its outcome
(hits.services.adaptive). With a model counted, an item also stops where the model's vote and the first people
settle it by the same rule, the model standing for one of the rule's voters; an item they do not settle goes on to
the full crowd, and then its outcome is the people's alone (aggregation.services: the model's vote is counted only
on items with fewer people than the rule needs). Its vote counts when its answer's confidence reaches
`min_confidence` (log-probabilities or agreement over samples: designs.model_runs) and after `min_people` people.
What this saves and changes is measured, in simulation on the released labels, by bench/model_adaptive_bench.py."""

from __future__ import annotations

from typing import Any

from aggregation.services import aggregated
from designs.models import DesignBatch, OutsideAnswer
from hits.models import Batch
from hits.services.errors import CrowdError


def model_votes_start(*, batch: Batch, annotator: str = "", min_confidence: float | None = 0.9,
                      min_people: int = 1) -> dict[str, Any]:
    """Count a model's answers (by default the last model's) as one more voter in the batch's adaptive redundancy
    from now on."""
    link = DesignBatch.objects.filter(batch=batch).first()
    if link is None or not aggregated(batch):
        raise CrowdError(f"batch {batch.pk} has no vote rule (a threshold rule on one label an item); a model's vote "
                         f"stops items early only under such a rule")
    if not batch.adaptive:
        raise CrowdError(f"batch {batch.pk} is not adaptive, so nothing stops early; make it adaptive (outcomes or "
                         f"positives) first")
    if min_people < 1:
        raise CrowdError("--min-people: at least one person answers an item before the model's vote counts")
    if min_confidence is not None and not 0 < min_confidence <= 1:
        raise CrowdError(f"--min-confidence {min_confidence}: give a probability above 0, up to 1")
    name = OutsideAnswer.model_named(batch, annotator)
    link.model_vote = {"annotator": name, "min_confidence": min_confidence, "min_people": min_people}
    link.save(update_fields=["model_vote"])
    return link.model_vote


def model_votes_said(settings: dict[str, Any]) -> str:
    """What counting the model does, in words (the command's and the batch page's)."""
    gate = f"from confidence {settings['min_confidence']}" if settings["min_confidence"] else "whatever its confidence"
    people = "1 person" if settings["min_people"] == 1 else f"{settings['min_people']} people"
    return (f"{settings['annotator']}'s answers count as one more voter ({gate}, after {people} or more): an item "
            f"stops where they and the first people settle it; the rest get the full crowd")


def model_votes_stop(*, batch: Batch) -> None:
    DesignBatch.objects.filter(batch=batch).update(model_vote={})


def model_votes(batch: Batch) -> tuple[dict[int, dict[str, Any]], int] | None:
    """Registered in hits.extensions.MODEL_VOTES: the model's answers that count (each item's, where its confidence
    reaches the gate on every question it answered) and the people an item needs first; None when none count."""
    link = DesignBatch.objects.filter(batch=batch).only("model_vote").first()
    settings = link.model_vote if link is not None else {}
    if not settings:
        return None
    gate = settings.get("min_confidence")
    found = {}
    for item, answers, meta in OutsideAnswer.objects.filter(
            batch=batch, source=OutsideAnswer.MODEL, annotator=settings["annotator"]).values_list(
            "item_id", "answers", "meta"):
        confidence = (meta or {}).get("confidence") or {}
        if gate is None or (confidence and all(confidence.get(name, 0) >= gate for name in answers)):
            found[item] = answers
    return found, int(settings.get("min_people", 1))


def model_answers(batch: Batch, annotator: str = "") -> tuple[str, dict[int, dict[str, Any]]]:
    """Registered in hits.extensions.MODEL_ANSWERS: every answer the model `annotator` (the last to answer when
    empty) gave the batch, by item, whatever its confidence: a method weighs the model by the skill it estimates."""
    name = OutsideAnswer.model_named(batch, annotator)
    return name, dict(OutsideAnswer.objects.filter(batch=batch, source=OutsideAnswer.MODEL, annotator=name)
                      .values_list("item_id", "answers"))
