"""multiselect: any set of the scheme's labels, one checkbox each ("<prefix>-<label number>")."""

from __future__ import annotations

from collections import Counter
from typing import Literal
from xml.sax.saxutils import quoteattr

from pydantic import Field

from designs.schemes.base import (
    OTHER_SCHEMA,
    AnswerProblem,
    ItemLabels,
    LabelledScheme,
    SchemeType,
    choices_control,
    free_response,
    no_labels_shown,
    one_of,
    scheme_type,
    shown_labels,
)

PATH = " › "  # between the nodes of a taxonomy's path, in a box's name


class Multiselect(ItemLabels, LabelledScheme):
    """Any number of labels, as checkboxes."""

    annotation_type: Literal["multiselect"]
    min_selected: int = Field(0, ge=0, description="fewest labels an answer may tick")
    max_selected: int | None = Field(None, ge=1, description="most labels an answer may tick")


@scheme_type
class MultiselectType(SchemeType):
    name = "multiselect"
    settings = Multiselect
    aggregators = ("majority", "none")
    potato_keys = ("labels", "sequential_key_binding", "has_free_response", "min_selected", "max_selected",
                   "dynamic_options", "dynamic_options_field")
    potato_aliases = ("hierarchical_multiselect",)
    potato_humanizes = True
    labelstudio_tags = ("Choices", "Taxonomy")
    page = {"badges": "1", "value": "checked", "keyAction": "toggle"}
    asked_once = True

    def read(self, scheme, fields, record):
        chosen = [label.name for number, label in enumerate(scheme.labels, 1) if fields.get(str(number))]
        shown = shown_labels(scheme, record)
        hidden = [label for label in chosen if shown is not None and label not in shown]
        if hidden:
            raise AnswerProblem(f"{hidden[0]!r} is not one of the labels this item shows ({', '.join(shown or [])})")
        if scheme.has_free_response and fields.get("other"):
            other = free_response(fields)
            if other is None:
                raise AnswerProblem("say what the Other is, or untick it")
            chosen.append(other)
        if not chosen:
            return None
        if len(chosen) < scheme.min_selected:
            raise AnswerProblem(f"pick at least {scheme.min_selected} (you picked {len(chosen)})")
        if scheme.max_selected is not None and len(chosen) > scheme.max_selected:
            raise AnswerProblem(f"pick at most {scheme.max_selected} (you picked {len(chosen)})")
        return chosen

    def answer_schema(self, scheme):
        labels = one_of([label.name for label in scheme.labels])
        if scheme.has_free_response:
            labels = {"anyOf": [labels, OTHER_SCHEMA]}
        schema = {"type": "array", "items": labels, "uniqueItems": True, "minItems": max(1, scheme.min_selected)}
        if scheme.max_selected is not None:
            schema["maxItems"] = scheme.max_selected
        return schema

    def units(self, scheme, value, text=""):
        # Agreement per label: was it chosen? (A set compared whole would count near misses as full misses.)
        return {label.name: label.name in value for label in scheme.labels}

    def combine(self, scheme, values):
        counts = Counter(label for value in values for label in value)
        return sorted(label for label, count in counts.items() if count * 2 > len(values))

    def keys(self, scheme):
        return scheme.keys()

    def item_problem(self, scheme, record):
        return no_labels_shown(scheme, record)

    def widget_context(self, scheme, record, field, keys):
        return {"shown": shown_labels(scheme, record)}

    def labelstudio_claims(self, control):
        return control.tag == "Taxonomy" or (control.tag == "Choices" and control.attrs.get("choice") == "multiple")

    def from_labelstudio(self, control, importer):
        if control.tag == "Taxonomy":
            # A taxonomy's nodes are boxes named by their paths, as Potato's hierarchical_multiselect runs here.
            return {"labels": [PATH.join(path) for path in importer.tree(control)]}
        return {"labels": importer.choices(control), **importer.task_choices(control)}

    def labelstudio_control(self, scheme, to_name):
        if not _tree(scheme):
            return choices_control(scheme, to_name, "multiple")
        # Boxes named by paths are a taxonomy (Label Studio's, or Potato's hierarchical_multiselect): its tree again.
        def nodes(above):
            return "".join(f"<Choice value={quoteattr(path[-1])}>{nodes(path)}</Choice>" for path in _tree(scheme)
                           if len(path) == len(above) + 1 and path[:-1] == above)
        return (f"<Taxonomy name={quoteattr(scheme.name)} toName={quoteattr(to_name)}"
                + (' required="true"' if scheme.required else "") + f">{nodes(())}</Taxonomy>")

    def labelstudio_results(self, scheme, value, to_name, regions):
        if _tree(scheme):
            return [{"type": "taxonomy", "value": {"taxonomy": [name.split(PATH) for name in value]}}]
        return [{"type": "choices", "value": {"choices": list(value)}}]

    def form_fields(self, scheme, value, record=None):
        return {str(number): "1" for number, label in enumerate(scheme.labels, 1) if label.name in value}

    def from_labelstudio_results(self, scheme, results, regions):
        value = results[0]["value"]
        if "taxonomy" in value:
            return [PATH.join(path) for path in value["taxonomy"]]
        return list(value.get("choices", []))

    def potato_alias_answer(self, alias, scheme, value, record, settings=None):
        # Potato's hierarchical multiselect keeps the ticked nodes' own names, joined by commas, in one input.
        return {"labels": {"selected_labels": ",".join(path.split(PATH)[-1] for path in value)}}

    def potato_alias_fields(self, alias, scheme, saved, record, settings=None):
        # Each ticked node by its own name: the label whose path ends in it (a name two nodes share is refused).
        ends: dict[str, list[str]] = {}
        for label in scheme.labels:
            ends.setdefault(label.name.split(PATH)[-1], []).append(label.name)
        found = (saved.get("labels") or {}).get("selected_labels") or ""
        ticked = []
        for name in filter(None, found.split(",")):
            if len(ends.get(name, [])) != 1:
                raise ValueError(f"{name!r} is {'no node' if name not in ends else 'the name of several nodes'} "
                                 f"of the taxonomy")
            ticked.append(ends[name][0])
        return self.form_fields(scheme, ticked) if ticked else {}

    def potato_alias(self, scheme, importer):
        # A taxonomy: each of its nodes a box, named by its path ("Animals › Mammals"), in the tree's order.
        if not isinstance(scheme.get("taxonomy"), dict | list) or not scheme["taxonomy"]:
            raise ValueError(f"taxonomy is {scheme.get('taxonomy')!r}; give the tree as {{name: [children]}} or a "
                             f"list of names")
        paths = _paths(scheme["taxonomy"])
        most = scheme.get("max_selections")
        return ({"labels": paths, **({"max_selected": most} if isinstance(most, int) and most >= 1 else {})},
                f"a taxonomy of {len(paths)} nodes, run as boxes named by their paths (no folding, no search)")


def _tree(scheme) -> list[tuple[str, ...]]:
    """The boxes as the paths of a taxonomy, when their names are paths ("Eukarya › Human"), else []."""
    if not any(PATH in label.name for label in scheme.labels):
        return []
    return [tuple(label.name.split(PATH)) for label in scheme.labels]


def _paths(tree, above: str = "") -> list[str]:
    """Every node of a taxonomy ({name: children} or [names], nested) as its path, parents before children."""
    found: list[str] = []
    entries = tree.items() if isinstance(tree, dict) else ((entry, None) for entry in
                                                            (tree if isinstance(tree, list) else []))
    for name, children in entries:
        if isinstance(name, dict):
            found += _paths(name, above)
            continue
        path = f"{above}{PATH}{name}" if above else str(name)
        found.append(path)
        if children:
            found += _paths(children, path)
    return found
