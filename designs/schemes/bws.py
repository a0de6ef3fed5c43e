"""bws (best-worst scaling): the best and the worst of a tuple of options ("<prefix>-best", "<prefix>-worst")."""

from __future__ import annotations

from typing import Literal
from xml.sax.saxutils import quoteattr

from pydantic import Field

from designs.schemes.base import AnswerProblem, SchemeBase, SchemeType, pick, scheme_type
from designs.schemes.radio import RadioType


class BestWorst(SchemeBase):
    """Best-worst scaling: the best and the worst of a tuple; scores by counting across tuples."""

    annotation_type: Literal["bws"]
    items_key: str = Field("tuple", description="the item field holding the tuple")
    tuple_size: int = Field(4, ge=3, le=10, description="how many things each tuple holds")
    best_description: str = Field("Best", description="what the best pick is called on the page")
    worst_description: str = Field("Worst", description="what the worst pick is called on the page")


WORST_KEYS = "qwertyuio"  # the worst pick's keys, a row each: Potato's q, w, e, r for sets of four
ROLES = ("best", "worst")


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

    # Label Studio has no best-worst: a single Choices for each pick, under the pick's name, each taking its choices
    # from the task (value="$field"), where the task data holds the item's set as Label Studio lists choices.
    def labelstudio_control(self, scheme, to_name):
        required = ' required="true"' if scheme.required else ""
        field = quoteattr(f"${scheme.name}_choices")
        return "\n  ".join(f"<Header value={quoteattr(said)} size=\"6\"/><Choices name={quoteattr(name)} "
                            f"toName={quoteattr(to_name)} choice=\"single\" value={field}{required}/>"
                            for name, said in zip(self.labelstudio_names(scheme),
                                                  (scheme.best_description, scheme.worst_description), strict=True))

    def labelstudio_names(self, scheme):
        return [f"{scheme.name}_{role}" for role in ROLES]

    def labelstudio_data(self, scheme, record):
        options = record.fields.get(scheme.items_key)
        return {f"{scheme.name}_choices": [{"value": str(option)} for option in options]} if isinstance(
            options, list) else {}

    def labelstudio_results(self, scheme, value, to_name, regions):
        return [{"from_name": name, "type": "choices", "value": {"choices": [value[role]]}}
                for name, role in zip(self.labelstudio_names(scheme), ROLES, strict=True)]

    def from_labelstudio_results(self, scheme, results, regions):
        roles = dict(zip(self.labelstudio_names(scheme), ROLES, strict=True))
        return {roles[result["from_name"]]: (result["value"].get("choices") or [None])[0] for result in results}

    def labelstudio_gather(self, schemes, importer):
        """Two single Choices named <name>_best and <name>_worst, one after the other, each taking its choices from
        the same task field (value="$field"), as the export above writes best-worst: one best-worst again, of each
        task's set, its picks called as their headers call them and its question the header just above the best's.
        Left apart where <name> is taken or another control's condition names a pick."""
        taken = {scheme["name"] for scheme in schemes}
        for place in range(len(schemes) - 2, -1, -1):
            best, worst = schemes[place], schemes[place + 1]
            base, field = best["name"].removesuffix("_best"), best.get("dynamic_options_field")
            if not (best["name"].endswith("_best") and worst["name"] == f"{base}_worst" and base not in taken
                    and best["annotation_type"] == worst["annotation_type"] == RadioType.name
                    and best.get("dynamic_options") and worst.get("dynamic_options_field") == field
                    and not {best["name"], worst["name"]} & importer.conditioned):
                continue
            line, question = importer.header_above(best["name"])
            for pick_ in (best, worst):
                importer.take_header(pick_["name"], question=pick_ is best)
            control, _ = importer.task_choices_of.pop(best["name"])
            del importer.task_choices_of[worst["name"]]
            importer.task_choices_of[base] = (control, field)  # the set's size is read with the tasks
            importer.plain_choices.add(field)
            schemes[place:place + 2] = [{
                "annotation_type": self.name, "name": base, **({"description": question} if question else {}),
                "items_key": field, "best_description": best.get("description") or "Best",
                "worst_description": worst.get("description") or "Worst",
                **({"label_requirement": best["label_requirement"]} if "label_requirement" in best else {})}]
            importer.put_together(base, [best["name"], worst["name"]])
            importer.notes.append(f"<Choices> {best['name']} and {worst['name']} (line {line}): the best and the "
                                  f"worst of each task's {field}, {base!r}, as this platform's export writes one")

    def labelstudio_task_choices(self, scheme, listed, where):
        sizes = {len(values) for values in listed}
        if len(sizes) > 1:
            number = next(number for number, values in enumerate(listed, 1) if len(values) != len(listed[0]))
            raise ValueError(f"{where}: task {number} gives {len(listed[number - 1])} things to pick the best and "
                             f"the worst of and task 1 {len(listed[0])}; each task gives a set of the same size")
        scheme["tuple_size"] = sizes.pop()
        return f"each item's set of {scheme['tuple_size']} is its task's {scheme['items_key']}"

    def from_potato(self, converted, importer):
        converted.setdefault("items_key", importer.text_key)
        # Potato draws its sets from single items by bws_config (designs.potato), whose tuple_size is the sets'.
        config = importer.raw.get("bws_config")
        if isinstance(config, dict) and config.get("tuple_size") is not None:
            converted.setdefault("tuple_size", config["tuple_size"])
        return [converted]
