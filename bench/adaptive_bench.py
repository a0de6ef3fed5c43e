"""Adaptive redundancy against fixed five-vote collection, on the released Subtask-1 training labels.

    .venv/bin/python bench/adaptive_bench.py [--file ../shared/semeval2020t5/subtask1_train.csv]
        [--workers 40] [--spammers 2] [--reward 0.60] [--per-hit 25] [--seed 0]

Each released sentence (13,000) gets five simulated workers in a random order; a worker gives the
released label with their accuracy (drawn from 0.70-0.97 as in the demo; spammers answer at random). Fixed
collection buys all five votes. Adaptive collection buys them one at a time and stops as soon as
`aggregation.maths.settled` says no remaining vote can change the item's outcome under the paper's rules
(the baseline, in the same run). It reports votes and money saved (reward per vote = reward per HIT ÷
sentences per HIT, plus MTurk's 20% fee) and how many final outcomes differ from fixed collection, which
must be 0: an item is only stopped when every completion of its votes gives the same outcome. A second
line does the same when only positives matter (a span batch of the 5/5 positives): there one "no" settles
an item.

Votes here are bought per sentence; on a crowd they come a HIT at a time, so a live batch retires HITs
whose sentences are settled and re-packs the sentences still open into new HITs (`hits/services/adaptive.py`; the
live savings are smaller, by the places of HITs retired with a few sentences still open).
"""

import argparse
import random
import sys
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from aggregation import maths  # noqa: E402
from core.semeval import read_subtask1_rows  # noqa: E402

VOTES = 5


def simulate(labels, workers, spammers, seed):
    """Each item's five votes in the order they would arrive: [(item, [vote, ...])]."""
    rng = random.Random(seed)
    accuracy = [rng.uniform(0.70, 0.97) for _ in range(workers - spammers)] + [0.5] * spammers
    found = []
    for label in labels:
        chosen = rng.sample(range(workers), VOTES)
        found.append([label if rng.random() < accuracy[worker] else 1 - label for worker in chosen])
    return found


def collect(votes, classes=None):
    """(votes bought, outcome) per item, buying one vote at a time until the item is settled."""
    found = []
    for item in votes:
        yes = no = bought = 0
        for vote in item:
            yes, no, bought = yes + vote, no + (1 - vote), bought + 1
            if maths.settled(yes, no, classes=classes) is not None:
                break
        found.append((bought, maths.settled(yes, no, classes=classes)))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", default=str(ROOT.parent / "shared" / "semeval2020t5" / "subtask1_train.csv"))
    parser.add_argument("--workers", type=int, default=40)
    parser.add_argument("--spammers", type=int, default=2)
    parser.add_argument("--reward", default="0.60", help="per HIT")
    parser.add_argument("--per-hit", type=int, default=25)
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    labels = [label for _, label, _ in read_subtask1_rows(options.file)]
    per_vote = Decimal(options.reward) / options.per_hit * Decimal("1.20")
    votes = simulate(labels, options.workers, options.spammers, options.seed)
    print(f"{len(labels):,} released sentences ({sum(labels):,} counterfactual), {options.workers} simulated workers "
          f"({options.spammers} spammers), {VOTES} votes an item, {per_vote:.4f} a vote with MTurk's fee")
    for title, classes in (("the paper's outcomes", None), ("positive or not (a span batch)", maths.POSITIVE_OR_NOT)):
        started = time.perf_counter()
        fixed = [maths.settled(sum(item), VOTES - sum(item), classes=classes) for item in votes]
        baseline = time.perf_counter() - started
        started = time.perf_counter()
        adaptive = collect(votes, classes)
        seconds = time.perf_counter() - started
        bought = sum(count for count, _ in adaptive)
        total = VOTES * len(votes)
        differ = sum(outcome != reference for (_, outcome), reference in zip(adaptive, fixed, strict=True))
        early = sum(count < VOTES for count, _ in adaptive)
        print(f"  {title}: {bought:,} of {total:,} votes bought ({1 - bought / total:.1%} saved, "
              f"{(total - bought) * per_vote:.2f} of {total * per_vote:.2f} saved); {early:,} items stopped early; "
              f"{differ} outcomes differ from fixed collection; decided in {seconds:.2f} s "
              f"({seconds / baseline:.1f}x the fixed count)")
        if differ:
            raise SystemExit("early stopping changed an outcome: the decision rule is wrong")


if __name__ == "__main__":
    main()
