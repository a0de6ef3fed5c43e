"""Aggregation through the database: a batch of --items sentences in HITs of 25, five submitted
assignments each, aggregated by `batch_aggregate` (votes read and counted once, outcomes, alpha with
its 1,000-resample interval overall and per domain, per-HIT alpha, worker quality, and everything
stored), with the time of each stage.

    .venv/bin/python bench/aggregate_db_bench.py postgresql [--items 100000] [--workers 70]
    .venv/bin/python bench/aggregate_db_bench.py sqlite [--items 20000]

postgresql: a fresh database (BENCH_DATABASE_URL, default crowdset_bench on localhost). sqlite: a new
file in a temporary folder. The batch is made with bulk inserts (not timed); the stages are timed one by
one with the functions `batch_aggregate` calls, then `batch_aggregate` itself end to end. The baseline,
in the same run, is reading the votes alone: the least any aggregation through the database must do.
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.dashboard_bench import fresh_postgres, setup  # noqa: E402

PER_HIT = 25
VOTES = 5
DOMAINS = ("finance", "politics", "healthcare")


def fill(items, workers, seed=0):
    """One published batch whose HITs all hold five submitted assignments, the votes simulated."""
    from django.utils import timezone

    from core.items import SentenceItem
    from designs.models import DesignBatch
    from designs.semeval import SUBTASK1_DESIGN
    from designs.services import shipped_version
    from hits.models import Assignment, Batch, Hit, HitItem, Item, Worker

    rng = np.random.default_rng(seed)
    accuracy = rng.uniform(0.7, 0.97, workers)
    accuracy[:2] = 0.5  # two spammers
    truth = (rng.random(items) < 0.12).astype(int)
    batch = Batch.objects.create(name="aggregation bench", task_type="design", provider="inhouse",
                                 state=Batch.State.PUBLISHED, items_per_hit=PER_HIT, assignments_per_hit=VOTES)
    DesignBatch.objects.create(batch=batch, version=shipped_version(SUBTASK1_DESIGN))
    people = Worker.objects.bulk_create(Worker(provider="inhouse", external_id=f"bench-{n}") for n in range(workers))
    rows = Item.objects.bulk_create(
        (Item(batch=batch, key=f"s{n}", group=DOMAINS[n % 3], payload=SentenceItem(
            text=f"Sentence {n}.", sentence_id=f"s{n}", domain=DOMAINS[n % 3]).to_json(),
            is_gold=n % 50 == 0, gold_answer=int(truth[n]) if n % 50 == 0 else None) for n in range(items)),
        batch_size=5000)
    hits = Hit.objects.bulk_create((Hit(batch=batch, index=n, state=Hit.State.PUBLISHED)
                                    for n in range((items + PER_HIT - 1) // PER_HIT)), batch_size=5000)
    HitItem.objects.bulk_create((HitItem(hit=hits[n // PER_HIT], item=row, position=n % PER_HIT)
                                 for n, row in enumerate(rows)), batch_size=5000)
    now = timezone.now()

    def assignments():
        for index, hit in enumerate(hits):
            members = rows[index * PER_HIT:(index + 1) * PER_HIT]
            for worker in rng.choice(workers, VOTES, replace=False):
                answers = {}
                for row in members:
                    n = int(row.key[1:])
                    right = rng.random() < accuracy[worker]
                    answers[str(row.pk)] = {"counterfactual": str(int(truth[n] if right else 1 - truth[n]))}
                yield Assignment(hit=hit, worker=people[worker], state=Assignment.State.SUBMITTED, submitted=now,
                                 answers=answers, raw_answers={})

    Assignment.objects.bulk_create(assignments(), batch_size=2000)
    return batch


def timed(label, function, results):
    started = time.perf_counter()
    value = function()
    results.append((label, time.perf_counter() - started))
    return value


def run(batch):
    from aggregation import maths
    from aggregation.services import batch_aggregate, vote_columns, votes_digest
    from hits.models import Item

    rules = maths.Rules(seed=1)
    stages = []
    timed("fingerprint of the counted work", lambda: votes_digest(batch), stages)
    columns = timed("read the votes (baseline)", lambda: vote_columns(batch), stages)
    items = dict(Item.objects.filter(batch=batch).values_list("pk", "group"))
    table = timed("count them once (VoteTable)", lambda: maths.VoteTable(items=items, columns=columns), stages)
    outcomes = timed("outcomes (the 5/5 and 4/5 rules)", lambda: table.outcomes(rules), stages)
    timed("alpha, 1,000-resample interval", lambda: table.agreement(samples=1000, seed=1), stages)
    timed("alpha per domain, with intervals", lambda: table.agreement_by(items, samples=1000, seed=1), stages)
    timed("alpha per HIT (point values)", table.agreement_by_unit, stages)
    gold = dict(Item.objects.filter(batch=batch, is_gold=True).values_list("pk", "gold_answer"))
    timed("worker quality", lambda: table.worker_quality(gold), stages)
    total = []
    run = timed("batch_aggregate, end to end (stores outcomes and worker statistics)",
                lambda: batch_aggregate(batch=batch, rules=rules), total)
    return stages, total, run, len(outcomes)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("database", choices=("postgresql", "sqlite"))
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=70)
    options = parser.parse_args()
    if options.database == "postgresql":
        setup(fresh_postgres())
    else:
        setup(f"sqlite:///{Path(tempfile.mkdtemp()) / 'bench.sqlite3'}")
    started = time.perf_counter()
    batch = fill(options.items, options.workers)
    print(f"{options.database}: {options.items:,} items x {VOTES} votes in {batch.hits.count():,} HITs, "
          f"made in {time.perf_counter() - started:.0f} s (not timed below)")
    stages, total, found, outcomes = run(batch)
    baseline = dict(stages)["read the votes (baseline)"]
    for label, seconds in [*stages, *total]:
        print(f"  {label:<72} {seconds:>7.2f} s  {seconds / baseline:>6.1f}x the baseline")
    print(f"  {outcomes:,} outcomes, {found.votes:,} votes, alpha {found.alpha:.3f} "
          f"[{found.alpha_low:.3f}, {found.alpha_high:.3f}]")


if __name__ == "__main__":
    main()
