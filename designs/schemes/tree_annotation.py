"""tree_annotation: a conversation tree (an item field holding a node {id, speaker, text, children: [nodes]}, Potato's
conversation_tree display) drawn as Potato draws it, each node asked `node_scheme` (a radio, select, likert or
number scheme of its own) and, with `path_selection`, a path of nodes marked in the order they are marked (Potato's
tree_annotation). A node's answer is the form's "<prefix>-n<node's place>" read as its scheme reads its own; the path
is "<prefix>-path", the nodes' ids as JSON, which designs/tree_annotation.js writes. The answer is {"nodes": {node id:
answer}, "path": [node ids]}."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import Field, PrivateAttr, model_validator

from designs.dialogue import TREE_NODES, tree_nodes
from designs.schemes.base import (
    SCHEME_TYPES,
    AnswerProblem,
    SchemeBase,
    SchemeType,
    Strict,
    majority,
    read_json,
    scheme_type,
)


class PathSelection(Strict):
    enabled: bool = False
    description: str = Field("Select the best response path", description="what the path is, said above it")


class BranchComparison(Strict):
    enabled: bool = Field(False, description="Potato's; read and kept: its page draws nothing for it either")


class TreeAnnotation(SchemeBase):
    """A conversation tree, each node asked a scheme of its own, and a path of nodes marked."""

    annotation_type: Literal["tree_annotation"]
    tree_field: str = Field("tree", min_length=1, description="the item field holding the tree's root node")
    node_scheme: dict[str, Any] | None = Field(None, description="the scheme asked of each node (a radio, select, "
                                                                 "likert or number scheme; its name and question "
                                                                 "may be left out)")
    path_selection: PathSelection = PathSelection()
    branch_comparison: BranchComparison = BranchComparison()
    _node: Any = PrivateAttr(None)  # node_scheme as its type's settings, read once

    @model_validator(mode="after")
    def _asks_something(self) -> TreeAnnotation:
        if self.node_scheme is None and not self.path_selection.enabled:
            raise ValueError("a tree annotation asks nothing: give a node_scheme, or path_selection: {enabled: true}")
        self._node = _read_node(self)  # a node scheme that is not one is named now, not on the page
        return self


def _read_node(scheme: TreeAnnotation) -> Any:
    if scheme.node_scheme is None:
        return None
    kind_name = str(scheme.node_scheme.get("annotation_type", ""))
    nested = [kind.name for kind in SCHEME_TYPES.in_order() if kind.nests]
    if kind_name not in nested:
        raise ValueError(f"node_scheme: annotation_type {kind_name!r} cannot be asked of each node; it may be "
                         f"{', '.join(nested)}")
    return SCHEME_TYPES.get(kind_name).settings.model_validate(
        {"name": f"{scheme.name}_node", "description": "Annotate this node", **scheme.node_scheme})


def node_of(scheme: TreeAnnotation) -> Any:
    """The scheme asked of each node, as its type's settings (named "<tree>_node" and asking "Annotate this node"
    unless it says otherwise, as Potato's page names it), or None."""
    return scheme._node


def nodes(scheme: TreeAnnotation, record: Any) -> list[dict[str, Any]]:
    """The tree's nodes as read (designs.dialogue.tree_nodes), each {id, speaker, text, depth, replies, asked}."""
    return tree_nodes(record.fields.get(scheme.tree_field)) if record is not None else []


@scheme_type
class TreeAnnotationType(SchemeType):
    name = "tree_annotation"
    settings = TreeAnnotation
    aggregators = ("majority", "none")
    potato_keys = ("node_scheme", "path_selection", "branch_comparison")
    level = None  # node by node answers and a path: combined, not compared as one value
    script = "designs/tree_annotation.js"
    style = "designs/tree_annotation.css"

    def item_problem(self, scheme, record):
        found = nodes(scheme, record)
        if not found:
            return (f"item {record.id!r} has no conversation tree under {scheme.tree_field!r} (a node with its id, "
                    f"speaker, text and children)")
        ids = [node["id"] for node in found]
        if len(set(ids)) < len(ids):
            return f"item {record.id!r} has two nodes with the same id in its tree; each node's id must differ"
        return None

    def draws(self, scheme):
        return scheme.tree_field

    def widget_context(self, scheme, record, field, keys):
        node = node_of(scheme)
        kind = SCHEME_TYPES.of(node) if node is not None else None
        shown = []
        for place, found in enumerate(nodes(scheme, record)):
            part = f"{field}-n{place}"
            entry = {"points": kind.points(node), "keys": {}, **kind.widget_context(node, record, part, {})} \
                if kind is not None and found["asked"] else None
            shown.append({**found, "field": part, "entry": entry})
        return {"nodes": shown, "node": node, "node_widget": kind.widget if kind is not None else ""}

    def read(self, scheme, fields, record):
        found = nodes(scheme, record)
        node = node_of(scheme)
        given = {}
        if node is not None:
            kind = SCHEME_TYPES.of(node)
            for place, each in enumerate(found):
                if not each["asked"]:
                    continue
                try:
                    value = kind.read(node, fields.part(f"n{place}"), record)
                except AnswerProblem as problem:
                    raise AnswerProblem(f"{each['speaker'] or 'node'} {each['id']!r}: {problem}") from None
                if value is not None:
                    given[each["id"]] = value
        path = read_json(fields.part("path"), "path", "mark the path again") if scheme.path_selection.enabled else None
        ids = [each["id"] for each in found]
        if path is not None:
            if not isinstance(path, list) or not all(isinstance(step, str) and step in ids for step in path):
                raise AnswerProblem(f"the path must be node ids of this tree ({', '.join(ids[:10])})")
            if len(set(path)) < len(path):
                raise AnswerProblem("the path names a node twice")
        if not given and not path:
            return None
        return {"nodes": given, "path": path or []}

    def answer_schema(self, scheme):
        node = node_of(scheme)
        value = SCHEME_TYPES.of(node).answer_schema(node) if node is not None else False
        return {"type": "object", "required": ["nodes", "path"], "additionalProperties": False,
                "properties": {"nodes": {"type": "object", "additionalProperties": value},
                               "path": {"type": "array", "items": {"type": "string"}, "maxItems": TREE_NODES}}}

    def form_fields(self, scheme, value, record=None):
        node = node_of(scheme)
        fields = {"path": json.dumps(value["path"])} if value["path"] else {}
        if node is not None:
            kind = SCHEME_TYPES.of(node)
            for place, each in enumerate(nodes(scheme, record)):
                if each["id"] in value["nodes"]:
                    fields.update({f"n{place}" + (f"-{part}" if part else ""): text for part, text in
                                   kind.form_fields(node, value["nodes"][each["id"]], record).items()})
        return fields

    def units(self, scheme, value, text=""):
        return {node: answer for node, answer in value["nodes"].items()}  # agreement node by node

    def combine(self, scheme, values):
        """Each node's most given answer among those who answered it, and the most given path."""
        answered = dict.fromkeys(node for value in values for node in value["nodes"])
        most = {node: majority([value["nodes"][node] for value in values if node in value["nodes"]])
                for node in answered}
        return {"nodes": {node: answer for node, answer in most.items() if answer is not None},  # a tie: none
                "path": list(majority([tuple(value["path"]) for value in values]) or ())}

    def potato_answer(self, scheme, value, record):
        # Potato keeps the path and each node's answers as JSON in two hidden inputs, the node's under the node
        # scheme's name, as text (static/conversation-tree.js); an empty one is not kept.
        node = node_of(scheme)
        labels = {}
        if value["path"]:
            labels["selected_path"] = json.dumps(value["path"], separators=(",", ":"))
        if value["nodes"] and node is not None:
            labels["node_annotations"] = json.dumps({each: {node.name: str(answer)} for each, answer in
                                                     value["nodes"].items()}, separators=(",", ":"))
        return {"labels": labels}

    def potato_fields(self, scheme, saved, record):
        labels, node = saved.get("labels") or {}, node_of(scheme)
        answers = json.loads(labels.get("node_annotations") or "{}")
        value = {"path": json.loads(labels.get("selected_path") or "[]"),
                 "nodes": {each: found[node.name] for each, found in answers.items() if node is not None}}
        return self.form_fields(scheme, value, record) if value["path"] or value["nodes"] else {}

    def from_potato(self, converted, importer):
        # Potato draws the tree with its conversation_tree display; here the scheme draws it from that field.
        trees = importer.displayed("conversation_tree")
        converted.setdefault("tree_field", trees[0] if trees else importer.text_key)
        return [converted]

    def told(self, scheme, record=None):
        if record is None:
            return ""
        node = node_of(scheme)
        asked = f" Of each node: {node.description}." if node is not None else ""
        path = f" {scheme.path_selection.description.rstrip('.')}: list the node ids in order." \
            if scheme.path_selection.enabled else ""
        return ("The conversation, node by node (id, speaker, text):"
                + "".join(f" [{each['id']}] {each['speaker']}: {each['text']}" for each in nodes(scheme, record))
                + f".{asked}{path}")

    def card_labels(self, scheme):
        node = node_of(scheme)
        parts = [f"{node.annotation_type} of each node" if node is not None else "",
                 "a path of nodes" if scheme.path_selection.enabled else ""]
        return " and ".join(part for part in parts if part)

