"""Truth inference beside the paper's rules: each method gives every item a label and a confidence and
every worker a skill, from the same votes. The models are crowd-kit's (a well-kept implementation of
Dawid-Skene, MACE and gold majority vote); this module only shapes their input and output. No Django.

- `majority`: the most-voted label; confidence is its share of the votes; skill is agreement with it.
- `gold-majority`: majority weighted by each worker's accuracy on the known-answer items (crowd-kit's
  GoldMajorityVote); needs known answers that workers voted on.
- `dawid-skene`: one confusion matrix per worker, fitted by EM with the known answers clamped (crowd-kit's
  DawidSkene with `true_labels`); skill is the worker's chance of giving the true label, weighted by the
  label priors.
- `mace`: MACE's competence model (crowd-kit's MACE, seeded); skill is the posterior probability that the
  worker is not spamming.

Known-answer items keep their known label with confidence 1 under every method (clamped), so a method
never relabels a check item.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

METHODS = ("majority", "gold-majority", "dawid-skene", "mace")


class MethodError(ValueError):
    """A method that cannot run on these votes (e.g. gold majority with no known answers voted on)."""


@dataclass(frozen=True)
class Inference:
    method: str
    labels: dict[Any, Any]  # item -> label
    confidence: dict[Any, float]  # item -> probability of that label (or its vote share)
    skills: dict[Any, float]  # worker -> skill in [0, 1]


def infer(votes, method: str, *, gold: dict | None = None, seed: int = 0) -> Inference:
    """Run `method` over (item, worker, label) votes (each worker's first vote per item counts)."""
    import pandas as pd
    from crowdkit.aggregation import MACE, DawidSkene, MajorityVote
    from crowdkit.aggregation.utils import get_accuracy

    if method not in METHODS:
        raise MethodError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")
    gold = gold or {}
    seen, rows = set(), []
    for item, worker, label in votes:
        if (item, worker) not in seen:
            seen.add((item, worker))
            rows.append((item, worker, label))
    if not rows:
        return Inference(method, {}, {}, {})
    data = pd.DataFrame(rows, columns=["task", "worker", "label"])
    known = pd.Series({item: label for item, label in gold.items() if item in set(data["task"])}, dtype=object)
    if method == "majority":
        model = MajorityVote().fit(data)
        probas, skills = model.probas_, dict(model.skills_)
    elif method == "gold-majority":
        if known.empty:
            raise MethodError("gold majority weighs workers by their known-answer accuracy, and no known-answer "
                              "item has votes; use another method or mix known answers into the batch")
        # GoldMajorityVote's own fit and predict, by its parts: its `predict_proba` trips scikit-learn 1.9's
        # fitted-estimator check (crowd-kit 1.4.2 predates it).
        accuracy = get_accuracy(data, true_labels=known.astype(data["label"].dtype), by="worker")
        model = MajorityVote().fit(data, accuracy)
        probas, skills = model.probas_, dict(accuracy)
    elif method == "dawid-skene":
        model = DawidSkene(n_iter=100).fit(data, true_labels=known.astype(data["label"].dtype) if len(known) else None)
        probas = model.probas_
        priors = model.priors_
        errors = model.errors_  # rows (worker, given label), columns: true label
        skills = {worker: float(sum(priors[true] * errors.loc[(worker, true), true]
                                    for true in priors.index if (worker, true) in errors.index))
                  for worker in data["worker"].unique()}
    else:
        model = MACE(n_restarts=3, n_iter=40, random_state=seed).fit(data)
        probas = model.probas_
        names = pd.factorize(data["worker"])[1]
        skills = {worker: float(model.spamming_[index, 1]) for index, worker in enumerate(names)}
    undecided = [item for item in probas.index if probas.loc[item].isna().all()]
    if undecided:
        raise MethodError(f"{method} gives no weight to any vote on item {undecided[0]} (and {len(undecided) - 1} "
                          f"more): every worker who voted on it has a skill of 0; check the known answers")
    labels = {item: probas.loc[item].idxmax() for item in probas.index}
    confidence = {item: float(probas.loc[item].max()) for item in probas.index}
    for item, label in gold.items():
        if item in labels:
            labels[item], confidence[item] = label, 1.0
    return Inference(method, {item: _plain(label) for item, label in labels.items()}, confidence,
                     {worker: float(skill) for worker, skill in skills.items()})


def describe(method: str) -> str:
    """The method as the run, the report and the dataset card state it."""
    return {"majority": "majority vote (crowd-kit MajorityVote); ties broken by crowd-kit",
            "gold-majority": "majority weighted by each worker's accuracy on known answers (crowd-kit "
                             "GoldMajorityVote)",
            "dawid-skene": "Dawid-Skene (crowd-kit DawidSkene, 100 EM iterations, known answers clamped)",
            "mace": "MACE (crowd-kit MACE, 3 restarts of 40 iterations, seeded)"}[method] + \
        "; known-answer items keep their known label; an item with no vote is pending"


def _plain(value: Any) -> Any:
    """numpy scalars as Python ones (stored as JSON, compared with the votes)."""
    return value.item() if hasattr(value, "item") else value
