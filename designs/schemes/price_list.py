"""price_list: a multiple price list (Potato's price_list; Holt & Laury 2002): a column of decisions, each a choice
between option A and option B, "<prefix>-<decision number>" holding A or B. The rows are written out (`rows`) or
built from a preset (holt_laury's ten lotteries, time_preference's amounts now or later), worded as Potato words
them. With `single_switch` the page keeps one switch point (designs/cascade.js): a B picks B on every later row,
an A picks A on every earlier one."""

from __future__ import annotations

import json
from itertools import pairwise
from typing import Literal

from pydantic import Field, model_validator

from designs.schemes.base import (
    AnswerProblem,
    SchemeBase,
    SchemeType,
    Strict,
    majority,
    pick,
    scheme_type,
)

SIDES = ("A", "B")
HOLT_LAURY = ((2.00, 1.60), (3.85, 0.10))  # Holt & Laury's low-payoff prizes (high, low) of option A and of B
PAYS = "a number (an amount for sure) or a list of [probability, amount] pairs"


class PriceRow(Strict):
    """One decision: what option A and option B are (their text, or what they pay, worded from it)."""

    a: str | None = Field(None, min_length=1, description="option A as shown; else worded from a_pays")
    b: str | None = Field(None, min_length=1, description="option B as shown; else worded from b_pays")
    a_pays: float | list[tuple[float, float]] | None = Field(None, description=f"what A pays: {PAYS}")
    b_pays: float | list[tuple[float, float]] | None = Field(None, description=f"what B pays: {PAYS}")
    a_after: str = Field("", description="when A pays, if later (\"in 4 weeks\"); kept, not paid here")
    b_after: str = Field("", description="when B pays, if later; kept, not paid here")

    @model_validator(mode="after")
    def _sides(self) -> PriceRow:
        for side in ("a", "b"):
            pays = getattr(self, f"{side}_pays")
            if getattr(self, side) is None and pays is None:
                raise ValueError(f"option {side.upper()} needs `{side}` (its text) or `{side}_pays`")
            if isinstance(pays, list):
                if any(not 0 < chance <= 1 for chance, _ in pays) or abs(sum(chance for chance, _ in pays) - 1) > 1e-6:
                    raise ValueError(f"{side}_pays: the probabilities must each be above 0 and up to 1, and sum to 1")
                if any(amount < 0 for _, amount in pays):
                    raise ValueError(f"{side}_pays: the amounts must be 0 or more")
            elif pays is not None and pays < 0:
                raise ValueError(f"{side}_pays must be 0 or more")
        return self


class PriceList(SchemeBase):
    """A column of decisions between option A and option B, one picked in every row."""

    annotation_type: Literal["price_list"]
    rows: list[PriceRow] | None = Field(None, min_length=2, description="the decisions written out (or a preset)")
    preset: Literal["holt_laury", "time_preference"] | None = Field(
        None, description="the decisions built: Holt & Laury's ten lotteries, or an amount now against each of "
                          "amounts_later")
    scale: float | None = Field(None, gt=0, description="a preset's amounts multiplied by it")
    currency: str = Field("$", description="written before each amount")
    amount_now: float | None = Field(None, ge=0, description="time_preference: what option A pays now")
    amounts_later: list[float] | None = Field(None, min_length=2, description="time_preference: what option B pays "
                                                                                "later, a decision each")
    delay_label: str | None = Field(None, min_length=1, description="time_preference: when B pays (\"in 4 weeks\")")
    now_label: str | None = Field(None, min_length=1, description="time_preference: when A pays (\"today\")")
    option_labels: list[str] = Field(["Option A", "Option B"], min_length=2, max_length=2,
                                     description="the two columns' headings")
    single_switch: bool = Field(False, description="one switch point: a B picks B on every later row, an A picks A "
                                                   "on every earlier one")

    @model_validator(mode="after")
    def _decisions(self) -> PriceList:
        # Potato's own checks (server_utils/schemas/price_list.py), so that what imports would run there too.
        if (self.preset is None) == (self.rows is None):
            raise ValueError("give the decisions as rows, or as a preset (holt_laury or time_preference), one of them")
        if self.scale is not None and self.preset is None:
            raise ValueError("scale applies to presets only; write the amounts into the rows instead")
        later = [key for key in ("amount_now", "amounts_later", "delay_label", "now_label") if getattr(self, key)
                 is not None]
        if self.preset == "time_preference" and (self.amount_now is None or self.amounts_later is None):
            raise ValueError("preset time_preference needs amount_now and amounts_later (at least two amounts)")
        if self.preset != "time_preference" and later:
            raise ValueError(f"{', '.join(later)} apply to preset: time_preference only")
        if any(not label.strip() for label in self.option_labels):
            raise ValueError("option_labels must be two texts, such as ['Option A', 'Option B']")
        return self


def money(amount: float, currency: str) -> str:
    return f"{currency}{amount:,.2f}"


def _lottery(pays: list[tuple[float, float]], currency: str) -> str:
    if len(pays) == 1:
        return f"{money(pays[0][1], currency)} for sure"
    return ", ".join(f"{round(chance * 100, 2):g}% chance of {money(amount, currency)}" for chance, amount in pays)


def _paid(pays: float | list[tuple[float, float]] | None) -> list[tuple[float, float]]:
    return [(1.0, float(pays))] if isinstance(pays, int | float) else list(pays or [])


def decisions(scheme: PriceList) -> list[tuple[str, str]]:
    """Each decision's option A and option B as shown, worded as Potato 2.12.1 words them."""
    scale, currency = scheme.scale or 1, scheme.currency
    if scheme.preset == "holt_laury":
        found = []
        for row in range(1, 11):
            chance = row / 10
            a, b = ([(chance, high * scale)] + ([(1 - chance, low * scale)] if row < 10 else [])
                    for high, low in HOLT_LAURY)
            found.append((_lottery(a, currency), _lottery(b, currency)))
        return found
    if scheme.preset == "time_preference":
        now = money((scheme.amount_now or 0) * scale, currency) + f" {scheme.now_label or 'today'}"
        return [(now, f"{money(later * scale, currency)} {scheme.delay_label or 'in 4 weeks'}")
                for later in scheme.amounts_later or []]
    return [(row.a or _lottery(_paid(row.a_pays), currency), row.b or _lottery(_paid(row.b_pays), currency))
            for row in scheme.rows or []]


def switches(choices: list[str]) -> int:
    """How many times the choice changes from one decision to the next."""
    return sum(before != after for before, after in pairwise(choices))


@scheme_type
class PriceListType(SchemeType):
    name = "price_list"
    settings = PriceList
    aggregators = ("majority", "none")
    potato_keys = ("instructions", "rows", "preset", "scale", "currency", "amount_now", "amounts_later",
                   "delay_label", "now_label", "option_labels", "single_switch")
    page = {"value": "every"}
    asked_once = True
    style = "designs/price_list.css"
    script = "designs/price_list.js"

    def widget_context(self, scheme, record, field, keys):
        return {"decisions": [{"place": place, "sides": list(zip(SIDES, options, scheme.option_labels, strict=True))}
                              for place, options in enumerate(decisions(scheme), 1)]}

    def read(self, scheme, fields, record):
        given = [fields.get(str(place)) for place in range(1, len(decisions(scheme)) + 1)]
        if not any(given):
            return None
        if not all(given):
            raise AnswerProblem(f"choose A or B in decision {given.index('') + 1}")
        return [pick(choice, list(SIDES), "options") for choice in given]

    def answer_schema(self, scheme):
        size = len(decisions(scheme))
        return {"type": "array", "items": {"type": "string", "enum": list(SIDES)}, "minItems": size, "maxItems": size}

    def form_fields(self, scheme, value, record=None):
        return {str(place): choice for place, choice in enumerate(value, 1)} if isinstance(value, list) else {}

    def units(self, scheme, value, text=""):
        return dict(enumerate(value, 1))  # agreement per decision

    def combine(self, scheme, values):
        return [majority([value[place] for value in values]) for place in range(len(decisions(scheme)))]

    def scripts(self, scheme):
        return [self.script, *(["designs/cascade.js"] if scheme.single_switch else [])]

    def potato_answer(self, scheme, value, record):
        # One hidden input of the scheme's name holding JSON, as Potato's page writes it.
        count = switches(value)
        said = {"choices": value, "switches": count, "multiple_switching": count > 1}
        return {"labels": {scheme.name: json.dumps(said, separators=(",", ":"))}}

    def potato_fields(self, scheme, saved, record):
        found = (saved.get("labels") or {}).get(scheme.name)
        return self.form_fields(scheme, json.loads(found)["choices"]) if found else {}  # the switches follow

    def told(self, scheme, record=None):
        return "Decisions (answer A or B for each, in order): " + "; ".join(
            f"{place}. A: {a} or B: {b}" for place, (a, b) in enumerate(decisions(scheme), 1)) + "."

    def card_labels(self, scheme):
        return f"A or B in each of {len(decisions(scheme))} decisions"
