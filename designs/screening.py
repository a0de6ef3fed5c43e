"""A screening test of any design (a Potato project's training round, designs.potato): its items shown as the
design's task page shows them, read with the design's schemes, and each graded right when its answers hold every
known answer. Registered for the qualification app, which sits below this one (qualification.extensions)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.items import RecordItem
from designs.answers import read_item
from designs.loader import load_text
from designs.model import Design
from designs.schemes.base import AnswerProblem
from designs.task_type import record_of, task_context


@dataclass(frozen=True)
class _Shown:
    """A test item as the task page takes an item: its key and its payload."""

    pk: int
    content: RecordItem


def _design(test: Any) -> Design:
    return load_text(test.design_source, name=f"{test.name}.yaml")


def _shown(items: Sequence[Any]) -> list[_Shown]:
    return [_Shown(item.pk, RecordItem(record_id=str(item.record.get("id", item.sentence_id)),
                                       text=str(item.record.get("text", item.text)),
                                       fields=dict(item.record.get("fields") or {}))) for item in items]


def _canonical(value: Any) -> Any:
    """An answer as it is compared: a list in any order, a span by its place and label (not its copied text),
    numbers and text alike ("4" is 4)."""
    if isinstance(value, list):
        return sorted(json.dumps(_canonical(entry), sort_keys=True) for entry in value)
    if isinstance(value, dict):
        return {key: _canonical(entry) for key, entry in value.items() if key != "text" or "start" not in value}
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


class DesignTests:
    def page_context(self, test, items):
        return task_context(_design(test), None, _shown(items))

    def read(self, test, items, form: Mapping[str, Any]) -> dict[str, Any]:
        design = _design(test)
        found: dict[str, Any] = {}
        for shown in _shown(items):
            try:
                answers, _ = read_item(design, record_of(shown.content), form, shown.pk)
            except AnswerProblem:
                continue  # what cannot be read counts as not answered, as a gap does
            if answers:
                found[f"item-{shown.pk}"] = answers
        return found

    def right(self, given, key) -> bool:
        return all(_canonical(given.get(scheme)) == _canonical(value) for scheme, value in key.items())

    def shown(self, test, answers) -> str:
        if not answers:
            return "none"
        return "; ".join(f"{scheme}: {_readable(value)}" for scheme, value in answers.items())


def _readable(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(_readable(entry) for entry in value)
    if isinstance(value, dict):
        if {"start", "end", "label"} <= set(value):
            return f"{value['label']} “{value.get('text', '')}”" if value.get("text") else \
                f"{value['label']} {value['start']}–{value['end']}"
        return ", ".join(f"{key} {_readable(entry)}" for key, entry in value.items())
    return str(value)


DESIGN_TESTS_ENTRY = DesignTests()
