"""Named components: what one design needs beyond its schemes, named in a design file's `components:` list. The
engine never branches on a design's name; it runs the components a design names.

The app that does a component's work registers it from its AppConfig.ready() (the span review in annotation,
the candidate filter in filtering, the SemEval formats in releases, ...), so the registry sits here, below them
all, and the design engine calls what is registered without importing them (see core.registry).

A component has a title and a description (shown by `design check` and in the editor) and may have hooks:
`report` (design, scheme results, answers) -> {figure: value}, added to `manage.py design report`; `submitted`
(assignment), which keeps what the component needs of each submitted assignment, called inside the transaction
that stores its answers; `withdrawn` (assignment), which takes that back when its worker withdraws the work.
Components whose work is a stage outside the task page (the candidate filter before the items exist, the SemEval
file formats at export) name the command or page that runs it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.registry import Registry


@dataclass(frozen=True)
class Component:
    title: str
    description: str
    runs: str = ""  # the command or page that runs it, when it is not a hook
    report: Callable[[Any, dict, list], dict[str, Any]] | None = None
    submitted: Callable[[Any], None] | None = None
    withdrawn: Callable[[Any], None] | None = None


COMPONENTS: Registry[Component] = Registry("design component")


def component_figures(design: Any, results: dict, answers: list) -> dict[str, Any]:
    """The figures the design's components report for its results, in the order the design names them."""
    found: dict[str, Any] = {}
    for name in design.components:
        report = COMPONENTS.get(name).report if name in COMPONENTS else None
        if report is not None:
            found.update(report(design, results, answers))
    return found
