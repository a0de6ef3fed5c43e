"""Train/test splits. No Django here.

Records are dicts with at least "key" and whatever the options name ("label",
"domain", "document"). A split is decided by the seed alone, so the same
records, options and seed always give the same split.
"""

import random
from collections import Counter, defaultdict


def split(records, *, test_share=0.35, seed=0, stratify=(), group=None):
    """{key: "train" | "test"} and a report of what came out.

    stratify: fields whose combinations each get `test_share` of their records.
    group: a field (e.g. "document") whose records always land on one side;
    with groups, whole groups are dealt out until each stratum's test share is
    reached, so shares come out close but not exact.
    """
    if not 0 < test_share < 1:
        raise ValueError(f"test_share {test_share} must be between 0 and 1")
    rng = random.Random(seed)
    records = sorted(records, key=lambda record: str(record["key"]))
    assignment = {}
    if group:
        _split_groups(records, test_share, rng, stratify, group, assignment)
    else:
        strata = defaultdict(list)
        for record in records:
            strata[tuple(record[field] for field in stratify)].append(record)
        for stratum in sorted(strata, key=str):
            members = strata[stratum]
            rng.shuffle(members)
            cut = round(len(members) * test_share)
            for index, record in enumerate(members):
                assignment[record["key"]] = "test" if index < cut else "train"
    return assignment, report(records, assignment, group)


def _split_groups(records, test_share, rng, stratify, group, assignment):
    groups = defaultdict(list)
    for record in records:
        # A record with no group ("" or None: a sentence with no source document) is a group of its own;
        # lumped together, "no document" would be one giant group that lands wholly on one side.
        groups[record[group] if _named(record.get(group)) else ("", record["key"])].append(record)
    names = sorted(groups, key=str)
    rng.shuffle(names)
    totals = Counter(tuple(r[field] for field in stratify) for r in records)
    in_test = Counter()
    for name in names:
        members = groups[name]
        need = Counter(tuple(r[field] for field in stratify) for r in members)
        # Test takes the group while it does not push any of its strata past the target share.
        fits = all(in_test[s] + n <= totals[s] * test_share + n / 2 for s, n in need.items())
        side = "test" if fits else "train"
        if fits:
            in_test.update(need)
        for record in members:
            assignment[record["key"]] = side


def report(records, assignment, group=None):
    sizes = Counter(assignment[r["key"]] for r in records)
    labels = Counter((assignment[r["key"]], r.get("label")) for r in records)
    sides = defaultdict(set)
    for record in records:
        if _named(record.get("document")):
            sides[record["document"]].add(assignment[record["key"]])
    return {
        # Records the grouping could not group (no value in the group field): each was split on its own.
        "ungrouped": sum(1 for r in records if not _named(r.get(group))) if group else 0,
        "train": sizes["train"], "test": sizes["test"],
        "test_share": sizes["test"] / len(records) if records else 0,
        "labels": {f"{side}/{label}": count for (side, label), count in sorted(labels.items(), key=str)},
        "grouped_by": group,
        "documents_on_both_sides": sum(1 for both in sides.values() if len(both) == 2),
    }


def _named(value):
    return value is not None and str(value).strip() != ""
