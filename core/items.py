"""Item payloads: what a crowd worker is shown, as typed records.

`hits.Item.payload` holds `to_json()` of one of these and is read back only
through `payload_from_json`, so every app sees one shape per kind, checked on
the way in. A payload names its kind; adding a kind is adding a class here
with `@payload_kind`.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from core.errors import InputError

_KINDS: dict[str, type[Payload]] = {}
P = TypeVar("P", bound="Payload")


class Payload:
    kind: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind}
        for spec in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, spec.name)
            data[spec.name] = list(value) if isinstance(value, tuple) else value
        return data

    @classmethod
    def from_json(cls: type[P], data: Any, *, where: str = "payload") -> P:
        """Build from stored or submitted JSON; a missing or mistyped field is an InputError naming it."""
        if not isinstance(data, dict):
            raise InputError(f"expected an object, got {type(data).__name__}", file=where)
        if data.get("kind", cls.kind) != cls.kind:
            raise InputError(f"kind is {data.get('kind')!r}, expected {cls.kind!r}", file=where)
        fields, known = _fields_of(cls)  # type: ignore[arg-type]  # a class is hashable; typeshed's P is not
        values = {}
        for name, required, check in fields:
            if name not in data:
                if required:
                    raise InputError("missing", file=where, field=name)
                continue
            values[name] = check(data[name], where, name)
        if len(data) > len(known) or not known.issuperset(data):
            unknown = sorted(set(data) - known)
            raise InputError(f"unknown field(s) {', '.join(unknown)}", file=where)
        return cls(**values)


Check = Callable[[Any, str, str], Any]


@functools.cache
def _fields_of(cls: type[Payload]) -> tuple[tuple[tuple[str, bool, Check], ...], frozenset[str]]:
    """Each field's name, whether it must be given and its check, worked out once per class: resolving the
    annotations (typing.get_type_hints) costs far more than reading a payload, and pages read thousands."""
    hints = typing.get_type_hints(cls)
    fields = tuple((spec.name, spec.default is dataclasses.MISSING and spec.default_factory is dataclasses.MISSING,
                    _checker(hints[spec.name])) for spec in dataclasses.fields(cls))  # type: ignore[arg-type]
    return fields, frozenset(name for name, _, _ in fields) | {"kind"}


def _checker(hint: Any) -> Check:
    """The check of one field's value against its annotation: the value as stored (a tuple for a tuple field, a
    float for an int in a float field), or an InputError naming the field."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        inner = _checker(next(arg for arg in args if arg is not type(None)))
        if type(None) not in args:
            return inner
        return lambda value, where, name: None if value is None else inner(value, where, name)
    if origin in (list, tuple):
        member = _checker(args[0] if args else Any)
        made = tuple if origin is tuple else list

        def sequence(value: Any, where: str, name: str) -> Any:
            if not isinstance(value, list | tuple):
                raise InputError(f"expected a list, got {type(value).__name__}", file=where, field=name)
            return made(member(entry, where, name) for entry in value)
        return sequence
    if hint is Any:
        return lambda value, where, name: value

    def plain(value: Any, where: str, name: str) -> Any:
        if hint is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if not isinstance(value, hint) or (hint is int and isinstance(value, bool)):
            raise InputError(f"expected {hint.__name__}, got {type(value).__name__}", file=where, field=name)
        return value
    return plain


def payload_kind(cls: type[P]) -> type[P]:
    _KINDS[cls.kind] = cls
    return cls


def payload_from_json(data: Any, *, where: str = "payload") -> Payload:
    if not isinstance(data, dict):
        raise InputError(f"expected an object, got {type(data).__name__}", file=where)
    kind = data.get("kind")
    if kind not in _KINDS:
        raise InputError(f"unknown payload kind {kind!r}; known: {', '.join(sorted(_KINDS))}", file=where)
    return _KINDS[kind].from_json(data, where=where)


@payload_kind
@dataclass(frozen=True)
class SentenceItem(Payload):
    """One sentence to label or to mark spans in.

    `sentence_id` is the id the exports use: the released id for sentences of
    the released files, otherwise our sentence row's id. `sentence_pk` links
    a sentence of an ingested corpus back to its row; `source_item` links a
    Subtask-2 item to the Subtask-1 item whose positive outcome sent it.
    """

    kind: ClassVar[str] = "sentence"
    text: str
    sentence_id: str
    domain: str = ""
    document: str = ""
    corpus: str = ""
    sentence_pk: int | None = None
    source_item: int | None = None

    def __post_init__(self) -> None:
        if not self.text.strip():
            raise InputError("the sentence is empty", field="text")
        if not self.sentence_id:
            raise InputError("the sentence has no id", field="sentence_id")


@payload_kind
@dataclass(frozen=True)
class ChoiceItem(Payload):
    """A 2-choice question (COPA's shape): a premise, what is asked about it, two alternatives.

    `answer` is the intended alternative (1 or 2), measured against and never shown; `pair_id` joins an
    original item and its mirror (Balanced COPA), which must stay on one side of a split.
    """

    kind: ClassVar[str] = "choice"
    premise: str
    alternative_1: str
    alternative_2: str
    item_id: str
    asks_for: str = "cause"
    answer: int | None = None
    pair_id: str = ""
    mirrored: bool = False

    QUESTIONS: ClassVar[dict[str, str]] = {"cause": "What was the cause of this?",
                                          "effect": "What happened as a result?"}

    def __post_init__(self) -> None:
        for name in ("premise", "alternative_1", "alternative_2", "item_id"):
            if not getattr(self, name).strip():
                raise InputError("is empty", field=name)
        if self.asks_for not in self.QUESTIONS:
            raise InputError(f"is {self.asks_for!r}; use cause or effect", field="asks_for")
        if self.answer not in (None, 1, 2):
            raise InputError(f"is {self.answer!r}; use 1 or 2", field="answer")

    @property
    def question(self) -> str:
        return self.QUESTIONS[self.asks_for]


@payload_kind
@dataclass(frozen=True)
class RecordItem(Payload):
    """One record of a design file's items (designs/): its id, its text and the record's other fields as
    they came (shown, compared in pairwise and best-worst schemes, or kept for the export)."""

    kind: ClassVar[str] = "record"
    record_id: str
    text: str
    fields: dict = dataclasses.field(default_factory=dict)
    # Stages (designs/stages.py): the stage the item belongs to, the item whose answer it carries on (an
    # earlier stage's output, or the check that sent it back), how often its chain was sent back, and the first
    # stage's item the chain began with (its authors are kept from its later stages).
    stage: str = ""
    source_item: int | None = None
    round: int = 0
    origin: int | None = None
    # A later stage's item shares its record's id with the other outputs made from that record (one a writer, one a
    # round): the second and later of them in a batch are named `<record id>#<n>` in the exports and reports.
    own_id: str = ""

    def __post_init__(self) -> None:
        if not self.record_id:
            raise InputError("the record has no id", field="record_id")


def as_sentence(payload: Payload) -> SentenceItem | None:
    """An item as a SemEval sentence: a sentence as it is; a design record (an items file given to
    designs/semeval-subtask1.yaml) as the sentence it holds, its id the record's and its domain the record's
    `domain` field; None for anything else."""
    if isinstance(payload, SentenceItem):
        return payload
    if isinstance(payload, RecordItem) and payload.text.strip():
        return SentenceItem(text=payload.text, sentence_id=payload.record_id, domain=str(payload.fields.get("domain")
                                                                                      or ""))
    return None
