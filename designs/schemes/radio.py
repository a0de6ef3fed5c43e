"""radio: one label of several, as radio buttons (keys pick them when the labels have keys)."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from designs.schemes.base import (
    OTHER_SCHEMA,
    Fields,
    ItemLabels,
    LabelledScheme,
    SchemeBase,
    SchemeType,
    choices_control,
    free_response,
    no_labels_shown,
    one_of,
    pick,
    scheme_type,
    shown_labels,
)


class Radio(ItemLabels, LabelledScheme):
    """One label of several, as radio buttons (keys pick them when the labels have keys)."""

    annotation_type: Literal["radio"]
    horizontal: bool = Field(False, description="the labels in a row instead of a column")


@scheme_type
class RadioType(SchemeType):
    name = "radio"
    # Declared as wide as SchemeType's: select (designs.schemes.select) is a radio with settings of its own.
    settings: ClassVar[type[SchemeBase]] = Radio
    nests = True
    aggregators = ("majority", "threshold", "dawid-skene", "mace", "none")
    potato_keys: ClassVar[tuple[str, ...]] = ("labels", "sequential_key_binding", "has_free_response", "horizontal",
                                              "dynamic_options", "dynamic_options_field")
    potato_aliases: ClassVar[tuple[str, ...]] = ("triage", "randomized_response")
    potato_humanizes = True
    labelstudio_tags: ClassVar[tuple[str, ...]] = ("Choices",)
    page = {"badges": "1"}
    categorical = True
    asked_once = True

    def read(self, scheme, fields: Fields, record):
        value = fields.get()
        if not value:
            return None
        if scheme.has_free_response and value == "_other":
            return free_response(fields)
        shown = shown_labels(scheme, record)
        return pick(value, [label.name for label in scheme.labels] if shown is None else shown,
                    "labels" if shown is None else "labels this item shows")

    def item_problem(self, scheme, record):
        return no_labels_shown(scheme, record)

    def widget_context(self, scheme, record, field, keys):
        return {"shown": shown_labels(scheme, record)}

    def answer_schema(self, scheme):
        labels = one_of([label.name for label in scheme.labels])
        if scheme.has_free_response:
            return {"anyOf": [labels, OTHER_SCHEMA]}
        return labels

    def keys(self, scheme):
        return scheme.keys()

    def labelstudio_claims(self, control):
        return control.tag == "Choices" and control.attrs.get("choice", "single") != "multiple"

    def from_labelstudio(self, control, importer):
        own = {"labels": importer.choices(control), **importer.task_choices(control)}
        return {**own, "horizontal": True} if control.attrs.get("showInline") == "true" else own

    def labelstudio_control(self, scheme, to_name):
        return choices_control(scheme, to_name, "single")

    def labelstudio_value(self, scheme, value):
        return {"choices": [value]}

    def form_fields(self, scheme, value, record=None):
        return {"": value}

    def from_labelstudio_results(self, scheme, results, regions):
        picked = results[0]["value"].get("choices") or [None]
        return picked[0]

    def potato_alias_answer(self, alias, scheme, value, record, settings=None):
        # Potato's triage stores its pick in one hidden input, "decision"; a randomized response is its radio.
        if alias == "triage":
            return {"labels": {"decision": str(value)}}
        return self.potato_answer(scheme, value, record)

    def potato_alias_fields(self, alias, scheme, saved, record, settings=None):
        if alias == "triage":
            found = (saved.get("labels") or {}).get("decision")
            return {"": str(found)} if found else {}
        return self.potato_fields(scheme, saved, record)

    def potato_alias(self, scheme, importer):
        if scheme.get("annotation_type") == "randomized_response":
            return _randomized_response(scheme)
        # Potato's triage: accept, reject or skip, shown as Keep, Discard and Unsure on keys 1, 2 and 3 unless the
        # config names others (Potato 2.12.1's defaults, as its page shows them; its docstring's a/r/s are stale).
        labels = [{"name": name, "key_value": str(scheme.get(f"{name}_key", key)),
                   "description": str(scheme.get(f"{name}_label") or shown)}
                  for name, key, shown in (("accept", "1", "Keep"), ("reject", "2", "Discard"),
                                           ("skip", "3", "Unsure"))]
        return ({"labels": labels, "horizontal": True},
                "a triage (accept, reject, skip), run as a radio scheme on the same keys")


# Potato 2.12.1's forced-response rule when the config gives none, and the crosswise model's two answers
# (survey_experiment_common.py).
RANDOMIZER = ("Think of the month your mother was born in, and do not tell anyone. If it is January or February, "
              "answer Yes. If it is March or April, answer No. Otherwise, answer the question truthfully.")
CROSSWISE = ("Both statements are true, or neither is", "Exactly one statement is true")


def _randomized_response(scheme: dict) -> tuple[dict, str]:
    """Potato's randomized_response as a radio in a row: forced response (its randomizer's rule, then the question,
    answered Yes or No) or crosswise (the sensitive and the other statement, answered by whether both or neither
    hold, or one). The question's text is under the scheme's title, as Potato shows it."""
    method = scheme.get("method", "forced_response")
    question = str(scheme.get("question") or scheme.get("description") or "")
    if method == "crosswise":
        other = str(scheme.get("nonsensitive_statement") or "")
        if not other:
            raise ValueError("method crosswise needs nonsensitive_statement, the statement of known prevalence")
        shown, labels = f"1. {question}\n2. {other}\n\nWhich is the case for you?", list(CROSSWISE)
    elif method == "forced_response":
        shown, labels = f"{scheme.get('randomizer') or RANDOMIZER}\n\n{question}", ["Yes", "No"]
    else:
        raise ValueError(f"method is {method!r}; write forced_response or crosswise")
    return ({"labels": labels, "horizontal": True, "instructions": shown},
            f"a randomized response ({method}), run as a radio in a row; the prevalence estimate Potato's "
            f"survey_experiments export computes is not computed here")
