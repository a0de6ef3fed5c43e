"""Project designs: the steps a kind of dataset effort goes through (see core.registry).

A design turns what a project holds into its steps, in order, each with its
state, its numbers and the next action, so an organizer always sees what to do
next. The SemEval-2020 Task 5 pipeline is registered in projects.semeval; the
other task designs register theirs the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core.registry import Registry

if TYPE_CHECKING:
    from hits.models import Batch
    from projects.selectors import ProjectContext


@dataclass
class Step:
    key: str
    title: str
    state: str = "blocked"  # done | ready | working | blocked; project_steps marks the first ready one next
    summary: str = ""  # the step's numbers, in words
    action: tuple[str, str] | None = None  # (label, url) of what to do now
    post: tuple[str, str] | None = None  # (label, url) of a button that starts something (a form posting to url)
    links: list[tuple[str, str]] = field(default_factory=list)  # (label, url) of pages to look at
    note: str = ""  # a warning the organizer should read


@dataclass(frozen=True)
class Design:
    name: str
    title: str
    description: str
    steps: Callable[[ProjectContext], list[Step]]
    settings: dict[str, Any] = field(default_factory=dict)
    # figures(batch, progress(done, total)) -> the report step's numbers in words: computed by a job
    # (`project-figures`) and kept (BatchFigures), never on a page view, whatever the batch's size.
    figures: Callable[[Batch, Callable[[int, int], None]], str] | None = None


DESIGNS: Registry[Design] = Registry("project design")


def project_steps(context: ProjectContext) -> list[Step]:
    """The project's steps, the first one that can be acted on now marked "next"."""
    steps = DESIGNS.get(context.project.design).steps(context)
    for step in steps:
        if step.state == "ready":
            step.state = "next"
            break
    return steps
