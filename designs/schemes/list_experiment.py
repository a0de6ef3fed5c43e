"""list_experiment: Potato's list experiment (the item count technique): a list of statements and how many of them
hold for the person, the number only. People of the design's treatment condition (`treatment`, a level of one of
the design's `conditions` factors) see one statement more, the sensitive one, at `sensitive_position`; the others
never have it in their page (designs.conditions takes it out when the page is served). How many hold the sensitive
statement is estimated from the groups' mean counts (designs.conditions.difference_in_means), never from one
person's answer."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from designs.schemes.base import SchemeBase, SchemeType, Strict, number_schema, potato_text, read_number, scheme_type


class Treatment(Strict):
    factor: str = Field(min_length=1, description="a factor of the design's conditions")
    level: str = Field(min_length=1, description="its level whose people see the sensitive statement")

    @field_validator("level", mode="before")
    @classmethod
    def _level_as_text(cls, level: object) -> object:
        return str(level) if isinstance(level, int | float) and not isinstance(level, bool) else level


class ListExperiment(SchemeBase):
    """Statements, the sensitive one only in the treatment condition, and how many hold: the number only."""

    annotation_type: Literal["list_experiment"]
    items: list[str] = Field(min_length=2, description="the statements everyone sees")
    sensitive_item: str = Field(min_length=1, description="the statement only the treatment condition sees")
    treatment: Treatment
    sensitive_position: int | None = Field(None, ge=0, description="where the sensitive statement stands among "
                                                                   "the others (0: first; the last if not given)")
    count_prompt: str = Field("Number of statements:", description="what the number's box asks")

    @field_validator("items")
    @classmethod
    def _statements(cls, items: list[str]) -> list[str]:
        if not all(item.strip() for item in items):
            raise ValueError("a statement is empty; each must say something")
        return items

    @model_validator(mode="after")
    def _position(self) -> ListExperiment:
        if self.sensitive_position is not None and self.sensitive_position > len(self.items):
            raise ValueError(f"sensitive_position must be 0 to {len(self.items)} (the last if not given)")
        return self

    @property
    def most(self) -> int:
        """The largest count anyone can give: every statement the treatment condition sees."""
        return len(self.items) + 1

    def statements(self) -> list[tuple[str, str]]:
        """(statement, the condition it is shown to as "factor=level", "" for everyone) in the page's order."""
        shown = [(item, "") for item in self.items]
        position = len(self.items) if self.sensitive_position is None else self.sensitive_position
        shown.insert(position, (self.sensitive_item, f"{self.treatment.factor}={self.treatment.level}"))
        return shown


@scheme_type
class ListExperimentType(SchemeType):
    name = "list_experiment"
    settings = ListExperiment
    potato_input = "number"  # Potato asks the count with its number scheme's input, of the list's own name
    aggregators = ("none",)  # a count says nothing alone: the estimate compares the conditions' means
    potato_keys = ("items", "sensitive_item", "treatment", "sensitive_position", "count_prompt")
    level = None  # people of two conditions count different lists: their answers are not compared
    style = "designs/list_experiment.css"

    def references(self, scheme, design):
        factors = design.conditions.factors if design.conditions is not None else {}
        if scheme.treatment.factor not in factors:
            return [(("treatment", "factor"), f"{scheme.treatment.factor!r} is not a factor of the design's "
                     f"conditions ({', '.join(factors) or 'none declared'}); declare it under conditions.factors")]
        if scheme.treatment.level not in factors[scheme.treatment.factor]:
            return [(("treatment", "level"), f"{scheme.treatment.level!r} is not a level of "
                     f"{scheme.treatment.factor} ({', '.join(factors[scheme.treatment.factor])})")]
        return []

    def treatment(self, scheme):
        return scheme.treatment.factor, scheme.treatment.level

    def read(self, scheme, fields, record):
        return read_number(fields, 0, scheme.most, 1)

    def answer_schema(self, scheme):
        return {**number_schema(0, scheme.most), "type": "integer"}

    def form_fields(self, scheme, value, record=None):
        return {"": potato_text(value)}

    def told(self, scheme, record=None):
        # A model is in no condition: it is shown the list everyone sees.
        return "The statements: " + "; ".join(scheme.items) + ". Answer with how many of them hold, the number only."

    def card_labels(self, scheme):
        return f"a count of {len(scheme.items)} statements (+1 in {scheme.treatment.factor}={scheme.treatment.level})"
