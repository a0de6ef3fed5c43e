"""The design engine's own components (core.components says what a component is): Fleiss' kappa beside alpha,
a multi-stage workflow's lineage and the writing-behaviour evidence of free-text answers. Registered by
DesignsConfig.ready(); other apps register theirs from their own."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from core.components import COMPONENTS, Component
from designs.schemes import SCHEME_TYPES


def fleiss_report(design, results, answers) -> dict[str, Any]:
    """Fleiss' kappa of every nominal scheme whose items all have two or more answers of one number."""
    from aggregation.maths import fleiss_kappa

    found = {}
    for scheme in design.annotation_schemes:
        if not SCHEME_TYPES.of(scheme).categorical or scheme.name not in results:
            continue
        per_item: dict[str, Counter] = defaultdict(Counter)
        for answer in answers:
            if answer.scheme == scheme.name:
                per_item[answer.item][repr(answer.value)] += 1
        labels = sorted({label for counts in per_item.values() for label in counts})
        rows = [[counts[label] for label in labels] for counts in per_item.values() if sum(counts.values()) >= 2]
        if rows and len(labels) > 1:
            found[f"{scheme.name}: Fleiss' kappa"] = round(fleiss_kappa(rows), 4)
    return found


WRITING_EVIDENCE = "writing-evidence"


def register() -> None:
    COMPONENTS.register("fleiss-kappa", Component(
        "Fleiss' kappa", "Fleiss' kappa per categorical scheme beside Krippendorff's alpha, as the COPA paper "
        "reports agreement (`manage.py design report`).", report=fleiss_report))
    COMPONENTS.register(WRITING_EVIDENCE, Component(
        "Writing-behaviour evidence", "Typing, pasting and time per answer beside each free-text answer for the "
        "reviewer, and the hidden canary instruction.", runs="/review/writing/BATCH/"))
    COMPONENTS.register("story-lineage", Component(
        "Story chains' lineage", "Every output of a multi-stage workflow keeps the chain of items and authors it "
        "came from; the chains page lists them, shows each one's answers in order (an edit as a word diff) and "
        "takes the organizer's word on those that used their rounds (designs.lineage).",
        runs="/review/chains/BATCH/"))
