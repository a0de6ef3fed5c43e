"""Aggregation workflows: run the maths over a batch and store the results;
spot checks of submitted HITs and what follows from them."""

from __future__ import annotations

import hashlib
import itertools
import math
import random
import tempfile
from array import array
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, replace
from typing import Any

import numpy as np
from django.db import connection, transaction
from django.db.models import Field, OuterRef, Subquery
from django.utils import timezone

from aggregation import maths, methods
from aggregation.models import AggregationRun, ItemOutcome, SpotCheck, WorkerStat
from aggregation.span_maths import span_agreement
from annotation.models import SpanAnswer
from annotation.services import SPAN_REVIEW
from core.items import SentenceItem
from core.spans import Spans
from hits.extensions import MODEL_ANSWERS, MODEL_VOTES
from hits.models import Assignment, Batch, Item, Worker
from hits.selectors import answers_by_item
from hits.services import CrowdError, assignment_approve, assignment_reject
from hits.task_types import get_task_type
from qualification.models import Grant


def batch_vote_rule(batch: Batch, **choices: Any) -> maths.VoteRule:
    """The vote rules of the batch: its design's threshold rule for its label scheme (aggregation.maths.vote_rule)
    with the run's `choices`. Raises CrowdError saying why the batch's answers are not votes under such a rule."""
    task = get_task_type(batch.task_type)
    if task.label_key(batch) is None:
        raise CrowdError(f"batch {batch.pk}'s answers are not one label per item, so there are no votes to "
                         f"aggregate; report it with `manage.py design report {batch.pk}`")
    try:
        return maths.vote_rule(task.label_rule(batch), **choices)
    except maths.RuleError as error:
        raise CrowdError(f"batch {batch.pk} is not aggregated by the vote rules: {error}") from None


def aggregated(batch: Batch) -> bool:
    """Whether the vote rules aggregate the batch: its answers are one label per item and its design states the
    agreement rules for them (designs/semeval-subtask1.yaml's 5/5 and 4/5 rule). Spans are reviewed, not voted
    on; other designs are aggregated by their own rules (designs.aggregate)."""
    try:
        batch_vote_rule(batch)
    except CrowdError:
        return False
    return True


def spot_scheme(batch: Batch) -> str | None:
    """Where a spot check finds each item's label in an answer (see TaskType.label_key); None when the batch's
    answers are not one label per item."""
    return get_task_type(batch.task_type).label_key(batch)


def spot_checked(batch: Batch) -> bool:
    """Whether the batch's answers are single labels a spot check can compare with known answers."""
    return spot_scheme(batch) is not None


def vote_columns(batch: Batch) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(item ids, worker ids, votes, hit ids) as integer arrays, one entry for every answer of submitted or
    approved work, in the order the work came in: 1 for the label the rule calls positive, 0 for the negatives'
    label (another label is not a vote). Read a chunk of assignments at a time into arrays (8 bytes a vote and
    column): no object per vote, whatever the batch's size."""
    columns = tuple(array("q") for _ in range(4))
    try:
        rule = batch_vote_rule(batch)
    except CrowdError:
        return tuple(np.frombuffer(column, dtype=np.int64) for column in columns)  # type: ignore[return-value]
    scheme = get_task_type(batch.task_type).label_key(batch)
    votes = {rule.yes: 1, rule.no: 0}
    items, workers, labels, hits = columns
    rows = (Assignment.objects.answered(batch)
            .order_by("submitted", "pk").values_list("answers", "worker_id", "hit_id").iterator(chunk_size=500))
    for answers, worker, hit in rows:
        for item, answer in (answers or {}).items():
            vote = votes.get(str(answer.get(scheme))) if answer.get(scheme) is not None else None
            if vote is not None:
                items.append(int(item))
                workers.append(worker)
                labels.append(vote)
                hits.append(hit)
    return tuple(np.frombuffer(column, dtype=np.int64) for column in columns)  # type: ignore[return-value]


def model_votes(batch: Batch) -> tuple[dict[int, int], int] | None:
    """A model's votes where the batch counts them (hits.extensions.MODEL_VOTES): {item: 1 yes, 0 no} under the
    batch's rule, and how many people an item needs before the model's vote counts; None when it counts none."""
    for _, source in MODEL_VOTES.items():
        found = source(batch)
        if found is not None:
            return _as_votes(batch, found[0]), found[1]
    return None


def model_beside(batch: Batch, annotator: str = "") -> tuple[str, dict[int, int]]:
    """A model's answers to every item it answered (hits.extensions.MODEL_ANSWERS; "" the last model to answer), as
    {item: 1 yes, 0 no} under the batch's rule, with the model's name."""
    for _, source in MODEL_ANSWERS.items():
        name, found = source(batch, annotator)
        return name, _as_votes(batch, found)
    raise CrowdError(f"batch {batch.pk}: no installed app keeps a model's answers")


def _as_votes(batch: Batch, answers: dict[int, dict[str, Any]]) -> dict[int, int]:
    rule = batch_vote_rule(batch)  # refused there when the answers are not one label an item
    scheme = get_task_type(batch.task_type).label_key(batch) or ""
    votes = {rule.yes: 1, rule.no: 0}
    return {item: votes[str(found[scheme])] for item, found in answers.items() if str(found.get(scheme)) in votes}


def _with_model(batch: Batch, columns: tuple[np.ndarray, ...], required: int,
                model: tuple[dict[int, int], int] | None = None) -> tuple[np.ndarray, ...]:
    """The vote columns with the model's vote added on each item whose people are at least the people it needs and
    fewer than the rule's `required`: the model stops an item early with the first people; an item that reaches the
    full crowd is the people's alone. Unchanged when the batch counts no model."""
    model = model if model is not None else model_votes(batch)
    if not model or not model[0]:
        return columns
    votes, least = model
    people = Counter(columns[0].tolist())
    return _with_votes(columns, votes, [item for item, count in people.items() if least <= count < required])


def _with_votes(columns: tuple[np.ndarray, ...], votes: dict[int, int], items: Iterable[int]) -> tuple[np.ndarray, ...]:
    """The vote columns with the model's vote on those of `items` it gave one; its worker and HIT are 0 (no Worker,
    no HIT)."""
    added = [item for item in items if item in votes]
    if not added:
        return columns
    extra = (np.array(added, dtype=np.int64), np.zeros(len(added), dtype=np.int64),
             np.array([votes[item] for item in added], dtype=np.int64), np.zeros(len(added), dtype=np.int64))
    return tuple(np.concatenate([column, more]) for column, more in zip(columns, extra, strict=True))


def settled_items(batch: Batch) -> set[int]:
    """The batch's items whose outcome under its design's vote rules no further vote can change: every outcome,
    or only positive against the rest when the batch is adaptive for "positives" (registered in
    hits.extensions.SETTLED for adaptive redundancy; see maths.settled). None of a batch without vote rules."""
    try:
        rules = batch_vote_rule(batch).rules
    except CrowdError:
        return set()
    classes = maths.POSITIVE_OR_NOT if batch.adaptive == Batch.Adaptive.POSITIVES else None
    items, _, labels, _ = _with_model(batch, vote_columns(batch), rules.votes_required)
    counts: dict[int, list[int]] = {}
    for item, label in zip(items.tolist(), labels.tolist(), strict=True):
        counts.setdefault(item, [0, 0])[0 if label == 1 else 1] += 1
    return {item for item, (yes, no) in counts.items() if maths.settled(yes, no, rules, classes) is not None}


def votes_digest(batch: Batch) -> str:
    """A fingerprint of the work whose votes an aggregation of `batch` reads and of the standing of the
    people who did it: it changes when a HIT is rejected (here or at the provider) or withdrawn, new work comes in, or
    a worker whose votes are counted is blocked or loses a qualification; not when work is only approved.

    A sanction leaves the counted votes as they were, but it is a review decision about them: the run
    from before it was made without it, so the organizer is sent to look at that worker's HITs (reject
    what should not count) and aggregate again."""
    counted = (Assignment.objects.answered(batch)
               .order_by("pk").values_list("pk", flat=True))
    voters = Assignment.objects.filter(hit__batch=batch, state__in=Assignment.COUNTED_STATES).values("worker_id")
    blocked = Worker.objects.filter(pk__in=voters, blocked=True).order_by("pk").values_list("pk", flat=True)
    revoked = (Grant.objects.filter(worker__in=voters).exclude(revoked=None).order_by("pk")
               .values_list("pk", flat=True))
    parts = [",".join(map(str, counted)), "blocked " + ",".join(map(str, blocked)),
             "revoked " + ",".join(map(str, revoked))]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def run_staleness(run: AggregationRun) -> str:
    """Why `run` no longer reflects its batch's work ("" when it does). A run from before fingerprints
    were kept is taken as current."""
    stored = run.summary.get("votes_digest")
    model = run.summary.get("model") or {}
    if model.get("beside"):
        try:
            now = _model_digest(model_beside(run.batch, model["name"])[1])
        except CrowdError:
            now = ""
        if now != model.get("digest"):
            return (f"aggregation {run.pk} is stale: the answers of {model['name']}, read beside the people, changed "
                    f"after it ran ({run.created:%Y-%m-%d %H:%M} UTC); aggregate the batch again")
    if stored is None or stored == votes_digest(run.batch):
        return ""
    return (f"aggregation {run.pk} is stale: work of batch {run.batch_id} was reviewed (a HIT rejected, a worker "
            f"blocked or their qualification revoked), withdrawn by its worker, or submitted after it ran "
            f"({run.created:%Y-%m-%d %H:%M} UTC); aggregate the batch again")


def batch_aggregate(*, batch: Batch, samples: int = 1000, method: str = "paper", seed: int = 0,
                    keep_partial_negatives: float = 1.0, votes_required: int | None = None,
                    progress: Callable[[int, int], None] | None = None,
                    with_model: str | None = None) -> AggregationRun:
    """Aggregate the counted votes of `batch` and store the run: outcomes by its design's agreement rules
    (`method="paper"`; `keep_partial_negatives` of the partial negatives kept, drawn with `seed`; `votes_required`
    over the rule's min_answers) or by a truth-inference method of aggregation.methods, with alpha overall, per
    domain and per HIT, and worker statistics (with each worker's skill under a method). `with_model` names a model
    ("" the last to answer) that a method reads beside the people on every item they voted on, as one more worker
    whose skill it estimates, and what that changes is measured. `progress(stage, 4)` after each of its stages: the
    votes read, the outcomes, the agreement, the run stored."""
    progress = progress or (lambda done, total: None)
    if with_model is not None and method == "paper":
        raise CrowdError(f"batch {batch.pk}: the agreement rules count a model only as an adaptive batch's voter "
                         f"(`manage.py design model-votes`); give a method to read its answers beside the people's")
    # The votes it did not buy (adaptive) could not change the outcomes it settles.
    rules = batch_vote_rule(batch, seed=seed, keep_partial_negatives=keep_partial_negatives,
                            votes_required=votes_required, settle_early=batch.adaptive or None).rules
    # The fingerprint first: work that lands while the votes are read makes the run stale, never silently
    # current without it.
    digest = votes_digest(batch)
    # A model counted as one more voter (an adaptive batch's, designs.model_votes) decides outcomes with the people
    # on the items with fewer of them than the rules need: the agreement rules count its vote there, and a method
    # reads it as one more worker (worker 0) there and weighs it by the skill it estimates. A model named by
    # `with_model` is read by a method instead on every item people voted on. Agreement and each worker's figures
    # are the people's.
    model = model_votes(batch) if rules.settle_early and with_model is None else None
    beside = model_beside(batch, with_model) if with_model is not None else None
    if method == "paper":
        return _paper_aggregate(batch, rules, samples, digest, progress, model)
    # Counted once, read by every statistic below. (The inference methods hold every vote: crowd-kit reads them as
    # one table; the agreement rules read a chunk of items at a time: _paper_aggregate.)
    columns = vote_columns(batch)
    # The batch's items read once: their domain, whether they are known-answer checks, their known answer.
    items: dict[int, str] = {}
    known, gold = set(), {}
    for pk, group, is_gold, answer in (Item.objects.filter(batch=batch).values_list("pk", "group", "is_gold",
                                                                                  "gold_answer").iterator(5000)):
        items[pk] = group
        if is_gold:
            known.add(pk)
        if answer is not None:
            gold[pk] = int(answer)
    table = maths.VoteTable(items=items, columns=columns)
    progress(1, 4)
    if beside:
        # Beside the people, not instead of them: an item no person voted on stays pending.
        inferred = _with_votes(columns, beside[1], dict.fromkeys(columns[0].tolist()))
    else:
        inferred = _with_model(batch, columns, rules.votes_required, model) if model else columns
    votes = list(zip(*(column.tolist() for column in inferred[:3]), strict=True))
    added = len(inferred[0]) - len(columns[0])
    del columns, inferred  # the table holds its own codes
    # Only the known-answer checks are clamped: a sentence that merely carries an answer to be measured against
    # (the released label) must be inferred, or the method's accuracy would be its own input.
    checks = {pk: answer for pk, answer in gold.items() if pk in known}
    inference = _infer(batch, votes, method, checks, rules.seed)
    outcomes = _method_outcomes(table, inference)
    progress(2, 4)
    overall = table.agreement(samples=samples, seed=rules.seed)
    # Per domain over the collected sentences only: the known-answer items are reported apart ("gold").
    by_domain = table.agreement_by({pk: None if pk in known else group for pk, group in items.items()},
                                   samples=samples, seed=rules.seed)
    # Per HIT the point value only: a HIT's 25 items make an interval too wide to act on.
    by_hit = table.agreement_by_unit()
    quality = table.worker_quality(gold)
    progress(3, 4)
    counts = Counter(outcome.outcome for outcome in outcomes)
    summary = {
        "outcomes": {name: counts.get(name, 0) for name in (maths.POSITIVE, maths.NEGATIVE, maths.PENDING)},
        "partial_negatives": {"found": sum(o.partial for o in outcomes), "kept": counts.get(maths.NEGATIVE_80, 0)},
        "by_domain": {str(group): _agreement(a) for group, a in by_domain.items()},
        "by_hit": {str(hit): _agreement(a) for hit, a in by_hit.items()},
        "gold": maths.label_accuracy(outcomes, gold),
        "votes_digest": digest,
        "method": method,
    }
    if beside or added:
        summary["model"] = {"votes": added, "skill": _number(inference.skills.get(0))}
    if beside:
        summary["model"] |= _beside_figures(batch, beside, inference, votes, method, checks, rules.seed)
    with transaction.atomic():
        run = AggregationRun.objects.create(
            batch=batch, method=method, rules=asdict(rules), votes=table.size,
            rules_text=methods.describe(method),
            alpha=_number(overall.alpha), alpha_low=_number(overall.low), alpha_high=_number(overall.high),
            summary=summary)
        _store_outcomes(run, outcomes)
        WorkerStat.objects.bulk_create([
            WorkerStat(run=run, worker_id=q.worker, votes=q.votes, consensus_accuracy=q.consensus_accuracy,
                       consensus_votes=q.consensus_votes, gold_accuracy=q.gold_accuracy, gold_votes=q.gold_votes,
                       confusion=dict(q.confusion), skill=inference.skills.get(q.worker))
            for q in quality])
    return run


def _beside_figures(batch: Batch, beside: tuple[str, dict[int, int]], inference: methods.Inference,
                    votes: list[tuple[int, int, int]], method: str, checks: dict[int, int],
                    seed: int) -> dict[str, Any]:
    """A model read beside the people, measured: how many people's skills are below its skill, and the items whose
    label it changes from what the same method gives over the people alone; with the fingerprint of its answers,
    which makes the run stale when they change (run_staleness)."""
    name, answers = beside
    alone = _infer(batch, [vote for vote in votes if vote[1] != 0], method, checks, seed)
    skill = inference.skills.get(0)
    people = [other for worker, other in inference.skills.items() if worker != 0]
    return {"name": name, "beside": True, "digest": _model_digest(answers), "people": len(people),
            "below": sum(other < skill for other in people) if skill is not None else 0,
            "changed": sum(label != alone.labels[item] for item, label in inference.labels.items()
                           if item in alone.labels)}


def _model_digest(votes: dict[int, int]) -> str:
    return hashlib.sha256(repr(sorted(votes.items())).encode()).hexdigest()


def _infer(batch: Batch, votes: list[tuple[int, int, int]], method: str, checks: dict[int, int],
           seed: int) -> methods.Inference:
    try:
        return methods.infer(votes, method, gold=checks, seed=seed)
    except methods.MethodError as error:
        raise CrowdError(f"batch {batch.pk}: {error}") from None


OUTCOME_CHUNK = 5000  # items whose votes are counted together: what the agreement rules hold at a time


def _vote_chunks(batch: Batch) -> Iterator[tuple[list[tuple[int, str, bool, Any]], tuple[np.ndarray, ...]]]:
    """The batch's items a chunk at a time in id order, each chunk with (item, worker, vote, hit) columns of every
    counted vote on its items (hits.selectors.answers_by_item: the database sorts them by item)."""
    rule = batch_vote_rule(batch)
    votes = {rule.yes: 1, rule.no: 0}
    stream = answers_by_item(batch, scheme=get_task_type(batch.task_type).label_key(batch))
    waiting = next(stream, None)
    last = 0
    while True:
        items = list(Item.objects.filter(batch=batch, pk__gt=last).order_by("pk")
                     .values_list("pk", "group", "is_gold", "gold_answer")[:OUTCOME_CHUNK])
        if not items:
            return
        top = items[-1][0]
        columns = tuple(array("q") for _ in range(4))
        while waiting is not None and waiting[0] <= top:
            pk, worker, value, hit = waiting
            vote = votes.get(value) if value is not None else None
            if vote is not None:
                for column, entry in zip(columns, (pk, worker, vote, hit), strict=True):
                    column.append(entry)
            waiting = next(stream, None)
        yield items, tuple(np.frombuffer(column, dtype=np.int64) for column in columns)
        last = top


def _paper_aggregate(batch: Batch, rules: maths.Rules, samples: int, digest: str,
                     progress: Callable[[int, int], None], model: tuple[dict[int, int], int] | None) -> AggregationRun:
    """The agreement rules over a batch of any size, a chunk of items at a time: each chunk's votes counted
    (maths.VoteTable), its outcomes written to a scratch file, and what the run reports kept as sums (alpha's kinds
    of rows overall and per domain, each HIT's parts, each worker's counts). The partial negatives kept are drawn
    at the end, from all of them in the order the rules sort items, as maths.VoteTable.outcomes draws them."""
    whole = replace(rules, keep_partial_negatives=1.0)
    overall = maths.RowKinds()
    domains: defaultdict[Any, maths.RowKinds] = defaultdict(maths.RowKinds)
    units: dict[int, maths.UnitParts] = {}
    workers: dict[int, maths.WorkerQuality] = {}
    counts: Counter[str] = Counter()
    partial: list[tuple[int, Any]] = []  # (item, its known answer) of each partial negative
    gold_items = gold_correct = size = model_size = 0
    with tempfile.TemporaryFile("w+", encoding="utf-8") as scratch:
        for items, columns in _vote_chunks(batch):
            gold = {pk: int(answer) for pk, _, _, answer in items if answer is not None}
            table = maths.VoteTable(items=[pk for pk, *_ in items], columns=columns)
            size += table.size
            decided = table if not model else maths.VoteTable(
                items=[pk for pk, *_ in items], columns=_with_model(batch, columns, rules.votes_required, model))
            model_size += decided.size - table.size
            for outcome in decided.outcomes(whole):
                scratch.write(f"{outcome.item} {outcome.yes} {outcome.no} {outcome.outcome} {int(outcome.partial)}\n")
                counts[outcome.outcome] += 1
                if outcome.outcome == maths.NEGATIVE_80:
                    partial.append((outcome.item, gold.get(outcome.item)))
                if outcome.item in gold and outcome.outcome not in (maths.PENDING, maths.DISCARDED):
                    gold_items += 1
                    gold_correct += (outcome.outcome == maths.POSITIVE) == (gold[outcome.item] == 1)
            rows = np.stack([table.column(0), table.column(1)], axis=1)
            overall.add(rows)
            # Per domain over the collected sentences only: the known-answer items are reported apart ("gold").
            group_of = {pk: None if is_gold else group for pk, group, is_gold, _ in items}
            voted = set(table.item_codes.tolist())
            for index, item in enumerate(table.items):
                if index in voted and group_of.get(item) is not None:
                    domains[group_of[item]].add(rows[index:index + 1])
            for unit, parts in table.unit_parts().items():
                units.setdefault(unit, maths.UnitParts()).merge(parts)
            for found in table.worker_quality(gold):
                held = workers.setdefault(found.worker, maths.WorkerQuality(found.worker))
                held.votes += found.votes
                held.consensus_votes += found.consensus_votes
                held.consensus_agreed += found.consensus_agreed
                held.gold_votes += found.gold_votes
                held.gold_correct += found.gold_correct
                held.confusion.update(found.confusion)
        progress(1, 4)
        dropped: set[int] = set()
        if rules.keep_partial_negatives < 1 and partial:
            order = sorted(partial, key=lambda entry: str(entry[0]))
            kept = {item for item, _ in random.Random(rules.seed).sample(
                order, round(len(order) * rules.keep_partial_negatives))}
            for item, answer in order:
                if item not in kept:
                    dropped.add(item)
                    if answer is not None:  # a negative that was counted right or wrong against its known answer
                        gold_items -= 1
                        gold_correct -= answer != 1
            counts[maths.NEGATIVE_80] -= len(dropped)
            counts[maths.DISCARDED] += len(dropped)
        progress(2, 4)
        agreement = overall.agreement(samples=samples, seed=rules.seed)
        summary = {
            "outcomes": {name: counts.get(name, 0) for name in (
                maths.POSITIVE, maths.NEGATIVE_100, maths.NEGATIVE_80, maths.DISCARDED, maths.PENDING)},
            "partial_negatives": {"found": len(partial), "kept": counts.get(maths.NEGATIVE_80, 0)},
            "by_domain": {str(group): _agreement(found.agreement(samples=samples, seed=rules.seed))
                          for group, found in sorted(domains.items())},
            # Per HIT the point value only: a HIT's 25 items make an interval too wide to act on.
            "by_hit": {str(hit): _agreement(parts.agreement()) for hit, parts in units.items()},
            "gold": {"items": gold_items, "correct": gold_correct,
                     "accuracy": gold_correct / gold_items if gold_items else None},
            "votes_digest": digest,
            "method": "paper",
        }
        if model_size:
            summary["model"] = {"votes": model_size, "skill": None}
        quality = sorted(workers.values(), key=lambda s: (-(s.consensus_accuracy or 0), -(s.gold_accuracy or 0),
                                                          str(s.worker)))
        progress(3, 4)
        scratch.seek(0)
        with transaction.atomic():
            run = AggregationRun.objects.create(
                batch=batch, method="paper", rules=asdict(rules), votes=size, rules_text=rules.describe(),
                alpha=_number(agreement.alpha), alpha_low=_number(agreement.low),
                alpha_high=_number(agreement.high), summary=summary)
            _store_outcomes(run, (_read_outcome(line, dropped) for line in scratch))
            WorkerStat.objects.bulk_create([
                WorkerStat(run=run, worker_id=q.worker, votes=q.votes, consensus_accuracy=q.consensus_accuracy,
                           consensus_votes=q.consensus_votes, gold_accuracy=q.gold_accuracy,
                           gold_votes=q.gold_votes, confusion=dict(q.confusion)) for q in quality])
    return run


def _read_outcome(line: str, dropped: set[int]) -> maths.Outcome:
    item, yes, no, outcome, partial = line.split()
    return maths.Outcome(int(item), int(yes), int(no), maths.DISCARDED if int(item) in dropped else outcome,
                         partial=partial == "1")


def _method_outcomes(table: maths.VoteTable, inference: methods.Inference) -> list[maths.Outcome]:
    """A method's labels as outcomes: positive or negative for every item with a vote, pending without."""
    yes, no = table.column(1), table.column(0)
    found = []
    for index in sorted(range(len(table.items)), key=lambda n: str(table.items[n])):
        item = table.items[index]
        label = inference.labels.get(item)
        outcome = maths.PENDING if label is None else maths.POSITIVE if label == 1 else maths.NEGATIVE
        found.append(maths.Outcome(item, int(yes[index]), int(no[index]), outcome, label=label,
                                   confidence=inference.confidence.get(item)))
    return found


def _store_outcomes(run: AggregationRun, outcomes: Iterable[maths.Outcome]) -> None:
    """The rows straight to the database, not a model instance per row (at 100,000 items, building and compiling
    the instances of `bulk_create` was a third of the aggregation's time), a chunk at a time."""
    meta = ItemOutcome._meta
    quote = connection.ops.quote_name
    names = ("run", "item", "yes", "no", "outcome", "label", "confidence")
    columns = [quote(field.column or name) for name in names if isinstance(field := meta.get_field(name), Field)]
    sql = f"INSERT INTO {quote(meta.db_table)} ({', '.join(columns)}) VALUES ({', '.join(['%s'] * len(columns))})"
    rows: Iterator[Any] = ((run.pk, o.item, o.yes, o.no, o.outcome, *_label(o)) for o in outcomes)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # COPY: even pipelined, 100,000 INSERTs took PostgreSQL 6 s; COPY takes a fraction of one.
            with cursor.cursor.copy(f"COPY {quote(meta.db_table)} ({', '.join(columns)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            while chunk := list(itertools.islice(rows, OUTCOME_CHUNK)):
                cursor.executemany(sql, chunk)


def _label(outcome: maths.Outcome) -> tuple[int | None, float | None]:
    """(label, confidence) of an outcome: a method's own, or the rules' label with the agreeing share."""
    if outcome.label is not None:
        return int(outcome.label), outcome.confidence
    total = outcome.yes + outcome.no
    if outcome.outcome == maths.POSITIVE:
        return 1, outcome.yes / total if total else None
    if outcome.outcome in (maths.NEGATIVE_100, maths.NEGATIVE_80):
        return 0, outcome.no / total if total else None
    return None, None


def _number(value: float | None) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def _agreement(result: maths.Agreement) -> dict[str, Any]:
    return {"items": result.items, "alpha": _number(result.alpha), "low": _number(result.low),
            "high": _number(result.high)}


# --- comparing runs ---------------------------------------------------------------

def runs_compare(*, before: AggregationRun, after: AggregationRun, limit: int = 100) -> dict[str, Any]:
    """What changes from one run of a batch to another: the items whose label changes (counts by change,
    and up to `limit` items), and why: the votes on each for the label that lost, with each voter's weight
    in both runs (a method's skill, or agreement with the others for the rules), lowest weight first."""
    if before.batch_id != after.batch_id:
        raise CrowdError(f"aggregations {before.pk} and {after.pk} are of different batches "
                         f"({before.batch_id}, {after.batch_id}); compare runs of one batch")
    fields = ("item_id", "outcome", "label", "confidence", "item__key")
    old = {row[0]: row for row in before.outcomes.values_list(*fields)}
    new = {row[0]: row for row in after.outcomes.values_list(*fields)}
    weights = [_weights(run) for run in (before, after)]
    names = dict(Worker.objects.filter(stats__run__in=[before, after]).values_list("pk", "external_id"))
    changed = sorted(item for item in old.keys() & new.keys() if old[item][2] != new[item][2])
    votes: dict[int, list[tuple[int, int]]] = {}
    wanted = set(changed[:limit])
    items, workers, labels, _ = vote_columns(before.batch)
    for item, worker, label in zip(items.tolist(), workers.tolist(), labels.tolist(), strict=True):
        if item in wanted:
            votes.setdefault(item, []).append((worker, label))
    counts = Counter(f"{_named(old[item])} -> {_named(new[item])}" for item in changed)
    rows = []
    for item in changed[:limit]:
        lost = old[item][2] if new[item][2] is None else 1 - new[item][2] if new[item][2] in (0, 1) else None
        against = [{"worker": names.get(worker, str(worker)), "label": label,
                    "weight_before": weights[0].get(worker), "weight_after": weights[1].get(worker)}
                   for worker, label in votes.get(item, []) if lost is None or label == lost]
        against.sort(key=lambda vote: (vote["weight_after"] if vote["weight_after"] is not None else 1.0))
        rows.append({"item": item, "key": old[item][4], "before": _named(old[item]), "after": _named(new[item]),
                     "confidence_after": new[item][3], "votes_for_the_losing_label": against})
    weighted = sorted(({"worker": names.get(worker, str(worker)), "weight_before": weights[0].get(worker),
                        "weight_after": weights[1].get(worker)} for worker in weights[0].keys() | weights[1].keys()),
                      key=lambda row: (row["weight_after"] if row["weight_after"] is not None else 1.0))
    return {"before": {"run": before.pk, "method": before.method, "rules": before.rules_text},
            "after": {"run": after.pk, "method": after.method, "rules": after.rules_text},
            "items": len(new), "changed": len(changed), "by_change": dict(counts.most_common()), "changes": rows,
            "workers": weighted}


def _weights(run: AggregationRun) -> dict[int, float | None]:
    """How much each worker's vote counts in `run`: the method's skill, else agreement with the others."""
    return {worker: skill if skill is not None else consensus for worker, skill, consensus in
            run.worker_stats.values_list("worker_id", "skill", "consensus_accuracy")}


def _named(row: tuple[Any, ...]) -> str:
    outcome, label = row[1], row[2]
    return outcome if label is None else f"{outcome} ({label})"


# --- spot checks ----------------------------------------------------------------

def spotcheck_draw(*, batch: Batch, rate: float = 0.1, seed: int = 0, by_skill: bool = False) -> list[SpotCheck]:
    """Draw round(rate × n) (at least one) of each worker's submitted HITs not drawn before.

    With `by_skill`, a worker's rate grows as their weight in the batch's latest aggregation falls (the
    method's skill, or agreement with the others under the rules): rate × (2 − weight), at most all of
    their HITs, so a worker the model trusts least is looked at up to twice as often."""
    scheme = spot_scheme(batch)
    if scheme is None:
        raise CrowdError(f"batch {batch.pk} is a {batch.task_type} batch without one label per item; spot checks "
                         f"compare answers with known answers and the consensus, which designs whose first scheme "
                         f"is a radio, select or binary pairwise choice have")
    if not 0 < rate <= 1:
        raise CrowdError("the spot-check rate is a share between 0 and 1, e.g. 0.1")
    consensus = _consensus(batch)
    gold = dict(Item.objects.filter(batch=batch).exclude(gold_answer=None).values_list("pk", "gold_answer"))
    rng = random.Random(seed)
    undrawn = (Assignment.objects.filter(hit__batch=batch, state=Assignment.State.SUBMITTED, spot_check=None)
               .order_by("pk"))
    by_worker: dict[int, list[Assignment]] = {}
    for assignment in undrawn:
        by_worker.setdefault(assignment.worker_id, []).append(assignment)
    latest = batch.aggregations.order_by("-created").first()
    weights = _weights(latest) if by_skill and latest is not None else {}
    drawn = []
    for worker in sorted(by_worker):
        assignments = by_worker[worker]
        weight = weights.get(worker)
        share = min(1.0, rate * (2 - weight)) if weight is not None else rate
        for assignment in rng.sample(assignments, max(1, round(share * len(assignments)))):
            labels = answer_labels(assignment.answers, scheme)
            drawn.append(SpotCheck(assignment=assignment,
                                   consensus_accuracy=_share(labels, consensus),
                                   gold_accuracy=_share(labels, gold),
                                   accuracy=_share(labels, {**consensus, **gold})))
    return SpotCheck.objects.bulk_create(drawn)


def _consensus(batch: Batch) -> dict[int, int]:
    run = batch.aggregations.order_by("-created").first()
    if run is None:
        return {}
    labels = {maths.POSITIVE: 1, maths.NEGATIVE_100: 0, maths.NEGATIVE_80: 0, maths.NEGATIVE: 0}
    return {item: labels[outcome] for item, outcome in run.outcomes.values_list("item_id", "outcome")
            if outcome in labels}


def answer_labels(answers: dict[str, Any] | None, scheme: str) -> dict[int, str]:
    """{item id: label} of an assignment's answers: each item's value of the scheme."""
    found = {}
    for item, answer in (answers or {}).items():
        label = answer.get(scheme)
        if label is not None:
            found[int(item)] = str(label)
    return found


def _share(labels: dict[int, str], truth: dict[int, Any]) -> float | None:
    # Compared as text: a known answer may be stored as a number (a released 0/1), labels are label names.
    pairs = [(label, str(truth[item])) for item, label in labels.items() if item in truth]
    return sum(label == answer for label, answer in pairs) / len(pairs) if pairs else None


def spotcheck_decide(*, spot_check: SpotCheck, accept: bool, user: Any, feedback: str = "") -> SpotCheck:
    """Record an organizer's decision and send it to the provider as approve/reject."""
    if spot_check.decision != SpotCheck.Decision.PENDING:
        raise CrowdError(f"spot check {spot_check.pk} was already {spot_check.decision}")
    if accept:
        assignment_approve(assignment=spot_check.assignment, feedback=feedback)
    else:
        assignment_reject(assignment=spot_check.assignment, feedback=feedback)
    spot_check.decision = SpotCheck.Decision.ACCEPTED if accept else SpotCheck.Decision.REJECTED
    spot_check.decided_by = user
    spot_check.decided = timezone.now()
    spot_check.feedback = feedback
    spot_check.save(update_fields=["decision", "decided_by", "decided", "feedback"])
    return spot_check


def worker_spotcheck_accuracy(*, worker: Worker, batch: Batch | None = None) -> float | None:
    """Mean accuracy of the worker's spot-checked HITs.

    Each HIT is judged on all its answers (gold where the item has it, the
    consensus elsewhere): the two or three gold items of one HIT alone are too
    few, and a coin-flipping worker can get them all right.
    """
    checks = SpotCheck.objects.filter(assignment__worker=worker).exclude(accuracy=None)
    if batch is not None:
        checks = checks.filter(assignment__hit__batch=batch)
    values = [value for value in checks.values_list("accuracy", flat=True) if value is not None]
    return sum(values) / len(values) if values else None


def _spot_checked(batch: Batch) -> dict[Worker, float]:
    """Each worker of `batch` with a spot-checked HIT, and their accuracy over those HITs."""
    found = {}
    checked = Worker.objects.filter(assignments__hit__batch=batch, assignments__spot_check__isnull=False)
    for worker in checked.distinct():
        accuracy = worker_spotcheck_accuracy(worker=worker, batch=batch)
        if accuracy is not None:
            found[worker] = accuracy
    return found


def workers_below(*, batch: Batch, threshold: float) -> list[tuple[Worker, float]]:
    return [(worker, accuracy) for worker, accuracy in _spot_checked(batch).items() if accuracy < threshold]


def sanction_suggestions(*, batch: Batch, threshold: float) -> list[dict[str, Any]]:
    """Workers of `batch` an organizer may want to block: spot-checked accuracy below `threshold`, or a skill
    below it in the batch's latest run of a worker-skill method (Dawid–Skene, MACE, ...), which weighs every
    vote a worker gave rather than the few HITs drawn. Each with both signals and why, weakest first; a
    suggestion, never a sanction by itself."""
    method_run = batch.aggregations.exclude(method="paper").order_by("-created", "-pk").first()
    skills = dict(method_run.worker_stats.exclude(skill=None).values_list("worker_id", "skill")) if method_run else {}
    checked = {worker.pk: accuracy for worker, accuracy in _spot_checked(batch).items()}
    found = []
    for pk, worker in Worker.objects.in_bulk(set(skills) | set(checked)).items():
        accuracy, skill = checked.get(pk), skills.get(pk)
        reasons = []
        if accuracy is not None and accuracy < threshold:
            reasons.append(f"spot-checked accuracy {accuracy:.0%}")
        if method_run is not None and skill is not None and skill < threshold:
            reasons.append(f"{method_run.method} skill {skill:.2f}")
        if reasons:
            found.append({"worker": worker, "accuracy": accuracy, "skill": skill, "reasons": reasons,
                          "method": method_run.method if method_run else None,
                          "spot_checked_low": accuracy is not None and accuracy < threshold})
    return sorted(found, key=lambda row: (min(v for v in (row["accuracy"], row["skill"]) if v is not None),
                                          row["worker"].pk))


def later_accuracy(worker_ids: Iterable[int]) -> dict[int, float | None]:
    """Each worker's agreement with the consensus in their latest aggregation (registered in
    hits.extensions.WORKER_ACCURACY, for pages that show how workers did later)."""
    latest = WorkerStat.objects.filter(worker=OuterRef("pk")).order_by("-run__created", "-pk")
    return dict(Worker.objects.filter(pk__in=list(worker_ids))
                .annotate(accuracy=Subquery(latest.values("consensus_accuracy")[:1]))
                .values_list("pk", "accuracy"))


# --- agreement of a span batch's annotators ----------------------------------------------

def span_batch(batch: Batch, components: list[str] | None = None) -> bool:
    """Whether the batch's answers are Subtask-2 spans for the review (its design names the span review's
    component); `components` when the caller read them already for many batches."""
    return SPAN_REVIEW in (get_task_type(batch.task_type).components(batch) if components is None else components)


def span_agreement_shown(batch: Batch, components: list[str] | None = None) -> dict[str, Any] | None:
    """What a list of batches shows: a span batch's agreement without an interval (a page load; `manage.py
    span_agreement` and the dataset card bootstrap it), None unless two or more annotate each sentence."""
    if batch.assignments_per_hit < 2 or not span_batch(batch, components):
        return None
    return span_batch_agreement(batch=batch, samples=0)


def span_batch_agreement(*, batch: Batch, samples: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Token F1 and token alpha (`aggregation.span_maths`) between a span batch's annotators, over the batch
    and per domain, on the sentences two or more of them marked (a "not counterfactual" answer marks
    nothing). NaN values are None, so the result is JSON as it is."""
    if not span_batch(batch):
        raise CrowdError(f"batch {batch.pk} is not a span batch (of designs/semeval-subtask2.yaml); span agreement "
                         f"is for span batches")
    marked: dict[int, list[Spans]] = {}
    for answer in SpanAnswer.objects.filter(item__batch=batch, counterfactual=True).order_by("pk"):
        marked.setdefault(answer.item_id, []).append(Spans(*answer.spans()))
    texts, domains = {}, {}
    for item in Item.objects.filter(pk__in=marked):
        payload = item.content
        assert isinstance(payload, SentenceItem)
        texts[item.pk], domains[item.pk] = payload.text, item.group

    def summary(sentences: dict[int, list[Spans]]) -> dict[str, Any]:
        found = span_agreement(sentences, texts, samples=samples, seed=seed)
        return {"sentences": found.sentences, "pairs": found.pairs,
                "f1": {kind: _number(value) for kind, value in found.f1.items()}, "alpha": _number(found.alpha),
                "low": _number(found.interval[0]), "high": _number(found.interval[1])}

    by_domain = {domain: summary({pk: each for pk, each in marked.items() if domains[pk] == domain})
                 for domain in sorted(set(domains.values()))}
    return {"batch": batch.pk, "name": batch.name, "annotators": batch.assignments_per_hit,
            "samples": samples, **summary(marked), "by_domain": by_domain}
