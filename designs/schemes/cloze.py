"""cloze: a passage with blanks to fill in (Potato's cloze). The passage is the scheme's `text`, the same on every
item, its blanks written `[[key]]` (`[[cat|kitten]]` accepts either; `[[]]` has no key), or an item field
(`source_field`, blanks `[[]]`) with the keys in another (`answer_field`, one entry a blank). Keys never reach the
page: they score the answers in the export. Each blank is the box "<prefix>-<blank number>"."""

from __future__ import annotations

import itertools
import re
import unicodedata
from typing import Any, Literal
from xml.sax.saxutils import quoteattr

from pydantic import Field, model_validator

from designs.schemes.base import AnswerProblem, SchemeBase, SchemeType, majority, scheme_type
from designs.schemes.text import TextType

BLANK = re.compile(r"\[\[(.*?)\]\]", re.S)
SHOWN_BLANK = "___ ({})"  # a blank in the passage as Label Studio shows it, numbered from 1
SHOWN_BLANKS = re.compile(r"___ \(\d+\)")  # those blanks, read back
MAX_ANSWER = 200


class Cloze(SchemeBase):
    """A passage whose blanks the annotator fills in, scored against their keys."""

    annotation_type: Literal["cloze"]
    text: str | None = Field(None, description="the passage, the same on every item; each [[key]] a blank")
    source_field: str | None = Field(None, description="the item field holding the passage (blanks [[]])")
    answer_field: str | None = Field(None, description="the item field holding the keys: one entry a blank, "
                                                       "accepted answers split by |")
    scoring: Literal["exact", "case_insensitive", "normalized"] = Field(
        "case_insensitive", description="how an answer is compared with its key (normalized: no case, accents, "
                                        "punctuation or repeated spaces)")
    input_width: int = Field(10, ge=2, le=60, description="each blank's width, in characters")

    @model_validator(mode="after")
    def _one_passage(self) -> Cloze:
        if bool(self.text) == bool(self.source_field):
            raise ValueError("give the passage as `text` (with [[blanks]]) or as an item field (`source_field`), "
                             "one of them")
        if self.text and not BLANK.search(self.text):
            raise ValueError("text has no blank: write each as [[answer]] (or [[]] for one without a key)")
        return self


def passage(scheme: Cloze, record: Any) -> tuple[list[str | int], list[list[str]]]:
    """The passage as pieces of text and blank numbers (0, 1, …), and each blank's accepted answers ([] when it
    has none): the scheme's text, or the item's field with the keys of its answer field."""
    source = scheme.text if scheme.text else _field(record, scheme.source_field)
    pieces: list[str | int] = []
    keys: list[list[str]] = []
    place = 0
    for found in BLANK.finditer(source):
        if found.start() > place:
            pieces.append(source[place:found.start()])
        pieces.append(len(keys))
        keys.append(_accepted(found.group(1)))
        place = found.end()
    if place < len(source):
        pieces.append(source[place:])
    if scheme.source_field:  # an item's passage keeps no key of its own: its keys are in answer_field
        keys = _item_keys(record.fields.get(scheme.answer_field) if scheme.answer_field else None, len(keys))
    return pieces, keys


def _field(record: Any, name: str | None) -> str:
    value = record.fields.get(name, record.text if name == "text" else "")
    return value if isinstance(value, str) else ""


def _accepted(key: Any) -> list[str]:
    return [answer.strip() for answer in str(key).split("|") if answer.strip()]


def _item_keys(value: Any, blanks: int) -> list[list[str]]:
    entries = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    keys = [[str(answer).strip() for answer in entry if str(answer).strip()] if isinstance(entry, list)
            else [] if entry is None else _accepted(entry) for entry in entries]
    return (keys + [[]] * blanks)[:blanks]


def normal(text: str, scoring: str) -> str:
    """An answer as it is compared with its key under `scoring`."""
    text = text.strip()
    if scoring == "exact":
        return text
    text = text.casefold()
    if scoring == "normalized":
        text = "".join(char for char in unicodedata.normalize("NFKD", text) if not unicodedata.combining(char))
        text = " ".join(re.sub(r"[^\w\s]", "", text).split())
    return text


def blank(number: int) -> str:
    """A blank's name in an answer, as Potato names it (blank_1 the first)."""
    return f"blank_{number + 1}"


@scheme_type
class ClozeType(SchemeType):
    name = "cloze"
    settings = Cloze
    aggregators = ("majority", "none")
    potato_keys = ("text", "source_field", "answer_field", "scoring", "input_width")
    page = {"value": "texts"}

    def form_fields(self, scheme, value, record=None):
        # blank_1 is the first blank's field, "1".
        return {name.removeprefix("blank_"): str(text) for name, text in value.items() if name.startswith("blank_")} \
            if isinstance(value, dict) else {}

    def read(self, scheme, fields, record):
        _, keys = passage(scheme, record)
        given = {blank(number): fields.get(str(number + 1), MAX_ANSWER) for number in range(len(keys))}
        if not any(given.values()):
            return None
        if scheme.required and not all(given.values()):
            empty = next(number for number, text in enumerate(given.values(), 1) if not text)
            raise AnswerProblem(f"fill in every blank (blank {empty} is empty)")
        return {name: text for name, text in given.items() if text}

    def item_problem(self, scheme, record):
        if scheme.source_field and not passage(scheme, record)[1]:
            return f"item {record.id!r} has no passage with [[ ]] blanks under {scheme.source_field!r}"
        return None

    def answer_schema(self, scheme):
        return {"type": "object", "patternProperties": {"^blank_[0-9]+$": {"type": "string", "minLength": 1,
                                                                             "maxLength": MAX_ANSWER}},
                "additionalProperties": False, "minProperties": 1}

    def units(self, scheme, value, text=""):
        # Agreement per blank, on the answer as the key would be compared with it.
        return {name: normal(answer, scheme.scoring) for name, answer in value.items()}

    def combine(self, scheme, values):
        names = sorted({name for value in values for name in value}, key=lambda name: int(name.split("_")[1]))
        return {name: majority([value.get(name) for value in values]) for name in names}

    def widget_context(self, scheme, record, field, keys):
        pieces, found = passage(scheme, record)
        return {"pieces": [{"blank": piece + 1} if isinstance(piece, int) else {"text": piece} for piece in pieces],
                "blanks": len(found)}

    def potato_scores(self, scheme, value, record):
        """Each keyed blank right (1) or not (0), the blanks right and the blanks keyed, as Potato's export scores
        them; nothing when no blank has a key."""
        _, keys = passage(scheme, record)
        given = value or {}
        right = {f"{blank(number)}_correct": int(any(normal(given.get(blank(number), ""), scheme.scoring)
                                                     == normal(answer, scheme.scoring) for answer in accepted))
                 for number, accepted in enumerate(keys) if accepted}
        return {**right, "score": sum(right.values()), "scored_blanks": len(right)} if right else {}

    def potato_answer(self, scheme, value, record):
        return {"labels": dict(value)}

    def potato_fields(self, scheme, saved, record):
        return self.form_fields(scheme, saved.get("labels") or {})

    def card_labels(self, scheme):
        return "the words of each blank"

    # Label Studio has no blanks in a text: the passage (the scheme's own, the same on every task) is a Header, each
    # blank shown as "___ (1)" (its key never goes out), and each blank a one-line TextArea named <name>_blank_<n>,
    # as Potato names the blanks, saying "Blank 1" while empty. An item's own passage has no such form: the controls
    # are the same for every task.
    def labelstudio_control(self, scheme, to_name):
        if not scheme.text:
            return ""
        number = itertools.count(1)
        shown = BLANK.sub(lambda _: SHOWN_BLANK.format(next(number)), scheme.text)
        return f"<Header value={quoteattr(shown)} size=\"6\"/>" + "".join(
            f"<TextArea name={quoteattr(name)} toName={quoteattr(to_name)} rows=\"1\" placeholder=\"Blank {number}\""
            + (' required="true"' if scheme.required else "") + "/>"
            for number, name in enumerate(self.labelstudio_names(scheme), 1))

    def labelstudio_names(self, scheme):
        return [f"{scheme.name}_{blank(number)}" for number in range(len(BLANK.findall(scheme.text or "")))]

    def labelstudio_results(self, scheme, value, to_name, regions):
        return [{"from_name": f"{scheme.name}_{name}", "type": "textarea", "value": {"text": [text]}}
                for name, text in value.items()]

    def from_labelstudio_results(self, scheme, results, regions):
        return {result["from_name"].removeprefix(f"{scheme.name}_"): (result["value"].get("text") or [""])[0]
                for result in results}

    def labelstudio_gather(self, schemes, importer):
        """One-line TextAreas named <name>_blank_1, <name>_blank_2, … one after another, the first under a Header
        showing blanks "___ (1)", "___ (2)", … as many, as the export above writes a cloze: one cloze again, its
        passage that header (blanks without keys), its question the header above. Left apart where <name> is
        taken."""
        taken = {scheme["name"] for scheme in schemes}
        place = 0
        while place < len(schemes):
            first = schemes[place]
            base = first["name"].removesuffix("_blank_1")
            run = _blanks(schemes[place:], base)
            said = first.get("description", "")
            shown = [SHOWN_BLANK.format(number) for number in range(1, len(run) + 1)]
            if not (first["name"].endswith("_blank_1") and run and base not in taken
                    and SHOWN_BLANKS.findall(said) == shown
                    and not {scheme["name"] for _, scheme in run} & importer.conditioned
                    and all("description" not in scheme for _, scheme in run[1:])):
                place += 1
                continue
            line, question = importer.header_above(first["name"])
            importer.take_header(first["name"], question=True)
            names = [scheme["name"] for _, scheme in run]
            schemes[place:place + len(run)] = [{
                "annotation_type": self.name, "name": base, **({"description": question} if question else {}),
                "text": SHOWN_BLANKS.sub("[[]]", said),
                **({"label_requirement": first["label_requirement"]} if "label_requirement" in first else {})}]
            importer.put_together(base, names)
            importer.notes.append(f"<TextArea> {names[0]} … {names[-1]} (line {line}): the {len(names)} blanks of "
                                  f"one passage, {base!r}, as this platform's export writes a cloze (its keys stay "
                                  f"here)")
            place += 1


def _blanks(schemes: list[dict[str, Any]], base: str) -> list[tuple[int, dict[str, Any]]]:
    """The imported one-line texts named <base>_blank_1, <base>_blank_2, … at the start of `schemes`, numbered."""
    run = []
    for number, scheme in enumerate(schemes, 1):
        if scheme["name"] != f"{base}_blank_{number}" or scheme["annotation_type"] != TextType.name or not set(
                scheme) <= {"annotation_type", "name", "description", "label_requirement", "placeholder"}:
            break
        run.append((number, scheme))
    return run
