"""Choosing which candidates go to annotation. No Django here.

The paper annotated 20,000 of its 60,000 candidates, a third from each domain.
`balanced_sample` takes N, split as evenly as the domains allow: a domain with
fewer candidates than its share gives all it has and the rest is spread over
the others.
"""

import random
from collections import defaultdict


def balanced_sample(candidates, size, seed=0):
    """candidates: [(id, group)] → (chosen ids, report)."""
    by_group = defaultdict(list)
    for candidate, group in sorted(candidates, key=lambda pair: str(pair[0])):
        by_group[group].append(candidate)
    available = {group: len(members) for group, members in sorted(by_group.items())}
    quota = dict.fromkeys(available, 0)
    remaining = min(size, sum(available.values()))
    open_groups = [group for group in available if available[group] > 0]
    while remaining and open_groups:
        share, extra = divmod(remaining, len(open_groups))
        for index, group in enumerate(open_groups):
            take = min(share + (1 if index < extra else 0), available[group] - quota[group])
            quota[group] += take
            remaining -= take
        open_groups = [group for group in open_groups if quota[group] < available[group]]
    rng = random.Random(seed)
    chosen = []
    for group, members in sorted(by_group.items()):
        chosen.extend(rng.sample(members, quota[group]))
    report = {"requested": size, "chosen": len(chosen), "available": available, "per_group": quota,
              "short_by": max(0, size - len(chosen)), "seed": seed}
    return chosen, report
