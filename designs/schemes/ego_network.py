"""ego_network: Potato's personal-network instrument, as sociology and public health collect one. The person (the
ego) names people (alters) in one or more name generators, answers a name interpreter's questions about each, says
for each pair of them whether they know each other (a dyad census) and places them on a sociogram, where ties are
drawn between two people. Every stage works on one set of alters; designs/ego_network.js draws the stages (one at a
time, or all stacked) and keeps the whole answer as JSON in the scheme's field, as Potato's page keeps it:

    {"alters": [{"id": "a1", "name": "Ann", "named_in": ["discuss"]}], "attributes": {"a1": {"close": "very"}},
     "ties": [["a1", "a2"]], "positions": {"a1": [0.5, 0.16]}, "census": {"a1|a2": true},
     "tie_attributes": {"a1|a2": {"strength": "Strong"}}}

A tie is [a, b] (with its relation third when the stage that drew it names one); a census or tie-attribute key is
"a|b" (or "a|b|relation"), the two ids in the order the people were named. A required scheme is held to what its
stages ask (Potato's page holds only a required one): the least people of each generator, each required question
answered of everyone, each pair of each census answered."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from core.words import counted
from designs.schemes.base import AnswerProblem, SchemeBase, SchemeType, Strict, no_repeats, read_json, scheme_type

NAME = r"^[A-Za-z][A-Za-z0-9_-]{0,63}$"  # a stage's id, a question's name, a relation (Potato's rule)
# The kinds of a name interpreter's question: Potato's words, which name no scheme type of ours here.
EGO_QUESTIONS = ("radio", "multiselect", "number", "text")
ONE, SOME, COUNT, WORDS = EGO_QUESTIONS


class Choice(Strict):
    """A choice of a question: the value kept and the text shown (Potato's label, written as text or {name, text})."""

    name: str = Field(min_length=1)
    text: str = ""

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, value: Any) -> Any:
        if isinstance(value, bool) or value is None:
            raise ValueError(f"{value!r} is not a label; quote Yes and No, which YAML reads as true and false")
        if isinstance(value, str | int | float):
            return {"name": str(value).strip(), "text": str(value).strip()}
        if isinstance(value, dict) and "value" in value and "name" not in value:
            return {"name": value["value"], **{key: found for key, found in value.items() if key != "value"}}
        return value

    @field_validator("name", mode="before")
    @classmethod
    def _as_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value

    @property
    def shown(self) -> str:
        return self.text or self.name


class Question(Strict):
    """A question of the name interpreter, asked about each person ({name} in it says whom)."""

    name: str = Field(pattern=NAME, description="the attribute it fills")
    description: str = Field("", description="what is asked; the name if not given")
    type: str = Field(ONE, json_schema_extra={"enum": list(EGO_QUESTIONS)})
    labels: list[Choice] | None = None
    required: bool | None = Field(None, description="the stage's `required` if not given")
    min: float | None = None
    max: float | None = None
    step: float | None = None
    placeholder: str = ""

    @model_validator(mode="after")
    def _fits_type(self) -> Question:
        if self.type not in EGO_QUESTIONS:
            raise ValueError(f"type {self.type!r} is not one of {', '.join(EGO_QUESTIONS)}")
        if self.type in (ONE, SOME):
            if not self.labels or len(self.labels) < 2:
                raise ValueError(f"a {self.type} question needs at least two labels")
            no_repeats([label.name for label in self.labels], "labels", "label")
        elif self.labels is not None:
            raise ValueError("labels are for radio and multiselect questions")
        if self.type != COUNT and (self.min, self.max, self.step) != (None, None, None):
            raise ValueError("min, max and step are for number questions")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min ({self.min:g}) is larger than max ({self.max:g})")
        return self

    @property
    def asked(self) -> str:
        return self.description or self.name


class Stage(Strict):
    id: str | None = Field(None, pattern=NAME, description="its id in the answer (its type and place if not given)")
    title: str = ""
    prompt: str = ""
    instructions: str = ""


class NameGenerator(Stage):
    type: Literal["name_generator"]
    min_alters: int = Field(0, ge=0, description="the fewest people a required scheme names here")
    max_alters: int | None = Field(None, ge=1, description="the most people named here")
    roster: list[str | dict[str, Any]] | None = Field(None, description="names to pick from (text, or {id, name})")
    roster_field: str | None = Field(None, min_length=1, description="the item field listing the names to pick from")
    sets: dict[str, str | int | float | bool | None] = Field(
        default_factory=dict, description="attributes given to each person named here, e.g. {support: true}")
    placeholder: str = ""

    @model_validator(mode="after")
    def _bounds(self) -> NameGenerator:
        if self.max_alters is not None and self.max_alters < self.min_alters:
            raise ValueError(f"max_alters ({self.max_alters}) is less than min_alters ({self.min_alters})")
        if self.roster is not None and self.roster_field is not None:
            raise ValueError("give a roster or a roster_field, not both")
        for place, entry in enumerate(self.roster or []):
            name = entry.get("name") if isinstance(entry, dict) else entry
            if not isinstance(name, str) or not name.strip():
                raise ValueError(f"roster[{place}] must be a name or {{id, name}}")
        return self


class NameInterpreter(Stage):
    type: Literal["name_interpreter"]
    questions: list[Question] = Field(min_length=1)
    required: bool = Field(False, description="whether its questions must be answered (each may say otherwise)")


class DyadCensus(Stage):
    type: Literal["dyad_census"]
    relation: str | None = Field(None, pattern=NAME, description="the tie's relation (the default one if not given)")
    yes_label: str = "Yes"
    no_label: str = "No"
    strength_labels: list[Choice] | None = Field(None, min_length=2, description="how strongly, in place of Yes")
    strength_variable: str = Field("strength", pattern=NAME)


class Sociogram(Stage):
    type: Literal["sociogram"]
    relation: str | None = Field(None, pattern=NAME)
    allow_ties: bool = Field(True, description="whether ties are drawn here (false: people are only placed)")
    rings: int = Field(3, ge=0, le=6, description="the circles drawn around the person at the centre")


TITLES = {"name_generator": "Name people", "name_interpreter": "About each person",
          "dyad_census": "Who knows whom", "sociogram": "Arrange your network"}
PROMPTS = {
    "name_generator": "Who are the people you talk to about important matters?",
    "name_interpreter": "Answer these questions about each person you named.",
    "dyad_census": "Do {a} and {b} know each other?",
    "sociogram": "Place the people, and draw a line between two people who know each other.",
}
PLACED = "Place the people: the closer to the centre, the closer they are to you."
AnyStage = Annotated[NameGenerator | NameInterpreter | DyadCensus | Sociogram, Field(discriminator="type")]


class EgoNetwork(SchemeBase):
    """People named, asked about, paired and placed: one personal network per item."""

    annotation_type: Literal["ego_network"]
    stages: list[AnyStage] = Field(min_length=1, description="the steps, in order, over one set of people")
    stage_layout: Literal["steps", "stacked"] = Field("steps", description="one step at a time, or all at once")

    @model_validator(mode="before")
    @classmethod
    def _defaults(cls, data: Any) -> Any:
        """Each stage's id (its type and place), title and prompt, and each question's requirement (its stage's),
        where not given: filled before the stages are read, as the settings are frozen after."""
        if not isinstance(data, dict) or not isinstance(data.get("stages"), list):
            return data
        stages = []
        for place, stage in enumerate(data["stages"]):
            if isinstance(stage, dict) and isinstance(stage.get("type"), str) and stage["type"] in TITLES:
                kind = stage["type"]
                # A sociogram without ties only places people: its question does not ask for lines.
                prompt = PLACED if kind == "sociogram" and stage.get("allow_ties") is False else PROMPTS[kind]
                stage = {**stage, "id": stage.get("id", f"{kind}_{place + 1}"),
                         "title": stage.get("title") or TITLES[kind], "prompt": stage.get("prompt") or prompt}
                if kind == "name_interpreter" and isinstance(stage.get("questions"), list):
                    stage["questions"] = [{**question, "required": question.get("required", stage.get("required",
                                                                                                          False))}
                                          if isinstance(question, dict) else question
                                          for question in stage["questions"]]
            stages.append(stage)
        return {**data, "stages": stages}

    @model_validator(mode="after")
    def _stages(self) -> EgoNetwork:
        no_repeats([stage.id or "" for stage in self.stages], "stages", "id")
        no_repeats([question.name for stage in self.stages if isinstance(stage, NameInterpreter)
                    for question in stage.questions], "questions", "name")
        if not isinstance(self.stages[0], NameGenerator):
            raise ValueError(f"the first stage is a {self.stages[0].type}: a name_generator must come first, or "
                             "there is nobody to ask about")
        return self

    def page_config(self) -> str:
        return json.dumps({"layout": self.stage_layout, "stages": [stage.model_dump(exclude_none=True)
                                                                   for stage in self.stages]}, ensure_ascii=False)


def pair(first: str, second: str, relation: str | None, order: dict[str, int]) -> str:
    """A census key: the two ids in the order the people were named, then the relation if any."""
    if order[first] > order[second]:
        first, second = second, first
    return f"{first}|{second}" + (f"|{relation}" if relation else "")


def answered(value: Any) -> bool:
    return value not in (None, "", []) and not (isinstance(value, str) and not value.strip())


def _attribute(question: Question, value: Any, who: str) -> Any:
    where = f"{who}'s {question.name}"
    if question.type == ONE and value not in [label.name for label in question.labels or []]:
        raise AnswerProblem(f"{where} is not one of its labels")
    if question.type == SOME and not (isinstance(value, list) and set(value) <= {
            label.name for label in question.labels or []}):
        raise AnswerProblem(f"{where} must be some of its labels")
    if question.type == COUNT:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise AnswerProblem(f"{where} must be a number")
        if (question.min is not None and value < question.min) or (question.max is not None and value > question.max):
            low, high = ("…" if bound is None else f"{bound:g}" for bound in (question.min, question.max))
            raise AnswerProblem(f"{where} is outside {low} to {high}")
    if question.type == WORDS and not isinstance(value, str):
        raise AnswerProblem(f"{where} must be text")
    return value


def shortfalls(scheme: EgoNetwork, answer: dict[str, Any]) -> list[str]:
    """What a required scheme still asks, in the page's words (the same rules as `reasons` in ego_network.js)."""
    alters = answer["alters"]
    order = {alter["id"]: place for place, alter in enumerate(alters)}
    missing = []
    for stage in scheme.stages:
        if isinstance(stage, NameGenerator):
            here = sum(stage.id in alter["named_in"] for alter in alters)
            if here < stage.min_alters:
                missing.append(f"{stage.title}: name at least {counted(stage.min_alters, 'person', 'people')} "
                               f"({here} so far)")
        elif isinstance(stage, NameInterpreter):
            for question in stage.questions:
                left = sum(not answered(answer["attributes"].get(alter["id"], {}).get(question.name))
                           for alter in alters)
                if question.required and left:
                    missing.append(f"{stage.title}: '{question.asked.replace('{name}', 'this person')}' unanswered "
                                   f"for {counted(left, 'person', 'people')}")
        elif isinstance(stage, DyadCensus):
            pairs = [pair(one["id"], other["id"], stage.relation, order)
                     for place, one in enumerate(alters) for other in alters[place + 1:]]
            done = sum(key in answer["census"] for key in pairs)
            if done < len(pairs):
                missing.append(f"{stage.title}: {done} of {counted(len(pairs), 'pair')} answered")
    return missing


# What each part of an answer is, as the page's script writes it (the people named are a list of their own).
SHAPES = {"attributes": dict, "ties": list, "positions": dict, "census": dict, "tie_attributes": dict}


@scheme_type
class EgoNetworkType(SchemeType):
    name = "ego_network"
    settings = EgoNetwork
    aggregators = ("none",)  # one person's own network: nothing to take a majority of
    potato_keys = ("stages", "stage_layout")
    potato_json = True  # Potato's page keeps the whole network as JSON in one input of the scheme's name
    potato_order = ("alters", "attributes", "ties", "positions", "census", "tie_attributes", "id", "name",
                    "named_in", "roster_id")
    level = None  # each person describes their own people: answers are not compared
    script = "designs/ego_network.js"
    style = "designs/ego_network.css"

    def read(self, scheme, fields, record):
        found = read_json(fields, "network", "name the people again", limit=200_000)
        if found is None:
            return None
        if not isinstance(found, dict) or not isinstance(found.get("alters"), list) or not all(
                isinstance(found.get(part) or kind(), kind) for part, kind in SHAPES.items()):
            raise AnswerProblem("the network could not be read; reload the page and name the people again")
        generators = {stage.id for stage in scheme.stages if isinstance(stage, NameGenerator)}
        alters = []
        for alter in found["alters"]:
            if not (isinstance(alter, dict) and isinstance(alter.get("id"), str) and isinstance(alter.get("name"), str)
                    and alter["name"].strip() and isinstance(alter.get("named_in"), list)
                    and all(isinstance(step, str) for step in alter["named_in"])):
                raise AnswerProblem("each person needs an id, a name and the steps that named them")
            if not alter["named_in"] or not set(alter["named_in"]) <= generators:
                raise AnswerProblem(f"{alter['name']!r} is named in no step of this scheme's name generators")
            alters.append({"id": alter["id"], "name": " ".join(alter["name"].split()),
                           "named_in": list(dict.fromkeys(alter["named_in"])),
                           **({"roster_id": str(alter["roster_id"])} if alter.get("roster_id") is not None else {})})
        if not alters:
            return None
        ids = [alter["id"] for alter in alters]
        if len(set(ids)) < len(ids):
            raise AnswerProblem("two people have the same id")
        order = {alter_id: place for place, alter_id in enumerate(ids)}
        names = {alter["id"]: alter["name"] for alter in alters}
        for stage in scheme.stages:
            if isinstance(stage, NameGenerator) and stage.max_alters is not None:
                here = sum(stage.id in alter["named_in"] for alter in alters)
                if here > stage.max_alters:
                    raise AnswerProblem(f"{stage.title}: at most {stage.max_alters} people ({here} named)")
        questions = {question.name: question for stage in scheme.stages if isinstance(stage, NameInterpreter)
                     for question in stage.questions}
        attributes: dict[str, dict[str, Any]] = {}
        for alter_id, given in (found.get("attributes") or {}).items():
            if alter_id not in order or not isinstance(given, dict):
                raise AnswerProblem(f"answers are given about {alter_id!r}, who is not among the people named")
            # A generator's `sets` are attributes too (not questions): kept as given.
            attributes[alter_id] = {name: _attribute(questions[name], value, names[alter_id])
                                    if name in questions else value for name, value in given.items()}
        relations = {stage.relation for stage in scheme.stages if isinstance(stage, DyadCensus | Sociogram)}
        ties = []
        for tie in found.get("ties") or []:
            if not (isinstance(tie, list) and len(tie) in (2, 3) and all(isinstance(end, str) for end in tie)
                    and tie[0] in order and tie[1] in order and tie[0] != tie[1]
                    and (tie[2] if len(tie) == 3 else None) in relations):
                raise AnswerProblem(f"the tie {tie!r} joins no two people named (or names a relation no step draws)")
            ties.append(list(tie))
        positions = {}
        for alter_id, where in (found.get("positions") or {}).items():
            if alter_id not in order or not (isinstance(where, list) and len(where) == 2 and all(
                    isinstance(at, int | float) and not isinstance(at, bool) and 0 <= at <= 1 for at in where)):
                raise AnswerProblem(f"the place of {alter_id!r} must be two numbers from 0 to 1")
            positions[alter_id] = where
        census, tie_attributes = found.get("census") or {}, found.get("tie_attributes") or {}
        for key, value in census.items():
            parts = key.split("|")
            if len(parts) not in (2, 3) or not set(parts[:2]) <= set(order) or not isinstance(value, bool):
                raise AnswerProblem(f"the census answer {key!r} is not a pair of people named with yes or no")
        if not all(isinstance(value, dict) for value in tie_attributes.values()):
            raise AnswerProblem("each tie's attributes must be a mapping")
        answer = {"alters": alters, "attributes": attributes, "ties": ties, "positions": positions,
                  "census": census, "tie_attributes": tie_attributes}
        if scheme.required and (missing := shortfalls(scheme, answer)):
            raise AnswerProblem("; ".join(missing))
        return answer

    def answer_schema(self, scheme):
        pair_key = {"type": "string", "pattern": r"^[^|]+\|[^|]+(\|[A-Za-z][A-Za-z0-9_-]*)?$"}
        return {"type": "object", "required": ["alters"], "additionalProperties": False, "properties": {
            "alters": {"type": "array", "minItems": 1, "items": {
                "type": "object", "required": ["id", "name", "named_in"], "additionalProperties": False,
                "properties": {"id": {"type": "string"}, "name": {"type": "string", "minLength": 1},
                               "named_in": {"type": "array", "minItems": 1, "items": {"type": "string"}},
                               "roster_id": {"type": "string"}}}},
            "attributes": {"type": "object", "additionalProperties": {"type": "object"}},
            "ties": {"type": "array", "items": {"type": "array", "minItems": 2, "maxItems": 3,
                                                "items": {"type": "string"}}},
            "positions": {"type": "object", "additionalProperties": {
                "type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "number", "minimum": 0,
                                                                          "maximum": 1}}},
            "census": {"type": "object", "propertyNames": pair_key, "additionalProperties": {"type": "boolean"}},
            "tie_attributes": {"type": "object", "propertyNames": pair_key,
                               "additionalProperties": {"type": "object"}}}}

    def form_fields(self, scheme, value, record=None):
        return {"": json.dumps(value, ensure_ascii=False)} if isinstance(value, dict) else {}

    def widget_context(self, scheme, record, field, keys):
        names = {}
        for stage in scheme.stages:
            if isinstance(stage, NameGenerator) and stage.roster_field:
                listed = record.fields.get(stage.roster_field)
                people = [({"name": str(entry.get("name", "")).strip(), "id": entry.get("id")}
                           if isinstance(entry, dict) else {"name": str(entry).strip(), "id": None})
                          for entry in (listed if isinstance(listed, list) else [])]
                names[stage.id] = [{"name": person["name"], **({"id": str(person["id"])} if person["id"] is not None
                                                               else {})} for person in people if person["name"]]
        return {"config": scheme.page_config(), "rosters": json.dumps(names, ensure_ascii=False),
                "first": scheme.stages[0]}

    def item_problem(self, scheme, record):
        for stage in scheme.stages:
            if isinstance(stage, NameGenerator) and stage.roster_field:
                listed = record.fields.get(stage.roster_field)
                if listed is not None and not isinstance(listed, list):
                    return f"its {stage.roster_field} must be a list of names (the step {stage.id!r} picks from it)"
        return None

    def told(self, scheme, record=None):
        steps = "; ".join(f"{stage.id} ({stage.type}): {stage.prompt}" for stage in scheme.stages)
        return ("Answer as JSON {\"alters\": [{\"id\": \"a1\", \"name\": ..., \"named_in\": [step id]}], "
                "\"attributes\": {id: {question: answer}}, \"ties\": [[id, id]], \"census\": {\"a1|a2\": true}}. "
                f"The steps: {steps}")

    def card_labels(self, scheme):
        return "a personal network: " + ", ".join(stage.type.replace("_", " ") for stage in scheme.stages)

