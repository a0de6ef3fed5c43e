"""pairwise: which of two things (binary: a label, or the tie), or where on a scale between them."""

from __future__ import annotations

import json
import re
from typing import Literal
from xml.sax.saxutils import quoteattr

from pydantic import Field

from designs.schemes.base import (
    AnswerProblem,
    Label,
    SchemeBase,
    SchemeType,
    Strict,
    labels_in_any_form,
    number,
    one_of,
    pick,
    potato_text,
    scheme_type,
)
from designs.schemes.radio import RadioType

# The keys a single Choices may have been read as to be a pairwise scheme's tie, or its scale (labelstudio_gather).
TIE_KEYS = {"annotation_type", "name", "labels", "sequential_key_binding", "display_logic"}
SCALE_KEYS = TIE_KEYS | {"description", "horizontal", "label_requirement"}


class Scale(Strict):
    """A pairwise scheme's scale (mode: scale): from strongly A (min) to strongly B (max), a slider as Potato's."""

    min: int = -3
    max: int = 3
    step: int = Field(1, ge=1)
    min_label: str = Field("", description="what the lowest point means (\"<A> is better\" unless given)")
    max_label: str = Field("", description="what the highest point means (\"<B> is better\" unless given)")
    center_label: str = Field("", description="what the middle means (\"Equal\" unless given)")
    default: int = Field(0, description="where the slider starts; it is no answer until moved")


class Pairwise(SchemeBase):
    """Which of two things is better (A, B, or a tie), or how much better on a scale."""

    annotation_type: Literal["pairwise"]
    mode: Literal["binary", "scale"] = Field("binary", description="binary: pick one; scale: a point from A to B")
    items_key: str = Field("pair", description="the item field holding the two things compared")
    labels: list[Label] = Field(default_factory=lambda: [Label(name="A"), Label(name="B")], min_length=2,
                               description="what the two things are called (the first is A, the second B)",
                               json_schema_extra=labels_in_any_form)
    allow_tie: bool = Field(False, description="offer a tie as a third answer")
    tie_label: str = Field("Equal", description="the tie's name")
    tie_labels: list[str] = Field(default_factory=list, description="several ways to call it even (equally good, "
                                                                    "equally bad), instead of tie_label")
    tie_value: str = Field("", description="stored for a tie instead of tie_label, which is then only shown "
                                           "(Potato stores `tie`)")
    tie_key: str = Field("", description="the tie's key (Potato's is 0); the number after the labels' otherwise")
    scale: Scale = Field(default_factory=Scale)


@scheme_type
class PairwiseType(SchemeType):
    name = "pairwise"
    settings = Pairwise
    aggregators = ("majority", "bradley-terry", "mean", "none")
    potato_keys = ("mode", "items_key", "labels", "allow_tie", "tie_label", "scale")
    categorical = True
    asked_once = True
    labelstudio_tags = ("Pairwise",)

    def compared_size(self, scheme):
        return 2

    def from_labelstudio(self, control, importer):
        # The two objects it names are the two things compared: the item holds them as one pair (their left and
        # right), which the pairwise widget shows side by side.
        return {"items_key": importer.pair_of(control), "labels": [{"name": "left", "description": "Left"},
                                                                   {"name": "right", "description": "Right"}]}

    def form_fields(self, scheme, value, record=None):
        return {"": potato_text(value)}

    def from_labelstudio_results(self, scheme, results, regions):
        # Label Studio says left or right; a scheme of its own labels (A, B) has them in that order. A tie is the
        # pick of its Choices.
        if scheme.mode == "scale":
            return (results[0]["value"].get("choices") or [None])[0]
        sides = {"left": scheme.labels[0].name, "right": scheme.labels[1].name} if len(scheme.labels) >= 2 else {}
        picked = [sides.get(result["value"].get("selected"), result["value"].get("selected"))
                  if result["from_name"] == scheme.name else (result["value"].get("choices") or [None])[0]
                  for result in results]
        if len(picked) > 1:
            raise ValueError("a side and the tie are both picked; pick one")
        return picked[0]

    def labelstudio_objects(self, scheme):
        return [("Text", f"{scheme.items_key}_left"), ("Text", f"{scheme.items_key}_right")]

    def labelstudio_question(self, scheme):
        return scheme.description if scheme.mode == "binary" else ""  # a scale's is asked just above its points

    def labelstudio_data(self, scheme, record):
        pair = record.fields.get(scheme.items_key)
        if not isinstance(pair, list) or len(pair) != 2:
            return {}
        return {f"{scheme.items_key}_{side}": thing if isinstance(thing, str) else json.dumps(thing, ensure_ascii=False)
                for side, thing in zip(("left", "right"), pair, strict=True)}

    # Label Studio's Pairwise picks a side and has no tie: a tie is a single Choices of its own, <name>_tie, on the
    # left object, offering the tie's words. Label Studio cannot require one of two controls, so neither is required
    # there where a tie is offered.
    def labelstudio_control(self, scheme, to_name):
        if scheme.mode == "scale":
            return _scale_control(scheme, to_name.split(",")[0])
        required = ' required="true"' if scheme.required and not scheme.allow_tie else ""
        control = f"<Pairwise name={quoteattr(scheme.name)} toName={quoteattr(to_name)}{required}/>"
        if not scheme.allow_tie:
            return control
        key = f" hotkey={quoteattr(scheme.tie_key)}" if scheme.tie_key and scheme.tie_value else ""  # a key of its own
        ties = "".join(f"<Choice value={quoteattr(shown)}" + (f" alias={quoteattr(value)}" if value != shown else "")
                       + f"{key}/>" for value, shown in self._shown(scheme)[2:])
        return (f"{control}\n  <Choices name={quoteattr(self.labelstudio_names(scheme)[1])} "
                f"toName={quoteattr(to_name.split(',')[0])} choice=\"single\">{ties}</Choices>")

    def labelstudio_names(self, scheme):
        return [scheme.name, f"{scheme.name}_tie"] if scheme.mode == "binary" and scheme.allow_tie else [scheme.name]

    def labelstudio_results(self, scheme, value, to_name, regions):
        if scheme.mode == "scale":
            return [{"type": "choices", "value": {"choices": [str(value)]}}]
        sides = {label.name: side for label, side in zip(scheme.labels[:2], ("left", "right"), strict=False)}
        if value not in sides:  # a tie
            return [{"from_name": f"{scheme.name}_tie", "type": "choices", "value": {"choices": [value]}}]
        return [{"type": "pairwise", "value": {"selected": sides[value]}}]

    def labelstudio_gather(self, schemes, importer):
        """A Pairwise followed by a single Choices named <name>_tie on one of its two objects, asked by no header of
        its own, as the export above writes a tie: one pairwise scheme again, the Choices' words its tie. A row of
        whole-number points from below 0 to above it on the first of two objects <stem>_left and <stem>_right, as
        the export writes a scale: a pairwise scale between them."""
        for place, scheme in enumerate(schemes):
            scale = _points(scheme)
            pair = importer.side_by_side(scheme["name"]) if scale and scheme["name"] not in importer.conditioned \
                else None
            if pair is not None:
                schemes[place] = {"annotation_type": self.name, "name": scheme["name"],
                                  **{key: scheme[key] for key in ("description", "label_requirement", "display_logic")
                                     if key in scheme},
                                  "mode": "scale", "items_key": pair, "scale": scale}
                line, _ = importer.header_above(scheme["name"])
                left, right = importer.pairs[pair]
                importer.notes.append(f"<Choices> {scheme['name']} (line {line}): the points of a scale from {left} to "
                                      f"{right}, as this platform's export writes a pairwise scale")
        notes = []
        for place in range(len(schemes) - 2, -1, -1):
            sides, tie = schemes[place], schemes[place + 1]
            if not (sides["annotation_type"] == self.name and tie["name"] == f"{sides['name']}_tie"
                    and tie["annotation_type"] == RadioType.name and set(tie) <= TIE_KEYS
                    and importer.targets.get(tie["name"]) in importer.targets.get(sides["name"], "").split(",")
                    and _condition(tie) == _condition(sides)
                    and not {sides["name"], tie["name"]} & importer.conditioned):
                continue
            labels = tie["labels"]
            if len(labels) == 1 and labels[0].get("description"):  # shown as its words, stored as its alias
                sides.update(tie_value=labels[0]["name"], tie_label=labels[0]["description"],
                             **({"tie_key": labels[0]["key_value"]} if labels[0].get("key_value") else {}))
            elif len(labels) == 1:
                sides["tie_label"] = labels[0]["name"]
            else:
                sides["tie_labels"] = [label["name"] for label in labels]
            sides["allow_tie"] = True
            del schemes[place + 1]
            importer.put_together(sides["name"], [sides["name"], tie["name"]])
            line, _ = importer.header_above(tie["name"])
            notes.insert(0, f"<Choices> {tie['name']} (line {line}): the tie of {sides['name']!r}, as this platform's "
                            f"export writes one")
        importer.notes += notes

    def potato_answer(self, scheme, value, record):
        # Potato's pairwise form has one input: its selection (A, B, tie) or, on a scale, its value.
        return {"labels": {"scale_value" if scheme.mode == "scale" else "selection": potato_text(value)}}

    def potato_fields(self, scheme, saved, record):
        found = (saved.get("labels") or {}).get("scale_value" if scheme.mode == "scale" else "selection")
        return {} if found is None else {"": str(found)}

    def read(self, scheme, fields, record):
        record.options(scheme.items_key, 2)
        value = fields.get()
        if not value:
            return None
        if scheme.mode == "scale":
            point = number(value, "the position")
            low, high, step = scheme.scale.min, scheme.scale.max, scheme.scale.step
            if point not in range(low, high + 1, step):
                raise AnswerProblem(f"{value!r} is not a point of the {low} to {high} scale")
            return int(point)
        return pick(value, self.choices(scheme), "choices")

    def answer_schema(self, scheme):
        if scheme.mode == "scale":
            return {"type": "integer", "minimum": scheme.scale.min, "maximum": scheme.scale.max,
                    "multipleOf": scheme.scale.step}
        return one_of(self.choices(scheme))

    def one_label(self, scheme):
        return scheme.mode == "binary"

    def choices(self, scheme):
        return [value for value, _ in self._shown(scheme)]

    def _shown(self, scheme):
        """Each choice of a binary scheme: (the value stored, the text shown)."""
        found = [(label.name, label.description or label.name) for label in scheme.labels[:2]]
        if scheme.allow_tie and scheme.tie_value:
            found.append((scheme.tie_value, scheme.tie_label))
        elif scheme.allow_tie:
            found += [(tie, tie) for tie in scheme.tie_labels or [scheme.tie_label]]
        return found

    def keys(self, scheme):
        if scheme.mode == "scale":
            return {}
        own = [label.key for label in scheme.labels[:2]]
        keys = {}
        for place, choice in enumerate(self.choices(scheme), 1):
            given = own[place - 1] if place <= len(own) else scheme.tie_key if scheme.tie_value else ""
            keys[given or str(place)] = choice
        return keys

    def widget_context(self, scheme, record, field, keys):
        """A binary scheme's choices, each with its key, the text shown and the compared thing it picks (none for
        a tie); a scale's ends and middle as Potato's slider says them, and where it starts."""
        if scheme.mode == "scale":
            first, second = (label.description or label.name for label in scheme.labels[:2])
            scale = scheme.scale
            return {"ends": [f"{first}: {scale.min_label or f'{first} is better'}", scale.center_label or "Equal",
                             f"{second}: {scale.max_label or f'{second} is better'}"],
                    "start": min(max(scale.default, scale.min), scale.max)}
        compared = record.fields.get(scheme.items_key)
        compared = [str(entry) for entry in compared] if isinstance(compared, list) else []
        key_of = {value: key for key, value in keys.items()}
        return {"options": [{"key": key_of.get(value, ""), "value": value, "shown": shown,
                             "text": compared[index] if index < min(len(compared), 2) else ""}
                            for index, (value, shown) in enumerate(self._shown(scheme))]}

    def points(self, scheme):
        if scheme.mode == "scale":
            return list(range(scheme.scale.min, scheme.scale.max + 1, scheme.scale.step))
        return []

    def potato_split(self, scheme):
        """A multi-dimension Potato scheme: one binary scheme per dimension, named <scheme>.<dimension>."""
        if scheme.get("mode") != "multi_dimension":
            return None
        dimensions = scheme.get("dimensions")
        if not isinstance(dimensions, list) or not dimensions:
            raise ValueError("a multi_dimension pairwise scheme lists its dimensions; add them")
        parts = []
        for position, dimension in enumerate(dimensions, 1):
            entry = dimension if isinstance(dimension, dict) else {"name": str(dimension)}
            own = str(entry.get("name", position))
            description = entry.get("description")
            part = {"annotation_type": self.name, "name": f"{scheme.get('name', '')}.{own}", "mode": "binary",
                    "description": description.strip() if isinstance(description, str) and description.strip()
                    else own}
            for key in ("items_key", "labels", "allow_tie", "tie_label", "label_requirement"):
                value = entry.get(key, scheme.get(key))
                if value is not None:
                    part[key] = value
            parts.append(part)
        return parts

    def from_potato(self, converted, importer):
        converted.setdefault("items_key", importer.text_key)
        if isinstance(converted.get("scale"), dict):
            converted["scale"] = importer.scale(converted["scale"])
        if converted.get("mode", "binary") == "binary":
            # Potato's binary page: the two things as tiles named by its labels (A and B unless given), keys 1 and
            # 2, a tie button (tie_label, "No preference" unless given) on key 0; stored as A, B and tie.
            shown = converted.get("labels") if isinstance(converted.get("labels"), list) else ["A", "B"]
            converted["labels"] = [{"name": stored, "key_value": key, **({"description": _text_of(label)}
                                                                           if _text_of(label) != stored else {})}
                                   for stored, key, label in zip(("A", "B"), ("1", "2"), shown[:2], strict=False)]
            if converted.get("allow_tie"):
                converted.setdefault("tie_label", "No preference")
                converted.update(tie_value="tie", tie_key="0")
        return [converted]


def _text_of(label):
    """A Potato label's text, written as a string or as an object with a name (and maybe its shown text)."""
    if isinstance(label, dict):
        return str(label.get("description") or label.get("name") or "")
    return str(label)


def _scale_control(scheme, to_name):
    """A pairwise scale as Label Studio's single Choices of its points in a row, on the first of the two things, its
    question and what its ends mean in a Header just above (Label Studio's slider shows no points, as the page's
    slider does below it)."""
    scale = scheme.scale
    ends = (f"{scale.min} = {scale.min_label or 'the first is better'}, "
            f"{scale.max} = {scale.max_label or 'the second is better'}")
    question = f"{scheme.description} ({ends})" if scheme.description else ends
    points = "".join(f"<Choice value=\"{point}\"/>" for point in range(scale.min, scale.max + 1, scale.step))
    return (f"<Header value={quoteattr(question)}/><Choices name={quoteattr(scheme.name)} toName={quoteattr(to_name)} "
            f"choice=\"single\" showInline=\"true\"" + (' required="true"' if scheme.required else "")
            + f">{points}</Choices>")


def _condition(scheme):
    """The visibleWhen attributes of an imported scheme's control (the View around both a pair and its tie gives
    them the same), or {}."""
    control = scheme.get("display_logic")
    return {key: value for key, value in (control.attrs.items() if control is not None else ())
            if key == "visibleWhen" or key.startswith("when")}


def _points(scheme):
    """The scale of an imported single Choices in a row whose choices are whole numbers from below 0 to above it, a
    step apart (a pairwise scale's, as the export writes one), or None."""
    if scheme["annotation_type"] != RadioType.name or not scheme.get("horizontal") or not set(scheme) <= SCALE_KEYS:
        return None
    names = [label.get("name", "") if isinstance(label, dict) else label for label in scheme.get("labels", [])]
    if not all(re.fullmatch(r"-?\d+", name) for name in names) or len(names) < 3 or any(
            isinstance(label, dict) and set(label) != {"name"} for label in scheme["labels"]):
        return None
    points = [int(name) for name in names]
    step = points[1] - points[0]
    if step < 1 or points != list(range(points[0], points[-1] + 1, step)) or not points[0] < 0 < points[-1]:
        return None
    return {"min": points[0], "max": points[-1], "step": step}
