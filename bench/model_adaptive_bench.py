"""Adaptive redundancy with a language model as one more voter, on the released Subtask-1 training labels
(SIMULATION: simulated people and a simulated model).

    .venv/bin/python bench/model_adaptive_bench.py [--file ../shared/semeval2020t5/subtask1_train.csv]
        [--workers 40] [--spammers 2] [--gate 0.9] [--min-people 1] [--seed 0]

Each released sentence (13,000) gets five simulated people as in `bench/adaptive_bench.py` (accuracy 0.70-0.97,
spammers at random) and a simulated model of a stated accuracy and calibration: its confidence on an item is drawn
uniformly around its accuracy, and it is right with the probability its confidence says (calibrated) or 0.15 less
(overconfident: the same confidence, worse answers). Three ways of buying votes, in the same run:

- the full crowd: all five people, the rule (the paper's 100%/80% rules) on their votes: the reference labels;
- adaptive, people only: one person at a time until no further vote can change the outcome (the baseline);
- adaptive with the model: the model's vote counts as one more voter, when its confidence reaches the gate, and an
  item stops once the model and at least `--min-people` people settle it by the same rule; an item they do not
  settle goes on to the full crowd, and its outcome is the people's alone.

For each it reports people's votes bought (and saved against the full crowd), labels changed against the full
crowd's, and the share of labelled items (positive or a negative outcome) whose label is the released one.
People-only adaptive never changes a label; the model changes those it settles wrongly, which is the price of the
votes it saves. Quality figures for a real model need its real answers (`manage.py design compare`).
"""

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from aggregation import maths  # noqa: E402
from bench.adaptive_bench import VOTES, collect, simulate  # noqa: E402
from core.semeval import read_subtask1_rows  # noqa: E402


def model_votes(labels, accuracy, calibrated, seed):
    """(vote, stated confidence) of a simulated model on each item."""
    rng = random.Random(seed)
    spread = min(accuracy, 1 - accuracy)
    found = []
    for label in labels:
        confidence = rng.uniform(accuracy - spread, accuracy + spread)
        right = rng.random() < (confidence if calibrated else max(0.0, confidence - 0.15))
        found.append((label if right else 1 - label, confidence))
    return found


def collect_with_model(votes, model, gate, min_people, classes=None):
    """(people's votes bought, outcome) per item: people one at a time, stopping once the model's vote (when its
    confidence reaches the gate) and the first people settle the item; else all five people, their outcome."""
    found = []
    for item, (vote, confidence) in zip(votes, model, strict=True):
        yes = no = 0
        outcome = None
        for bought, person in enumerate(item, 1):
            yes, no = yes + person, no + (1 - person)
            outcome = maths.settled(yes, no, classes=classes)  # the people alone, as without the model
            if outcome is not None:
                break
            if bought >= min_people and confidence >= gate:
                outcome = maths.settled_with_model(yes, no, bool(vote), classes=classes)
                if outcome is not None:
                    break
        found.append((bought, outcome))
    return found


def right(found, labels):
    """The share of labelled items (positive, or a negative outcome) whose label is the released one."""
    named = [(outcome == maths.POSITIVE, label) for outcome, label in zip(found, labels, strict=True)
             if outcome not in (maths.DISCARDED, maths.PENDING, None)]
    return sum(positive == bool(label) for positive, label in named) / len(named) if named else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", default=str(ROOT.parent / "shared" / "semeval2020t5" / "subtask1_train.csv"))
    parser.add_argument("--workers", type=int, default=40)
    parser.add_argument("--spammers", type=int, default=2)
    parser.add_argument("--gate", type=float, default=0.9, help="the model's vote counts from this confidence")
    parser.add_argument("--min-people", type=int, default=1, help="people an item needs before it may stop")
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    labels = [label for _, label, _ in read_subtask1_rows(options.file)]
    votes = simulate(labels, options.workers, options.spammers, options.seed)
    total = VOTES * len(votes)
    print(f"SIMULATION on {len(labels):,} released Subtask-1 labels ({sum(labels):,} counterfactual): "
          f"{options.workers} simulated people ({options.spammers} spammers), {VOTES} an item; a simulated model's "
          f"vote counts from confidence {options.gate}, after at least {options.min_people} person")
    for title, classes in (("the paper's outcomes", None), ("positive or not (a span batch)", maths.POSITIVE_OR_NOT)):
        full = [maths.settled(sum(item), VOTES - sum(item), classes=classes) for item in votes]
        people = collect(votes, classes)
        bought = sum(count for count, _ in people)
        print(f"  {title}:")
        print(f"    full crowd: {total:,} people's votes; labels right (against the released label) "
              f"{right(full, labels):.2%}")
        print(f"    people only: {bought:,} of {total:,} people's votes ({1 - bought / total:.1%} saved), "
              f"{sum(o != f for (_, o), f in zip(people, full, strict=True))} labels changed; right "
              f"{right([o for _, o in people], labels):.2%}")
        for accuracy in (0.8, 0.9, 0.95):
            for calibrated in (True, False):
                model = model_votes(labels, accuracy, calibrated, options.seed + 1)
                found = collect_with_model(votes, model, options.gate, options.min_people, classes)
                bought = sum(count for count, _ in found)
                changed = sum(o != f for (_, o), f in zip(found, full, strict=True))
                print(f"    model {accuracy:.2f} {'calibrated' if calibrated else 'overconfident'}: {bought:,} "
                      f"people's votes ({1 - bought / total:.1%} saved), {changed:,} labels changed "
                      f"({changed / len(labels):.2%}); right {right([o for _, o in found], labels):.2%}")


if __name__ == "__main__":
    main()
