"""Qualification workflows: draw the test, take it, grade it, grant, revoke."""

import random
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.services import read_semeval
from filtering.patterns import TABLE_5, CandidateFilter
from hits.services import CrowdError
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


def draw_items(rows, *, count=ITEMS, seed=0):
    """Pick a balanced, diverse test from released rows [(sentence id, label, text)].

    Half of each label; every Table 5 row fired by some sentence of each label
    is represented where the pool allows; the rest spread over sentence
    lengths from short to long. Returns [(sentence id, label, text, rows)].
    """
    engine = CandidateFilter("paper")
    rng = random.Random(seed)
    pool = {0: [], 1: []}
    for key, label, text in rows:
        pool[int(label)].append((key, int(label), text, list(engine.match(text).token_rows)))
    chosen = []
    for label in (1, 0):
        members = sorted(pool[label], key=lambda row: row[0])
        rng.shuffle(members)
        wanted = count // 2 if label == 1 else count - count // 2
        picked = []
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
def qualification_test_create(*, name, path, version=None, seed=0, threshold=80, duration=45 * 60,
                              retake_delay=24 * 3600):
    version = version or (QualificationTest.objects.filter(name=name).count() + 1)
    rows = [(row["sentenceID"], int(row["gold_label"]), row["sentence"]) for row in read_semeval(path)]
    try:
        test = QualificationTest.objects.create(
            name=name, version=version, title="Counterfactual screening test", instructions=INSTRUCTIONS,
            examples=EXAMPLES, pass_threshold=threshold, duration=duration, retake_delay=retake_delay)
    except IntegrityError:
        raise CrowdError(f"{name} v{version} exists; draw a new version instead") from None
    TestItem.objects.bulk_create(
        TestItem(test=test, position=n, sentence_id=key, answer=label, text=text, rows=row_ids)
        for n, (key, label, text, row_ids) in enumerate(draw_items(rows, seed=seed)))
    return test


def reserved_sentence_ids():
    """Released sentence ids used in any screening test: they must not appear in batches."""
    return set(TestItem.objects.values_list("sentence_id", flat=True))


def current_test(name):
    return QualificationTest.objects.filter(name=name).order_by("-version").first()


def attempt_start(*, test, worker, now=None):
    """The worker's open attempt, or a new one; refused while qualified, revoked or waiting to retake."""
    now = now or timezone.now()
    grant = Grant.objects.filter(test__name=test.name, worker=worker).order_by("-test__version").first()
    if grant and grant.revoked:
        raise CrowdError(f"worker {worker}'s qualification was revoked: {grant.revoked_reason}")
    if grant and grant.test.version >= test.version:
        raise CrowdError(f"worker {worker} already passed {grant.test} with {grant.score}%")
    if worker.blocked:
        raise CrowdError(f"worker {worker} is blocked")
    open_attempt = Attempt.objects.filter(test=test, worker=worker, submitted=None).first()
    if open_attempt:
        if open_attempt.deadline > now:
            return open_attempt
        _close(open_attempt, {}, now)  # ran out of time: graded as it stands, unanswered is wrong
    last = Attempt.objects.filter(test=test, worker=worker).exclude(submitted=None).order_by("-submitted").first()
    if last is not None and not last.passed:
        allowed = last.submitted + timedelta(seconds=test.retake_delay)
        if now < allowed:
            raise CrowdError(f"worker {worker} failed {test} with {last.score}% and may retake it from "
                             f"{allowed:%Y-%m-%d %H:%M} UTC")
    return Attempt.objects.create(test=test, worker=worker, started=now,
                                  deadline=now + timedelta(seconds=test.duration))


def attempt_submit(*, attempt, worker, answers, now=None):
    """Grade an attempt once. answers: {"item-<id>": "1"/"0"}, as the page posts them."""
    now = now or timezone.now()
    with transaction.atomic():
        attempt = Attempt.objects.select_for_update().select_related("test").get(pk=attempt.pk)
        if attempt.worker_id != worker.pk:
            raise CrowdError(f"attempt {attempt.pk} belongs to another worker")
        if attempt.submitted:
            raise CrowdError(f"attempt {attempt.pk} was already submitted ({attempt.score}%); one submission an "
                             f"attempt")
        if now > attempt.deadline:
            _close(attempt, {}, now)
            raise CrowdError(f"attempt {attempt.pk} ran out of time at {attempt.deadline:%H:%M} UTC; it counts as "
                             f"failed")
        return _close(attempt, answers, now)


def _close(attempt, answers, now):
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


def grant_record(*, test, worker, score, now=None):
    grant, created = Grant.objects.get_or_create(test=test, worker=worker,
                                                 defaults={"score": score, "granted": now or timezone.now()})
    if not created and score > grant.score and not grant.revoked:
        grant.score = score
        grant.save(update_fields=["score"])
    return grant


def grants_revoke(*, worker, reason):
    """Revoke every grant of the worker, here and, for MTurk workers, at MTurk."""
    from hits.providers import get_provider

    grants = list(Grant.objects.filter(worker=worker, revoked=None).select_related("test"))
    for grant in grants:
        if worker.provider == "mturk" and grant.test.mturk_qualification_type_id:
            provider = get_provider("mturk")
            provider.client.disassociate_qualification_from_worker(
                QualificationTypeId=grant.test.mturk_qualification_type_id, WorkerId=worker.external_id,
                Reason=reason[:1024])
        grant.revoked = timezone.now()
        grant.revoked_reason = reason
        grant.save(update_fields=["revoked", "revoked_reason"])
    return grants


def eligibility_refusal(batch, worker):
    """Registered with hits.eligibility: a batch that names a test needs a live grant of it."""
    name = (batch.requirements or {}).get("qualification")
    if not name:
        return None
    minimum = int(batch.requirements.get("min_version", 1))
    grant = Grant.objects.filter(test__name=name, test__version__gte=minimum, worker=worker, revoked=None).first()
    if grant is None:
        return f"worker {worker} has not passed the qualification test {name!r}"
    return None
