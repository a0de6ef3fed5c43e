"""Named components: what one design needs beyond schemes, declared once here and named from a design file's
`components:` list. The engine never branches on a design's name; it runs the components a design names.

A component has a title and a description (shown by `design check` and in the editor), and may have a
`report` hook: (design, scheme results, answers) -> {figure: value}, added to the design's report, and a
`submitted` hook (a dotted path) that keeps what it needs of each submitted assignment. Components
whose work is a stage of the pipeline outside the task page (the candidate filter before the items exist, the
SemEval file formats at export) name the command that runs it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.registry import Registry


@dataclass(frozen=True)
class Component:
    title: str
    description: str
    runs: str = ""  # the command or page that runs it, when it is not a report hook
    report: Callable[[Any, dict, list], dict[str, Any]] | None = None
    # What it keeps of each submitted assignment: the dotted path of a function(assignment), called by the design
    # task type inside the transaction that stores the answers (a path, so this module stays plain Python).
    submitted: str = ""
    # What it takes back when submitted work is withdrawn by its worker (the same kind of path).
    withdrawn: str = ""


COMPONENTS: Registry[Component] = Registry("design component")


def fleiss_report(design, results, answers) -> dict[str, Any]:
    """Fleiss' kappa of every nominal scheme whose items all have two or more answers of one number."""
    from aggregation.maths import fleiss_kappa

    found = {}
    for scheme in design.annotation_schemes:
        if scheme.annotation_type not in ("radio", "select", "pairwise") or scheme.name not in results:
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


for name, component in {
    "candidate-filter": Component(
        "SemEval candidate filter", "Table 5 token patterns and Appendix B POS forms pick the sentences that become "
        "items (filtering/).", runs="manage.py filter_candidates; the project's Filter step"),
    "counterfactual-check": Component(
        "Double check before spans", "The span annotator first confirms the sentence is counterfactual; a 'no' "
        "sends it back to review instead of marking spans (the design's display_logic shows the spans on 'yes'). "
        "Each answer becomes a SpanAnswer and the sentence's proposal for the organizers' span review.",
        runs="/review/spans/", submitted="annotation.services.spans_record_submission",
        withdrawn="annotation.services.spans_withdraw_submission"),
    "semeval-export": Component(
        "SemEval file formats", "Exports the released Subtask-1/Subtask-2 CSV formats with the 65/35 split "
        "(releases/).", runs="manage.py dataset export"),
    "cue-report": Component(
        "Superficial-cue report", "Tokens whose presence gives the right alternative or label away (productivity, "
        "coverage), as Balanced COPA reports them (core.cues).", runs="manage.py dataset cues; manage.py copa cues"),
    "fleiss-kappa": Component(
        "Fleiss' kappa", "Fleiss' kappa per categorical scheme beside Krippendorff's alpha, as the COPA paper "
        "reports agreement.", report=fleiss_report),
    "pair-split": Component(
        "Pair-keeping split", "An item and its mirror (pair_id) stay on one side of the train/dev split.",
        runs="manage.py copa export"),
    "writing-evidence": Component(
        "Writing-behaviour evidence", "Typing, pasting and time per answer beside each free-text answer for the "
        "reviewer, and the hidden canary instruction.", runs="/review/writing/BATCH/"),
    "story-lineage": Component(
        "Story chains' lineage", "Every output of a multi-stage workflow keeps the chain of items and authors it "
        "came from; the chains page lists them, shows each one's answers in order (an edit as a word diff) and "
        "takes the organizer's word on those that used their rounds (designs.lineage).",
        runs="/review/chains/BATCH/"),
}.items():
    COMPONENTS.register(name, component)
