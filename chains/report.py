"""What a chains workflow yields: the released TimeTravel records (train with one edited ending each, dev and
test with every edited ending of a counterfactual), split by story, and the statistics of how it was made."""

from __future__ import annotations

import json
import random
import statistics as stats
from collections import Counter
from os import PathLike
from pathlib import Path
from typing import Any

from aggregation.services import COUNTED
from chains.models import Chain, Step, Workflow
from chains.services import chain_story
from core.stories import record

SPLITS = ("train", "dev", "test")


def endings(workflow: Workflow) -> list[dict[str, Any]]:
    """Every counterfactual with its edited endings (from counted work: submitted or approved), in chain order:
    {chain, story, counterfactual, round, endings: [{ending, worker, edit}], writer}."""
    found: dict[int, dict[str, Any]] = {}
    rows = (Step.objects.filter(chain__workflow=workflow, kind=Step.Kind.ENDING, assignment__state__in=COUNTED)
            .exclude(chain__state=Chain.State.DROPPED)
            .select_related("chain", "answers__worker", "worker").order_by("chain", "pk"))
    for step in rows:
        shown = step.answers
        entry = found.setdefault(shown.pk, {
            "chain": step.chain.pk, "story": chain_story(step.chain), "counterfactual": shown.value,
            "round": shown.round, "writer": shown.worker.external_id if shown.worker else "", "endings": []})
        entry["endings"].append({"ending": step.value, "worker": step.worker.external_id, "edit": step.edit})
    return list(found.values())


def split_stories(story_ids: list[str], *, shares: tuple[float, float, float] = (0.8, 0.1, 0.1),
                  seed: int = 0) -> dict[str, str]:
    """Each story to one split (seeded): every counterfactual and ending of a story lands on the same side."""
    ordered = sorted(set(story_ids))
    random.Random(seed).shuffle(ordered)
    cut_train = round(len(ordered) * shares[0])
    cut_dev = cut_train + round(len(ordered) * shares[1])
    return {story: ("train" if n < cut_train else "dev" if n < cut_dev else "test")
            for n, story in enumerate(ordered)}


def records(workflow: Workflow, *, shares=(0.8, 0.1, 0.1), seed: int = 0) -> dict[str, list[dict[str, Any]]]:
    found = endings(workflow)
    side = split_stories([entry["story"].story_id for entry in found], shares=shares, seed=seed)
    out: dict[str, list[dict[str, Any]]] = {split: [] for split in SPLITS}
    for entry in found:
        split = side[entry["story"].story_id]
        written = [each["ending"] for each in entry["endings"]]
        if split == "train":
            out[split] += [record(entry["story"], entry["counterfactual"], [ending], several=False)
                           for ending in written]
        else:
            out[split].append(record(entry["story"], entry["counterfactual"], written, several=True))
    return out


def statistics(workflow: Workflow, found: dict[str, list[dict[str, Any]]] | None = None) -> dict[str, Any]:
    """Stories, counterfactuals and edited endings per split; rewrite rounds; the share of counterfactuals
    sent back; the size of the edits (share of the original ending's words changed)."""
    found = records(workflow) if found is None else found
    per_split = {}
    for split, rows in found.items():
        per_split[split] = {
            "stories": len({row["story_id"] for row in rows}),
            "counterfactuals": len({(row["story_id"], row["counterfactual"]) for row in rows}),
            "edited_endings": sum(len(row.get("edited_endings", [None])) for row in rows)}
    chains = list(Chain.objects.filter(workflow=workflow).values_list("rounds", "state"))
    checked = Step.objects.filter(chain__workflow=workflow, kind__in=(Step.Kind.PASSED, Step.Kind.FAILED))
    failed = checked.filter(kind=Step.Kind.FAILED).count()
    sizes = [step.edit["distance"] / step.edit["original_words"] for step in
             Step.objects.filter(chain__workflow=workflow, kind=Step.Kind.ENDING).exclude(edit=None)
             if step.edit.get("original_words")]
    return {
        "workflow": workflow.name, "splits": per_split,
        "chains": {"total": len(chains), **Counter(state for _, state in chains)},
        "rounds": dict(sorted(Counter(rounds for rounds, _ in chains).items())),
        "checks": {"total": checked.count(), "failed": failed,
                   "sent_back_share": failed / checked.count() if checked.count() else 0.0},
        "edit_changed_share": _distribution(sizes),
    }


def _distribution(values: list[float]) -> dict[str, float]:
    if not values:
        return {"count": 0}
    ordered = sorted(values)
    quartiles = stats.quantiles(ordered, n=4, method="inclusive") if len(ordered) > 1 else [ordered[0]] * 3
    return {"count": len(ordered), "min": ordered[0], "q1": quartiles[0], "median": quartiles[1],
            "q3": quartiles[2], "max": ordered[-1], "mean": sum(ordered) / len(ordered)}


def statistics_text(found: dict[str, Any]) -> str:
    lines = [f"{'split':<8}{'stories':>9}{'counterfactuals':>17}{'edited endings':>16}"]
    for split in SPLITS:
        row = found["splits"].get(split, {})
        lines.append(f"{split:<8}{row.get('stories', 0):>9}{row.get('counterfactuals', 0):>17}"
                     f"{row.get('edited_endings', 0):>16}")
    checks = found["checks"]
    lines.append(f"chains: {found['chains']['total']} ("
                 + ", ".join(f"{state} {count}" for state, count in found["chains"].items() if state != "total")
                 + "); rewrite rounds: " + ", ".join(f"{rounds}: {count}" for rounds, count in found["rounds"].items()))
    lines.append(f"checks: {checks['total']}, sent back {checks['failed']} ({checks['sent_back_share']:.0%})")
    size = found["edit_changed_share"]
    if size.get("count"):
        lines.append(f"edit size (share of the ending's words changed): median {size['median']:.0%}, "
                     f"quartiles {size['q1']:.0%}-{size['q3']:.0%}, max {size['max']:.0%} over {size['count']} endings")
    return "\n".join(lines)


def export(workflow: Workflow, folder: str | PathLike[str], *, shares=(0.8, 0.1, 0.1), seed: int = 0) -> dict[str, Any]:
    """`train.jsonl`, `dev.jsonl`, `test.jsonl` in the released format and `statistics.json`; the statistics."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    found = records(workflow, shares=shares, seed=seed)
    for split, rows in found.items():
        (out / f"{split}.jsonl").write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows),
                                            encoding="utf-8")
    result = statistics(workflow, found)
    (out / "statistics.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result
