"""What a design batch's known-answer items do for the worker, as Potato's quality control does: its attention checks'
failure handling (after each submission a worker who has answered `warn_after` of them wrong is told the warning,
and one who has answered `block_after` wrong may take no more of the batch's work, told why when they next claim or
submit; with `min_response_s`, a check answered sooner than that counts as wrong, measured by the server), its gold
standards' feedback (after each submission, how many of the HIT's were right, and the answer and explanation of each
one got wrong) and accuracy (each worker's share right, listed by the design report, and told in the feedback to a
worker under it). The settings ride on the batch's requirements (designs.services.requirements_of), so a batch
without them costs no query."""

from __future__ import annotations

from typing import Any

from designs.answers import field_prefix
from designs.screening import DESIGN_TESTS_ENTRY
from designs.task_type import record
from hits.extensions import Notice, Refusal
from hits.models import Assignment, Batch, Item, Worker

EXCERPT = 60  # characters of an item's text that name it in the feedback


def rules(batch: Batch) -> dict[str, Any] | None:
    return (batch.requirements or {}).get("attention")


def words(requirements: dict[str, Any]) -> list[str]:
    """Registered in hits.extensions.FILTER_WORDS: the attention rules' stop, said where who may work is."""
    found = requirements.get("attention") or {}
    if not found.get("block_after"):
        return []
    return [f"stopped after {found['block_after']} check items answered wrong"]


def _known(batch: Batch) -> dict[int, dict[str, Any]]:
    return {pk: key for pk, key in Item.objects.filter(batch=batch, gold_answer__isnull=False).values_list(
        "pk", "gold_answer") if isinstance(key, dict)}


def _marks(known: dict[int, dict[str, Any]], answers: dict[str, Any] | None) -> list[bool]:
    """Right or not, for each known-answer item an assignment's answers hold."""
    return [DESIGN_TESTS_ENTRY.right(answer or {}, known[int(item)]) for item, answer in (answers or {}).items()
            if int(item) in known]


def score(batch: Batch, worker: Worker) -> tuple[int, int]:
    """(right, answered) over the known-answer items of the batch in the worker's counted answers."""
    known = _known(batch)
    marks = [mark for answers in Assignment.objects.answered(batch).filter(worker=worker).values_list(
        "answers", flat=True) for mark in _marks(known, answers)]
    return sum(marks), len(marks)


def answered_after(assignment: Assignment, item: int) -> float | None:
    """Seconds from the claim to the item's answer first reaching the server (a saved draft, else the submission);
    for work the page did not send here (a provider's own form), the whole HIT's time. Never shorter than the time
    the annotator really took, so an answer measured too fast surely was."""
    prefix = f"{field_prefix(item, 0).rsplit('-', 1)[0]}-"
    seen = [after for name, after in (assignment.answers_seen or {}).items() if name.startswith(prefix)]
    if seen:
        return min(seen)
    if assignment.submitted is None:
        return None
    return (assignment.submitted - assignment.claimed).total_seconds()


def failures(batch: Batch, worker: Worker) -> int:
    """The known-answer items of the batch that the worker's counted answers got wrong, or answered sooner than
    the attention rules' min_response_s (a check clicked through unread fails, as in Potato)."""
    known = _known(batch)
    soonest = (rules(batch) or {}).get("min_response_s")
    wrong = 0
    for assignment in Assignment.objects.answered(batch).filter(worker=worker).only(
            "answers", "answers_seen", "claimed", "submitted"):
        for item, answer in (assignment.answers or {}).items():
            if int(item) not in known:
                continue
            fast = soonest is not None and (answered_after(assignment, int(item)) or 0) < soonest
            wrong += fast or not DESIGN_TESTS_ENTRY.right(answer or {}, known[int(item)])
    return wrong


def _under(found: dict[str, Any] | None, right: int, answered: int) -> bool | None:
    """Whether a score is under the design's gold accuracy, None until it is measured (or with no threshold)."""
    if not found or answered < found["evaluation_count"]:
        return None
    return right / answered < found["min_threshold"]


def gold_scores(batch: Batch) -> list[dict[str, Any]]:
    """Each worker's score on the batch's known-answer items, by the pseudonym the export gives them (W1, W2, … in
    the order their work came in): right, answered, the share right and whether it is under the design's
    gold_accuracy (None until they have answered its evaluation_count). A chunk of assignments at a time."""
    known = _known(batch)
    if not known:
        return []
    found = (batch.requirements or {}).get("gold_accuracy")
    pseudonyms: dict[int, str] = {}
    tally: dict[str, list[int]] = {}
    for worker_id, answers in (Assignment.objects.answered(batch).order_by("submitted", "pk")
                               .values_list("worker_id", "answers").iterator(chunk_size=500)):
        name = pseudonyms.setdefault(worker_id, f"W{len(pseudonyms) + 1}")
        marks = _marks(known, answers)
        counts = tally.setdefault(name, [0, 0])
        counts[0] += sum(marks)
        counts[1] += len(marks)
    return [{"worker": name, "right": right, "answered": answered, "accuracy": right / answered,
             "under": _under(found, right, answered)} for name, (right, answered) in tally.items() if answered]


def refusal(batch: Batch, worker: Worker) -> str | None:
    """Registered in hits.extensions.ELIGIBILITY: no more of the batch's work after `block_after` wrong."""
    found = rules(batch)
    if not found or not found.get("block_after"):
        return None
    wrong = failures(batch, worker)
    if wrong < found["block_after"]:
        return None
    return Refusal(f"{found['block_message']} ({wrong} check items of {batch.name} answered {_wrongly(found)}; "
                   f"the work ends at {found['block_after']})")


def notice(batch: Batch, worker: Worker) -> str | None:
    """Registered in hits.extensions.NOTICES: after each submission, the block message once `block_after` are
    wrong, else the warning once `warn_after` are."""
    found = rules(batch)
    if not found:
        return None
    wrong = failures(batch, worker)
    if found.get("block_after") and wrong >= found["block_after"]:
        return f"{found['block_message']} ({wrong} check items answered {_wrongly(found)})"
    if found.get("warn_after") and wrong >= found["warn_after"]:
        return f"{found['warn_message']} ({wrong} check items answered {_wrongly(found)} so far)"
    return None


def _wrongly(found: dict[str, Any]) -> str:
    return f"wrong or in under {found['min_response_s']:g} s" if found.get("min_response_s") else "wrong"


def gold_feedback(batch: Batch, worker: Worker) -> str | None:
    """Registered in hits.extensions.NOTICES: how the worker did on the known-answer items of the HIT they submitted
    last, and for each one got wrong its answer (and explanation) where the design says to tell them."""
    found = (batch.requirements or {}).get("gold_feedback")
    if not found:
        return None
    last = Assignment.objects.answered(batch).filter(worker=worker).order_by("-submitted").first()
    if last is None:
        return None
    checks = [item for item in last.hit.ordered_items() if isinstance(item.gold_answer, dict)]
    if not checks:
        return None
    wrong = [item for item in checks if not DESIGN_TESTS_ENTRY.right((last.answers or {}).get(str(item.pk)) or {},
                                                                     item.gold_answer)]
    said = [f"Check items of this HIT: {len(checks) - len(wrong)} of {len(checks)} right."]
    for item in wrong:
        shown = record(item)
        text = shown.text if len(shown.text) <= EXCERPT else shown.text[:EXCERPT - 1] + "…"
        told = f"“{text}”: not right"
        if found.get("answer", True):
            told += f"; the answer is {DESIGN_TESTS_ENTRY.shown(None, item.gold_answer)}"
        why = shown.fields.get(found["explanation_key"]) if found.get("explanation_key") else None
        said.append(told + (f" ({why})." if why else "."))
    expected: dict[str, Any] = (batch.requirements or {}).get("gold_accuracy") or {}
    right, answered = score(batch, worker) if expected else (0, 0)
    under = _under(expected, right, answered)
    if under:  # as Potato's feedback warns an annotator under gold_standards.accuracy
        said.append(f"Your check items so far: {right} of {answered} right ({right / answered:.0%}); this study "
                    f"asks for {expected['min_threshold']:.0%}.")
    return Notice(" ".join(said), "warning" if wrong or under else "info")
