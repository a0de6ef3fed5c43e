"""Aggregation at scale: 100,000 items × 5 votes, with alpha, its bootstrap
interval and worker statistics, against a baseline in the same run.

    .venv/bin/python bench/aggregate_bench.py [--items 100000] [--workers 70] [--samples 1000]

Baseline: the textbook use of the krippendorff package (a workers × items
reliability matrix, one `alpha()` call per bootstrap resample), timed on a
few resamples and scaled to the same number.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import krippendorff

from aggregation import maths


def simulated_votes(items, workers, per_item, seed):
    rng = np.random.default_rng(seed)
    accuracy = rng.uniform(0.7, 0.97, workers)
    accuracy[:2] = 0.5  # two spammers
    truth = (rng.random(items) < 0.12).astype(int)
    votes = []
    for item in range(items):
        for worker in rng.choice(workers, per_item, replace=False):
            right = rng.random() < accuracy[worker]
            votes.append((item, int(worker), int(truth[item] if right else 1 - truth[item])))
    return votes, {item: int(truth[item]) for item in range(0, items, 10)}


def timed(label, function):
    started = time.perf_counter()
    result = function()
    seconds = time.perf_counter() - started
    print(f"  {label:<44} {seconds:>7.2f} s")
    return result, seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=70)
    parser.add_argument("--samples", type=int, default=1000)
    args = parser.parse_args()
    votes, gold = simulated_votes(args.items, args.workers, 5, seed=1)
    print(f"{args.items:,} items x 5 votes = {len(votes):,} votes, {args.workers} workers, "
          f"{args.samples} bootstrap samples")
    started = time.perf_counter()
    outcomes, _ = timed("rules (outcomes per item)", lambda: maths.item_outcomes(votes))
    result, _ = timed("alpha + bootstrap interval", lambda: maths.agreement(votes, samples=args.samples))
    _, _ = timed("worker quality (consensus, gold, confusion)", lambda: maths.worker_quality(votes, gold))
    _, _ = timed("label accuracy against gold", lambda: maths.label_accuracy(outcomes, gold))
    total = time.perf_counter() - started
    print(f"  {'all of it':<44} {total:>7.2f} s   (alpha {result.alpha:.3f} [{result.low:.3f}, {result.high:.3f}])")

    matrix = np.full((args.workers, args.items), np.nan)
    for item, worker, label in votes:
        matrix[worker, item] = label
    _, one = timed("baseline: krippendorff.alpha on the matrix, 1x", lambda: krippendorff.alpha(
        reliability_data=matrix, level_of_measurement="nominal"))
    rng = np.random.default_rng(0)
    resamples = 3
    _, some = timed(f"baseline: {resamples} bootstrap resamples", lambda: [krippendorff.alpha(
        reliability_data=matrix[:, rng.integers(0, args.items, args.items)], level_of_measurement="nominal")
        for _ in range(resamples)])
    baseline = one + some / resamples * args.samples
    print(f"  baseline alpha + {args.samples} resamples, scaled: {baseline:.1f} s; "
          f"this implementation's whole aggregation is {baseline / total:.0f}x faster")


if __name__ == "__main__":
    main()
