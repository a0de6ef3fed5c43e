"""Qualification workflows: draw the test, take it, grade it, grant, revoke."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from os import PathLike
from typing import Any

from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from core.semeval import read_subtask1_rows
from filtering.patterns import TABLE_5, CandidateFilter
from hits.extensions import Refusal
from hits.models import Batch, Worker
from hits.providers import get_provider
from hits.services import CrowdError
from qualification import practice
from qualification.extensions import DESIGN_TESTS
from qualification.grading import grade
from qualification.models import Attempt, Grant, QualificationTest, TestItem

ITEMS = 40

INSTRUCTIONS = """A counterfactual statement describes something that did not happen (or cannot happen) and
what would have followed if it had: an antecedent contrary to fact, and its consequent.
"If kangaroos had no tails, they would topple over": kangaroos do have tails (antecedent
contrary to fact), and toppling over is what would follow (consequent).

Say "counterfactual" only when the sentence imagines the world otherwise than it is or was.
Real conditionals about what may still happen are not counterfactual ("if approved, it would
be the first such drug"), nor are polite or hypothetical offers ("if I were asked to, I would
be happy to help" is hypothetical, read it carefully), nor wishes about the future ("I wish to
thank the board"). Read each sentence whole; the words "if", "would" or "wish" alone decide nothing."""

EXAMPLES = [
    {"sentence": "Officials say if they had authority to shut non-bank firms, the collapse of Lehman Brothers, which "
                 "touched off the most virulent phase of the credit crisis, could have been avoided.", "answer": 1,
     "why": "They did not have the authority (contrary to fact); the collapse could have been avoided (consequent)."},
    {"sentence": "The delivery numbers would have been high had it not been for the restrictions imposed by the "
                 "military for security reasons.", "answer": 1,
     "why": "There were restrictions; without them, numbers would have been high. 'Had it not been' is an "
            "inverted 'if it had not been'."},
    {"sentence": "It should have been feasible right after the collapse of Lehman Brothers (in 2008), when prices "
                 "were cheap.", "answer": 1, "why": "It was not done then; the sentence imagines it had been."},
    {"sentence": "If approved, it would be the first such drug on the market.", "answer": 0,
     "why": "A real possibility in the future, not something contrary to fact."},
    {"sentence": "Under the current alignment, he said, American multinational corporations like Pfizer might invest "
                 "more money in the United States, not less, if they had their tax domiciles abroad.", "answer": 0,
     "why": "A policy scenario that may come true, not an assumption against known facts."},
]


# The words a sentence of each Table 5 row turns on, for explaining an item's answer in a few words.
CUES = {"1": "if … then", "2": "if … had", "3": "would / could / should have", "4": "what if", "5": "even if",
        "6a": "if I / he / she were", "6b": "if … were to", "7": "wish … would have", "8": "wish … were / had",
        "9": "wish", "10": "but for … would have", "11": "if only", "12": "had / were at the start",
        "13": "if", "14": "would have … without"}


def explanation(answer: int, rows: Sequence[str]) -> str:
    """Why a test item's answer is what it is, in terms of the words that make it look like one or not."""
    cue = next((CUES[row] for row in rows if row in CUES), None)
    if answer:
        form = f"Its “{cue}” " if cue else "It "
        return (f"Counterfactual. {form}describes something that did not happen (or cannot), and what would have "
                f"followed if it had. This is its label in the released SemEval-2020 data.")
    if cue:
        return (f"Not counterfactual. It has the words of one (“{cue}”), but what it describes may still happen, "
                f"is so, or is only offered or wished for: nothing in it is contrary to fact. This is its label in the "
                f"released SemEval-2020 data.")
    return ("Not counterfactual. Nothing in it imagines the world otherwise than it is or was. This is its label in "
            "the released SemEval-2020 data.")


def draw_items(rows: Iterable[tuple[str, int, str]], *, count: int = ITEMS,
               seed: int = 0) -> list[tuple[str, int, str, list[str]]]:
    """Pick a balanced, diverse test from released rows [(sentence id, label, text)].

    Half of each label; every Table 5 row fired by some sentence of each label
    is represented where the pool allows; the rest spread over sentence
    lengths from short to long. Returns [(sentence id, label, text, rows)].
    """
    engine = CandidateFilter("paper")
    rng = random.Random(seed)
    pool: dict[int, list[tuple[str, int, str, list[str]]]] = {0: [], 1: []}
    for key, label, text in rows:
        pool[int(label)].append((key, int(label), text, list(engine.match(text).token_rows)))
    chosen = []
    for label in (1, 0):
        members = sorted(pool[label], key=lambda row: row[0])
        rng.shuffle(members)
        wanted = count // 2 if label == 1 else count - count // 2
        picked: list[tuple[str, int, str, list[str]]] = []
        for row_id in (row.id for row in TABLE_5):  # one sentence per Table 5 row first
            match = next((m for m in members if row_id in m[3] and m not in picked), None)
            if match and len(picked) < wanted:
                picked.append(match)
        rest = sorted((m for m in members if m not in picked), key=lambda m: len(m[2].split()))
        need = wanted - len(picked)
        if need > 0 and rest:
            step = len(rest) / need  # evenly across the length order: short to long
            picked.extend(rest[min(len(rest) - 1, int(i * step + step / 2))] for i in range(need))
        chosen.extend(picked)
    rng.shuffle(chosen)
    return chosen


@transaction.atomic
def qualification_test_create(*, name: str, path: str | PathLike[str], version: int | None = None, seed: int = 0,
                              threshold: int = 80, duration: int = 45 * 60,
                              retake_delay: int = 24 * 3600) -> QualificationTest:
    version = version or (QualificationTest.objects.filter(name=name).count() + 1)
    rows = read_subtask1_rows(path)
    try:
        test = QualificationTest.objects.create(
            name=name, version=version, title="Counterfactual screening test", instructions=INSTRUCTIONS,
            examples=EXAMPLES, pass_threshold=threshold, duration=duration, retake_delay=retake_delay)
    except IntegrityError:
        raise CrowdError(f"{name} v{version} exists; draw a new version instead") from None
    TestItem.objects.bulk_create(
        TestItem(test=test, position=n, sentence_id=key, answer=label, text=text, rows=row_ids,
                 why=explanation(label, row_ids))
        for n, (key, label, text, row_ids) in enumerate(draw_items(rows, seed=seed)))
    return test


def test_item_update(*, item: TestItem, text: str, answer: int, why: str | None = None) -> TestItem:
    """An organizer's correction of one item of a drawn test (its sentence, its answer, its explanation).
    A changed answer without a new explanation gets the generated one, never the old answer's."""
    if not text.strip():
        raise CrowdError(f"item {item.position + 1}: the sentence is empty")
    if answer not in (0, 1):
        raise CrowdError(f"item {item.position + 1}: the answer is 1 (counterfactual) or 0 (not)")
    if why is not None and why.strip():
        item.why = why.strip()
    elif answer != item.answer:
        item.why = explanation(answer, item.rows)
    item.text, item.answer = text.strip(), answer
    item.save(update_fields=["text", "answer", "why"])
    return item


def reserved_sentence_ids() -> set[str]:
    """Released sentence ids used in any screening test: they must not appear in batches."""
    return set(TestItem.objects.values_list("sentence_id", flat=True))


def design_test_create(*, name: str, title: str, design_source: str, items: Sequence[tuple[Any, dict, str]],
                       instructions: str = "", pass_threshold: int = 80, retake_delay: int = 24 * 3600,
                       rules: practice.Practice | None = None) -> QualificationTest:
    """A screening test of a design file: items are (record with id, text and fields, {scheme: known answer}, why
    the answer is what it is), asked with the design's schemes and shown, after grading, with the known answers and
    the why; with `rules`, a practice round asked one item at a time with feedback after each answer. The next
    version of `name` when it exists."""
    if not items:
        raise ValueError("a test needs items with answers")
    with transaction.atomic():
        latest = current_test(name)
        test = QualificationTest.objects.create(
            name=name, version=latest.version + 1 if latest else 1, title=title[:200], instructions=instructions,
            pass_threshold=pass_threshold, retake_delay=retake_delay, design_source=design_source,
            practice=rules.stored() if rules else {})
        TestItem.objects.bulk_create([
            TestItem(test=test, position=number, sentence_id=str(record.id)[:40], text=record.text,
                     record={"id": record.id, "text": record.text, "fields": record.fields}, answers=answers,
                     why=why) for number, (record, answers, why) in enumerate(items, 1)])
    return test


def current_test(name: str) -> QualificationTest | None:
    return QualificationTest.objects.filter(name=name).order_by("-version").first()


def attempt_start(*, test: QualificationTest, worker: Worker, now: datetime | None = None) -> Attempt:
    """The worker's open attempt, or a new one; refused while qualified, revoked or waiting to retake."""
    now = now or timezone.now()
    grant = Grant.objects.filter(test__name=test.name, worker=worker).order_by("-test__version").first()
    if grant and grant.revoked:
        raise CrowdError(f"your qualification for this work was withdrawn ({grant.revoked_reason}); the test "
                         f"cannot be taken again")
    if grant and grant.test.version >= test.version:
        raise CrowdError(f"you passed this test already, with {grant.score}%: the work that needs it is open to you")
    if worker.blocked:
        raise CrowdError("your account is blocked from crowd work")
    open_attempt = Attempt.objects.filter(test=test, worker=worker, submitted=None).first()
    if open_attempt:
        if open_attempt.deadline > now:
            return open_attempt
        _close(open_attempt, {}, now)  # ran out of time: graded as it stands, unanswered is wrong
    last = Attempt.objects.filter(test=test, worker=worker).exclude(submitted=None).order_by("-submitted").first()
    if last is not None and last.submitted is not None and not last.passed and test.practice:
        # As in Potato, a practice round that ended short (after its own repeats) is the end of this work.
        raise CrowdError(f"you did not pass the practice round ({last.score}%, the round needs "
                         f"{test.pass_threshold}%); in this project it is not taken again")
    if last is not None and last.submitted is not None and not last.passed:
        allowed = last.submitted + timedelta(seconds=test.retake_delay)
        if now < allowed:
            raise CrowdError(f"you scored {last.score}% on your last try (the test needs {test.pass_threshold}%); "
                             f"you can take it again from {allowed:%Y-%m-%d %H:%M} UTC")
    return Attempt.objects.create(test=test, worker=worker, started=now, progress=practice.start() if test.practice
                                  else {}, deadline=now + timedelta(seconds=test.duration))


def practice_answer(*, attempt: Attempt, worker: Worker, item_id: int, answers: Mapping[str, Any] | None,
                    draft: Mapping[str, str], now: datetime | None = None) -> Attempt:
    """One answer of a practice round (the test's `practice` rules): graded at once, told on the next page, the
    same item again after a wrong answer where the rules allow it, and the round closed when it ends. An answer to
    an item the round is not at (a second tab, a page sent twice) is refused and changes nothing. `draft` is the
    posted form, put back on the page when the item is tried again."""
    now = now or timezone.now()
    _close_if_late(attempt, worker, now)
    with transaction.atomic():
        attempt = _open_attempt(attempt, worker, now)
        items = list(attempt.test.items.all())
        progress = attempt.progress
        current = items[progress["at"]]
        if current.pk != item_id:
            raise CrowdError("that item was answered already: the practice round goes on from the item it is at")
        right = answers is not None and bool(answers) and DESIGN_TESTS.get("design").right(answers, current.answers)
        attempt.answers = {**(attempt.answers or {}), str(current.pk): answers or None}
        rules = practice.Practice.of(attempt.test.practice)
        assert rules is not None, "a practice answer to a test without practice rules"
        step = practice.answer(rules, progress, [item.pk for item in items], current.pk, right)
        progress["said"] = {"item": current.pk, "right": step.right, "again": step.again,
                            "round": progress["round"]}
        progress["draft"] = dict(draft) if step.again else {}
        if step.ended:
            progress["ended"] = step.ended
            attempt.score = round(100 * len(progress["right"]) / len(items))
            attempt.passed, attempt.submitted = step.ended == practice.PASSED, now
            if attempt.passed:
                grant_record(test=attempt.test, worker=attempt.worker, score=attempt.score, now=now)
        attempt.save(update_fields=["answers", "progress", "score", "passed", "submitted"])
        return attempt


def attempt_submit(*, attempt: Attempt, worker: Worker, answers: Mapping[str, Any],
                   now: datetime | None = None) -> Attempt:
    """Grade an attempt once. answers: {"item-<id>": "1"/"0"}, as the page posts them."""
    now = now or timezone.now()
    _close_if_late(attempt, worker, now)
    with transaction.atomic():
        return _close(_open_attempt(attempt, worker, now), answers, now)


def _open_attempt(attempt: Attempt, worker: Worker, now: datetime) -> Attempt:
    """The attempt, locked, while it is the worker's and open: refused once sent or late. Call inside a transaction,
    after _close_if_late outside it (a refusal rolls that transaction back, and a late attempt's close must stay)."""
    attempt = Attempt.objects.select_for_update().select_related("test").get(pk=attempt.pk)
    if attempt.worker_id != worker.pk:
        raise CrowdError("this attempt is another worker's")
    if attempt.submitted:
        raise CrowdError(f"you sent this attempt already ({attempt.score}%); an attempt is graded once")
    if now > attempt.deadline:
        raise CrowdError(f"the time for this attempt ran out at {attempt.deadline:%H:%M} UTC")
    return attempt


def _close_if_late(attempt: Attempt, worker: Worker, now: datetime) -> None:
    """Grade the worker's open attempt whose time ran out, without answers, in a transaction of its own; then
    refuse."""
    with transaction.atomic():
        late = Attempt.objects.select_for_update().select_related("test").get(pk=attempt.pk)
        if late.worker_id != worker.pk or late.submitted or now <= late.deadline:
            return
        _close(late, {}, now)
    raise CrowdError(f"the time for this attempt ran out at {late.deadline:%H:%M} UTC, so it was graded "
                     f"without answers and counts as failed")


def _close(attempt: Attempt, answers: Mapping[str, Any], now: datetime) -> Attempt:
    if attempt.test.design_source:
        # A design's test: each item right when its answers hold every known answer (DESIGN_TESTS' right).
        checker = DESIGN_TESTS.get("design")
        known = {item.pk: item.answers for item in attempt.test.items.all()}
        given = {item: answers.get(f"item-{item}") or None for item in known}
        marks = {item: int(checker.right(answer, known[item])) if answer else None for item, answer in given.items()}
        score, passed = grade(marks, dict.fromkeys(known, 1), attempt.test.pass_threshold)
    else:
        key = {item.pk: item.answer for item in attempt.test.items.all()}
        given = {}
        for item in key:
            value = answers.get(f"item-{item}")
            given[item] = int(value) if value in ("0", "1", 0, 1) else None
        score, passed = grade(given, key, attempt.test.pass_threshold)
    attempt.answers = {str(item): value for item, value in given.items()}
    attempt.score, attempt.passed, attempt.submitted = score, passed, now
    attempt.save(update_fields=["answers", "score", "passed", "submitted"])
    if passed:
        grant_record(test=attempt.test, worker=attempt.worker, score=score, now=now)
    return attempt


def grant_record(*, test: QualificationTest, worker: Worker, score: int, now: datetime | None = None) -> Grant:
    grant, created = Grant.objects.get_or_create(test=test, worker=worker,
                                                 defaults={"score": score, "granted": now or timezone.now()})
    if not created and score > grant.score and not grant.revoked:
        grant.score = score
        grant.save(update_fields=["score"])
    return grant


def grants_revoke(*, worker: Worker, reason: str) -> list[Grant]:
    """Revoke every grant of the worker, here and, for MTurk workers, at MTurk."""
    grants = list(Grant.objects.filter(worker=worker, revoked=None).select_related("test"))
    if grants:
        # At the provider the worker is kept out of this requester's HITs for good (on MTurk a block
        # qualification every HIT type requires to be absent): a retaken test does not bring them back.
        get_provider(worker.provider).revoke(worker, reason)
    for grant in grants:
        grant.revoked = timezone.now()
        grant.revoked_reason = reason
        grant.save(update_fields=["revoked", "revoked_reason"])
    return grants


def grants_revoke_count(worker: Worker, reason: str) -> int:
    """Registered in hits.extensions.REVOKERS."""
    return len(grants_revoke(worker=worker, reason=reason))


def eligibility_refusal(batch: Batch, worker: Worker) -> str | None:
    """Registered in hits.extensions.ELIGIBILITY: a batch that names a test needs a live grant of it."""
    name = (batch.requirements or {}).get("qualification")
    if not name:
        return None
    minimum = int(batch.requirements.get("min_version", 1))
    grant = Grant.objects.filter(test__name=name, test__version__gte=minimum, worker=worker, revoked=None).first()
    if grant is not None:
        return None
    if Grant.objects.filter(test__name=name, worker=worker).exclude(revoked=None).exists():
        return Refusal("your qualification for this work was withdrawn")
    return Refusal("this work needs the screening test, which you have not passed yet",
                   ("Take the screening test", reverse("qualification:take", args=[name])))
