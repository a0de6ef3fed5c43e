"""The design engine's own components (core.components says what a component is): Fleiss' kappa beside alpha,
a multi-stage workflow's lineage and the writing-behaviour evidence of free-text answers. Registered by
DesignsConfig.ready(); other apps register theirs from their own."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from core.components import COMPONENTS, Component
from designs.schemes import SCHEME_TYPES


class FleissReport:
    """Fleiss' kappa of every categorical scheme, over the items with two or more answers (each item weighs the
    same: aggregation.maths.fleiss_kappa), kept as sums so a batch of any size is read an item at a time."""

    def __init__(self, design: Any):
        self.names = [scheme.name for scheme in design.annotation_schemes if SCHEME_TYPES.of(scheme).categorical]
        self.agreement: dict[str, float] = defaultdict(float)  # sum of each item's agreement P_i
        self.items: Counter[str] = Counter()
        self.votes: dict[str, Counter[str]] = defaultdict(Counter)  # label -> votes, over those items

    def add(self, answers: list[Any]) -> None:
        for name in self.names:
            counts = Counter(repr(answer.value) for answer in answers if answer.scheme == name)
            given = sum(counts.values())
            if given < 2:
                continue
            self.agreement[name] += (sum(n * n for n in counts.values()) - given) / (given * (given - 1))
            self.items[name] += 1
            self.votes[name].update(counts)

    def figures(self) -> dict[str, Any]:
        found = {}
        for name in self.names:
            total = sum(self.votes[name].values())
            if not self.items[name] or len(self.votes[name]) < 2:
                continue
            expected = sum((n / total) ** 2 for n in self.votes[name].values())
            found[f"{name}: Fleiss' kappa"] = round((self.agreement[name] / self.items[name] - expected)
                                                    / (1 - expected), 4)
        return found


WRITING_EVIDENCE = "writing-evidence"


def register() -> None:
    COMPONENTS.register("fleiss-kappa", Component(
        "Fleiss' kappa", "Fleiss' kappa per categorical scheme beside Krippendorff's alpha, as the COPA paper "
        "reports agreement (`manage.py design report`).", report=FleissReport))
    COMPONENTS.register(WRITING_EVIDENCE, Component(
        "Writing-behaviour evidence", "Typing, pasting and time per answer beside each free-text answer for the "
        "reviewer, and the hidden canary instruction.", runs="/review/writing/BATCH/"))
    COMPONENTS.register("story-lineage", Component(
        "Story chains' lineage", "Every output of a multi-stage workflow keeps the chain of items and authors it "
        "came from; the chains page lists them, shows each one's answers in order (an edit as a word diff) and "
        "takes the organizer's word on those that used their rounds (designs.lineage).",
        runs="/review/chains/BATCH/"))
