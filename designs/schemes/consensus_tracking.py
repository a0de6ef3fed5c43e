"""consensus_tracking: each turn of a discussion tagged with one act (Potato's consensus_tracking: a proposal, an
agreement, …; its context_attribution is the same with an agent's uses of its context as the acts), an act that
responds to something (`linked_acts`) naming the turn it refers to. "<prefix>-<turn from 0>" holds the act,
"<prefix>-<turn>-ref" the turn referred to; any turn may be left untagged. A second pick of a turn's act takes it
back (designs/retract.js), as Potato's second click does."""

from __future__ import annotations

import html
import json
import re
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from designs.dialogue import SAYINGS, SPEAKERS, as_line
from designs.schemes.base import AnswerProblem, SchemeBase, SchemeType, distinct_texts, majority, pick, scheme_type

ACTS = ["proposal", "agreement", "disagreement", "decision", "concession"]
LINKED_ACTS = ["agreement", "disagreement", "concession"]
HINT = "Tag turns with discussion acts. Acts like agreement then ask you to choose the turn they refer to."
# Potato's context_attribution: how an agent used its context, the first two naming the turn (mis)used.
CONTEXT = {"acts": ["used_context_correctly", "hallucinated_context", "ignored_context"],
           "linked_acts": ["used_context_correctly", "hallucinated_context"],
           "hint": "Tag how each turn uses earlier context. used_context_correctly and hallucinated_context then ask "
                   "you to choose the source turn being (mis)used; ignored_context stands alone."}
SNIPPET = 140  # characters of a turn shown on its card, as Potato cuts it


class ConsensusTracking(SchemeBase):
    """Each turn of a discussion tagged with an act, an act that responds naming the turn it refers to."""

    annotation_type: Literal["consensus_tracking"]
    turns_key: str = Field("conversation", min_length=1, description="the item field holding the turns: a list, "
                                                                     "each a text or a turn with its speaker")
    acts: list[str] = Field(ACTS, min_length=1, description="the acts a turn may be tagged with")
    linked_acts: list[str] = Field(LINKED_ACTS, description="the acts that name the turn they refer to")
    hint: str = Field(HINT, description="what the annotator is told under the question")

    _distinct = field_validator("acts")(distinct_texts)

    @model_validator(mode="after")
    def _acts(self) -> ConsensusTracking:
        strays = [act for act in self.linked_acts if act not in self.acts]
        if strays:
            raise ValueError(f"linked_acts {', '.join(map(repr, strays))} are not among the acts; name acts from "
                             f"acts ({', '.join(self.acts)})")
        return self


def as_text(hint: str) -> str:
    """Potato's hint, which is HTML (its default emphasizes the acts), as the text it reads as."""
    return html.unescape(re.sub(r"<[^>]*>", "", hint))


def said(value: Any) -> list[dict[str, str]] | None:
    """The turns as Potato's card list reads them, or None when the value is no list of turns: each a text (no
    speaker) or a mapping with its speaker, its agent (agent_id, else the speaker) and what it says."""
    if not isinstance(value, list) or not value:
        return None
    found = []
    for entry in value:
        if isinstance(entry, dict):
            who = next((str(entry[key]) for key in SPEAKERS if entry.get(key) not in (None, "")), "")
            text = next((as_line(entry[key]) for key in SAYINGS if entry.get(key) is not None), "")
            found.append({"speaker": who, "agent_id": str(entry.get("agent_id") or who), "text": text})
        elif isinstance(entry, str | int | float):
            found.append({"speaker": "", "agent_id": "", "text": str(entry)})
        else:
            return None
    return found


def _turns(scheme: ConsensusTracking, record: Any) -> list[dict[str, str]]:
    return (said(record.fields.get(scheme.turns_key)) if record is not None else None) or []


def _name(place: int, turn: dict[str, str]) -> str:
    return f"#{place + 1}" + (f" {turn['speaker']}" if turn["speaker"] else "")


@scheme_type
class ConsensusTrackingType(SchemeType):
    name = "consensus_tracking"
    settings = ConsensusTracking
    aggregators = ("majority", "none")
    potato_keys = ("turns_key", "acts", "linked_acts", "hint")
    potato_aliases = ("context_attribution",)
    script = "designs/consensus_tracking.js"
    style = "designs/consensus_tracking.css"

    def scripts(self, scheme):
        return ["designs/retract.js", self.script]

    def item_problem(self, scheme, record):
        if not _turns(scheme, record):
            return (f"item {record.id!r} has no turns under {scheme.turns_key!r} (a list, each a text or a turn with "
                    f"its speaker and text) to tag")
        return None

    def widget_context(self, scheme, record, field, keys):
        found = _turns(scheme, record)
        return {"turns": [{"place": place, "name": _name(place, turn),
                           "text": turn["text"][:SNIPPET] + ("…" if len(turn["text"]) > SNIPPET else ""),
                           "others": [(other, _name(other, found[other])) for other in range(len(found))
                                      if other != place]}
                          for place, turn in enumerate(found)],
                "linked": json.dumps(scheme.linked_acts)}

    def read(self, scheme, fields, record):
        found = _turns(scheme, record)
        tags = []
        for place in range(len(found)):
            act = fields.get(str(place))
            if not act:
                continue  # a turn left untagged (a reference left behind by an act taken back goes with it)
            tag: dict[str, Any] = {"turn": place, "act": pick(act, scheme.acts, f"acts of turn {place + 1}")}
            if act in scheme.linked_acts:
                ref = fields.get(f"{place}-ref")
                if not ref:
                    # Half a tag: kept without its turn, as Potato keeps it, unless the scheme is required (Potato's
                    # page holds only a required scheme to what its widget says is missing).
                    if scheme.required:
                        raise AnswerProblem(f"turn {_name(place, found[place])} ({act}): choose the turn it refers "
                                            f"to")
                    tags.append(tag)
                    continue
                if not ref.isdecimal() or int(ref) == place or int(ref) >= len(found):
                    raise AnswerProblem(f"turn {_name(place, found[place])} ({act}) refers to {ref[:10]!r}, which is "
                                        f"not another turn of this item")
                tag["ref"] = int(ref)
            tags.append(tag)
        return tags or None

    def answer_schema(self, scheme):
        return {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["turn", "act"], "additionalProperties": False,
            "properties": {"turn": {"type": "integer", "minimum": 0}, "act": {"type": "string", "enum": scheme.acts},
                           "ref": {"type": "integer", "minimum": 0}}}}

    def form_fields(self, scheme, value, record=None):
        fields = {}
        for tag in value if isinstance(value, list) else []:
            if isinstance(tag, dict) and "turn" in tag and "act" in tag:  # a model's answer may be anything
                fields[str(tag["turn"])] = str(tag["act"])
                if tag.get("ref") is not None:
                    fields[f"{tag['turn']}-ref"] = str(tag["ref"])
        return fields

    def units(self, scheme, value, text=""):
        # Agreement per turn tagged: its act and the turn it refers to, one category.
        return {tag["turn"]: f"{tag['act']} → {tag['ref'] + 1}" if "ref" in tag else tag["act"] for tag in value}

    def combine(self, scheme, values):
        # A turn's tag is the most given among all who answered the item, a turn left untagged counting as no tag.
        places = sorted({tag["turn"] for value in values for tag in value})
        combined = []
        for place in places:
            chosen = majority([next((tag for tag in value if tag["turn"] == place), None) for value in values])
            if chosen is not None:
                combined.append(chosen)
        return combined

    def potato_answer(self, scheme, value, record):
        # Potato keeps the tags as JSON in one input of the scheme's name, each with the turn's agent.
        found = _turns(scheme, record)
        tags = [{"turn": tag["turn"], "act": tag["act"], "agent_id": found[tag["turn"]]["agent_id"] if tag["turn"] <
                 len(found) else "", **({"ref": tag["ref"]} if "ref" in tag else {})} for tag in value]
        return {"labels": {scheme.name: json.dumps(tags, ensure_ascii=False, separators=(",", ":"))}}

    def potato_fields(self, scheme, saved, record):
        found = (saved.get("labels") or {}).get(scheme.name)
        return self.form_fields(scheme, json.loads(found)) if found else {}  # each turn's agent is the item's

    def potato_alias(self, scheme, importer):
        own = {key: scheme[key] for key in self.potato_keys if key in scheme}
        return ({**CONTEXT, **own},
                "how an agent used its context, run as discussion acts: each turn tagged, "
                f"{' and '.join(own.get('linked_acts', CONTEXT['linked_acts']))} naming the turn (mis)used")

    def from_potato(self, converted, importer):
        # Potato's hint is HTML (its default emphasizes the acts); here it is text.
        return [{**converted, "hint": as_text(str(converted["hint"]))} if "hint" in converted else converted]

    def told(self, scheme, record=None):
        linked = f" An act of {', '.join(scheme.linked_acts)} names the turn it refers to (ref)." if \
            scheme.linked_acts else ""
        turns = "" if record is None else " Turns: " + "; ".join(
            f"{place}: {turn['speaker'] + ': ' if turn['speaker'] else ''}{turn['text']}"
            for place, turn in enumerate(_turns(scheme, record))) + "."
        return (f"Tag any turns with one act each ({', '.join(scheme.acts)}), as a list of {{turn, act, ref}} with "
                f"turns numbered from 0.{linked}{turns}")

    def card_labels(self, scheme):
        return ", ".join(scheme.acts) + " for each turn"
