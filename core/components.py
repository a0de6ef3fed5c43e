"""Named components: what one design needs beyond its schemes, named in a design file's `components:` list. The
engine never branches on a design's name; it runs the components a design names.

The app that does a component's work registers it from its AppConfig.ready() (the span review in annotation,
the candidate filter in filtering, the SemEval formats in releases, ...), so the registry sits here, below them
all, and the design engine calls what is registered without importing them (see core.registry).

A component has a title and a description (shown by `design check` and in the editor) and may have hooks:
`report` (design) -> a Reporter, fed each item's answers as a batch is read and asked for its {figure: value}
at the end (the design report keeps them and `manage.py design report` prints them); `submitted`
(assignment), which keeps what the component needs of each submitted assignment, called inside the transaction
that stores its answers; `withdrawn` (assignment), which takes that back when its worker withdraws the work.
Components whose work is a stage outside the task page (the candidate filter before the items exist, the SemEval
file formats at export) name the command or page that runs it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from core.registry import Registry


class Reporter(Protocol):
    """A component's figures, fed one item's answers at a time (designs.aggregate.Answer), so that a report of a
    batch of any size holds one item's."""

    def add(self, answers: list[Any]) -> None: ...

    def figures(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Component:
    title: str
    description: str
    runs: str = ""  # the command or page that runs it, when it is not a hook
    report: Callable[[Any], Reporter] | None = None
    submitted: Callable[[Any], None] | None = None
    withdrawn: Callable[[Any], None] | None = None


COMPONENTS: Registry[Component] = Registry("design component")


def component_reporters(design: Any) -> list[Reporter]:
    """The reporters of the components the design names that report, in the order it names them."""
    return [COMPONENTS.get(name).report(design) for name in design.components  # type: ignore[misc]
            if name in COMPONENTS and COMPONENTS.get(name).report is not None]
