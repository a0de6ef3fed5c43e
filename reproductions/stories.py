"""The TimeTravel workflow (designs/timetravel.yaml) started from a story file, and what it yields: the released
records (train with one edited ending each, dev and test with every edited ending of a counterfactual), split by
story, and the statistics of how it was made."""

from __future__ import annotations

import json
import random
import statistics as stats
from collections import Counter
from os import PathLike
from pathlib import Path
from typing import Any

from django.db import transaction

from core.errors import InputError
from core.ids import object_id
from core.stories import Story, edit_size, record
from designs.items import Record
from designs.lineage import Chain, chains
from designs.services import design_batch_create, shipped_version
from designs.stages import workflow_batches
from designs.task_type import design_of
from hits.models import Assignment, Batch
from hits.services import batch_publish

SPLITS = ("train", "dev", "test")
# The chain states as the TimeTravel workflow calls them (designs.lineage.STATES).
STATE_WORDS = {"open": "checking", "passed": "edited", "waiting": "review", "dropped": "dropped"}


def workflow_start(stories: list[Story], *, name: str, provider: str = "inhouse", created_by: Any = None) -> Batch:
    """The shipped designs/timetravel.yaml over `stories`, its write stage published (the check stage opens as
    counterfactuals arrive). Returns the write stage's batch, which names the workflow."""
    if Batch.objects.filter(name=name, task_type="design").exists():
        raise InputError(f"a batch named {name!r} exists already; choose another name", field="name")
    records = [Record(id=story.story_id, text=story.premise,
                      fields={"initial": story.initial, "ending": list(story.ending)}) for story in stories]
    with transaction.atomic():
        version = shipped_version("timetravel")
        first = design_batch_create(version=version, records=records, name=name, stage=version.design.stages[0].name,
                                    provider=provider, created_by=created_by)
        return batch_publish(batch=first)


def workflow_of(key: str) -> Batch:
    """A TimeTravel workflow by its first batch's id or name; any stage's batch names its workflow."""
    batch = Batch.objects.filter(**({"pk": object_id(key)} if object_id(key) else {"name": key}),
                                 task_type="design").first()
    design = design_of(batch) if batch else None
    if batch is None or design is None or [stage.name for stage in design.stages][:2] != ["write", "check"]:
        raise InputError(f"no TimeTravel workflow {key!r}; give the id or name of a batch made from "
                         f"designs/timetravel.yaml (`manage.py stories start`)")
    return next(iter(workflow_batches(batch).values()))


def chain_story(chain: Chain) -> Story:
    """The story a chain started from: the first stage's item of designs/timetravel.yaml."""
    payload = chain.origin.content
    return Story(story_id=payload.record_id, premise=payload.text, initial=payload.fields["initial"],
                 ending=tuple(payload.fields["ending"]))


def _ending(answer: dict[str, Any]) -> list[str] | None:
    edited = answer.get("edited_ending")
    return list(edited.values()) if isinstance(edited, dict) and edited else None


def by_story(batch: Batch) -> list[Chain]:
    """The workflow's chains (`batch` is any stage's) in the order of the stories' ids, as the released files list
    them."""
    return sorted(chains(batch), key=lambda chain: (chain.record_id, chain.origin.pk))


def endings(batch: Batch, made: list[Chain] | None = None) -> list[dict[str, Any]]:
    """Every counterfactual with its edited endings (from counted work: submitted or approved), in the order of the
    stories' ids: {chain, story, counterfactual, round, endings: [{ending, worker}]}. `made`: by_story(batch),
    when the caller read it already."""
    found: dict[int, dict[str, Any]] = {}
    for chain in by_story(batch) if made is None else made:
        if chain.state == "dropped":
            continue
        for step in chain.steps:
            ending = _ending(step.answer)
            if ending is None or step.assignment.state not in Assignment.COUNTED_STATES:
                continue
            entry = found.setdefault(step.item.pk, {
                "chain": chain.origin.pk, "story": chain_story(chain),
                "counterfactual": step.item.content.fields["counterfactual"], "round": step.round, "endings": []})
            entry["endings"].append({"ending": ending, "worker": step.assignment.worker.external_id})
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


def records(batch: Batch, *, shares=(0.8, 0.1, 0.1), seed: int = 0,
            made: list[Chain] | None = None) -> dict[str, list[dict[str, Any]]]:
    found = endings(batch, made)
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


def statistics(batch: Batch, found: dict[str, list[dict[str, Any]]] | None = None,
               made: list[Chain] | None = None) -> dict[str, Any]:
    """Stories, counterfactuals and edited endings per split; rewrite rounds; the share of counterfactuals
    sent back; the size of the edits (share of the original ending's words changed)."""
    made = by_story(batch) if made is None else made
    found = records(batch, made=made) if found is None else found
    per_split = {}
    for split, rows in found.items():
        per_split[split] = {
            "stories": len({row["story_id"] for row in rows}),
            "counterfactuals": len({(row["story_id"], row["counterfactual"]) for row in rows}),
            "edited_endings": sum(len(row.get("edited_endings", [None])) for row in rows)}
    checks = [step for chain in made for step in chain.steps if step.passed is not None]
    failed = sum(step.passed is False for step in checks)
    sizes = []
    for chain in made:
        original = list(chain_story(chain).ending)
        for step in chain.steps:
            ending = _ending(step.answer)
            size = edit_size(original, ending) if ending else None
            if size is not None and size.original_words:
                sizes.append(size.distance / size.original_words)
    return {
        "workflow": batch.name, "splits": per_split,
        "chains": {"total": len(made), **Counter(STATE_WORDS[chain.state] for chain in made)},
        "rounds": dict(sorted(Counter(chain.rounds for chain in made).items())),
        "checks": {"total": len(checks), "failed": failed, "sent_back_share": failed / len(checks) if checks else 0.0},
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


def export(batch: Batch, folder: str | PathLike[str], *, shares=(0.8, 0.1, 0.1), seed: int = 0) -> dict[str, Any]:
    """`train.jsonl`, `dev.jsonl`, `test.jsonl` in the released format and `statistics.json`; the statistics."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    made = by_story(batch)
    found = records(batch, shares=shares, seed=seed, made=made)
    for split, rows in found.items():
        (out / f"{split}.jsonl").write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows),
                                            encoding="utf-8")
    result = statistics(batch, found, made)
    (out / "statistics.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result
