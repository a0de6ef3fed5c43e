"""bws (best-worst scaling): the best and the worst of a tuple of options ("<prefix>-best", "<prefix>-worst")."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from designs.schemes.base import AnswerProblem, SchemeBase, SchemeType, pick, scheme_type


class BestWorst(SchemeBase):
    """Best-worst scaling: the best and the worst of a tuple; scores by counting across tuples."""

    annotation_type: Literal["bws"]
    items_key: str = Field("tuple", description="the item field holding the tuple")
    tuple_size: int = Field(4, ge=3, le=10, description="how many things each tuple holds")
    best_description: str = Field("Best", description="what the best pick is called on the page")
    worst_description: str = Field("Worst", description="what the worst pick is called on the page")


WORST_KEYS = "qwertyuio"  # the worst pick's keys, a row each: Potato's q, w, e, r for sets of four


@scheme_type
class BestWorstType(SchemeType):
    name = "bws"
    settings = BestWorst
    aggregators = ("counting", "none")
    potato_keys = ("items_key", "tuple_size", "best_description", "worst_description")
    potato_draws_sets = True
    page = {"value": "every", "distinct": "1"}
    level = None  # tuples differ between items; scores come from counting, not agreement on a value
    asked_once = True

    def potato_answer(self, scheme, value, record):
        # Potato stores the best and the worst by their places in the set: A, B, C, ...
        options = record.options(scheme.items_key, scheme.tuple_size)
        return {"labels": {role: chr(ord("A") + options.index(value[role])) for role in ("best", "worst")}}

    def potato_fields(self, scheme, saved, record):
        # A, B, C, ... are the rows 1, 2, 3, ... the widget numbers.
        return {role: str(ord(letter) - ord("A") + 1) for role, letter in (saved.get("labels") or {}).items()
                if role in ("best", "worst") and isinstance(letter, str) and len(letter) == 1}

    def keys(self, scheme):
        # Potato's: 1, 2, 3, … pick the best of the rows in order, q, w, e, … the worst (nine rows have keys).
        rows = min(scheme.tuple_size, len(WORST_KEYS))
        return {**{str(row): f"best-{row}" for row in range(1, rows + 1)},
                **{key: f"worst-{row}" for row, key in enumerate(WORST_KEYS[:rows], 1)}}

    def widget_context(self, scheme, record, field, keys):
        keys = {choice: key for key, choice in keys.items()}
        compared = record.fields.get(scheme.items_key)
        return {"rows": [{"number": row, "option": str(option), "best": keys.get(f"best-{row}", ""),
                          "worst": keys.get(f"worst-{row}", "")}
                         for row, option in enumerate(compared if isinstance(compared, list) else [], 1)
                         if row <= scheme.tuple_size]}

    def compared_size(self, scheme):
        return scheme.tuple_size

    def form_fields(self, scheme, value, record=None):
        if record is None or not isinstance(value, dict):
            return {}
        options = record.options(scheme.items_key, scheme.tuple_size)
        return {part: str(options.index(value[part]) + 1) for part in ("best", "worst") if value.get(part) in options}

    def read(self, scheme, fields, record):
        options = record.options(scheme.items_key, scheme.tuple_size)
        best, worst = fields.get("best"), fields.get("worst")
        if not best and not worst:
            return None
        if not best or not worst:
            raise AnswerProblem(f"pick the {'best' if not best else 'worst'} too")
        numbers = [str(n) for n in range(1, len(options) + 1)]
        best, worst = pick(best, numbers, "options"), pick(worst, numbers, "options")
        if best == worst:
            raise AnswerProblem("the best and the worst must be different options")
        return {"best": options[int(best) - 1], "worst": options[int(worst) - 1]}

    def answer_schema(self, scheme):
        # The options are the item's own (its tuple): any of them, best and worst different.
        return {"type": "object", "properties": {"best": {"type": "string"}, "worst": {"type": "string"}},
                "required": ["best", "worst"], "additionalProperties": False}

    def from_potato(self, converted, importer):
        converted.setdefault("items_key", importer.text_key)
        # Potato draws its sets from single items by bws_config (designs.potato), whose tuple_size is the sets'.
        config = importer.raw.get("bws_config")
        if isinstance(config, dict) and config.get("tuple_size") is not None:
            converted.setdefault("tuple_size", config["tuple_size"])
        return [converted]
