"""agent_interaction_graph: a multi-agent run drawn as the graph of who hands over to whom (Potato's
agent_interaction_graph, after AgentGraph): a node per agent acting in the run's steps, an arrow for each change of
acting agent (thicker the more often it happens), on a circle; the annotator marks the agents on the critical path
(in the order marked) and flags arrows critical or problematic (each press moves an arrow on: normal, critical,
problematic). The page keeps the answer as JSON in the scheme's field (designs/agent_interaction_graph.js), the
flagged arrows as a list in the order first flagged, as Potato's object keeps them."""

from __future__ import annotations

import json
import math
from itertools import pairwise
from typing import Any, Literal

from pydantic import Field

from designs.dialogue import acting
from designs.schemes.base import AnswerProblem, SchemeBase, SchemeType, majority, scheme_type

STATUSES = ("critical", "problematic")  # an arrow's flags, after "normal"
CENTRE, RADIUS, NODE = (210, 165), 120, 30  # Potato's circle in its 420 by 340 drawing


class AgentInteractionGraph(SchemeBase):
    """The critical path and the problem handoffs of a multi-agent run, on its interaction graph."""

    annotation_type: Literal["agent_interaction_graph"]
    steps_key: str = Field("steps", min_length=1, description="the item field holding the run's steps (a list)")
    agent_key: str = Field("agent", min_length=1, description="the step field naming its agent (else its speaker or "
                                                               "role)")


def graph(scheme: AgentInteractionGraph, record: Any) -> tuple[list[str], list[dict[str, Any]]]:
    """The run's agents in the order they first act, and its handoffs (each change of acting agent) in the order
    they first happen, each with how often, as Potato's page builds them."""
    found = record.fields.get(scheme.steps_key) if record is not None else None
    agents = acting(found, scheme.agent_key)
    counts: dict[tuple[str, str], int] = {}
    for before, after in pairwise(agents):
        if before != after:
            counts[before, after] = counts.get((before, after), 0) + 1
    return list(dict.fromkeys(agents)), [{"from": one, "to": other, "count": count}
                                         for (one, other), count in counts.items()]


def drawn(nodes: list[str], edges: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Where Potato's drawing puts each agent (a circle, the first at the top) and each arrow (a curve between the
    two circles, set off to one side so that A to B and B to A do not overlap)."""
    radius = 0 if len(nodes) == 1 else RADIUS
    places = {}
    for place, node in enumerate(nodes):
        angle = -math.pi / 2 + 2 * math.pi * place / len(nodes)
        places[node] = (CENTRE[0] + radius * math.cos(angle), CENTRE[1] + radius * math.sin(angle))
    shown_nodes = [{"name": node, "x": f"{places[node][0]:.2f}", "y": f"{places[node][1]:.2f}",
                    "label": node if len(node) <= 8 else node[:7] + "…"} for node in nodes]
    shown_edges = []
    for edge in edges:
        (ax, ay), (bx, by) = places[edge["from"]], places[edge["to"]]
        length = math.hypot(bx - ax, by - ay) or 1
        ux, uy = (bx - ax) / length, (by - ay) / length
        ox, oy = -uy * 10, ux * 10
        sx, sy, ex, ey = ax + ux * NODE + ox, ay + uy * NODE + oy, bx - ux * NODE + ox, by - uy * NODE + oy
        mx, my = (sx + ex) / 2 + ox * 1.2, (sy + ey) / 2 + oy * 1.2
        shown_edges.append({**edge, "key": f"{edge['from']}->{edge['to']}", "width": min(2 + edge["count"], 6),
                            "path": f"M{sx:.2f},{sy:.2f} Q{mx:.2f},{my:.2f} {ex:.2f},{ey:.2f}"})
    return shown_nodes, shown_edges


@scheme_type
class AgentInteractionGraphType(SchemeType):
    name = "agent_interaction_graph"
    settings = AgentInteractionGraph
    aggregators = ("majority", "none")
    potato_keys = ("steps_key", "agent_key")
    potato_json = True
    potato_order = ("critical_nodes", "edges")
    style = "designs/agent_interaction_graph.css"
    script = "designs/agent_interaction_graph.js"

    def item_problem(self, scheme, record):
        if not graph(scheme, record)[0]:
            return f"item {record.id!r} has no steps under {scheme.steps_key!r} to draw"
        return None

    def widget_context(self, scheme, record, field, keys):
        nodes, edges = drawn(*graph(scheme, record))
        return {"nodes": nodes, "edges": edges}

    def read(self, scheme, fields, record):
        text = fields.get()
        if not text:
            return None
        try:
            given = json.loads(text)
        except ValueError:
            raise AnswerProblem("the graph's marks cannot be read; mark them again") from None
        if not isinstance(given, dict):
            raise AnswerProblem("the graph's marks cannot be read; mark them again")
        nodes, edges = graph(scheme, record)
        critical = given.get("critical_nodes") or []
        flagged = given.get("edges") or []
        if not isinstance(critical, list) or any(node not in nodes for node in critical) or len(
                set(critical)) < len(critical):
            raise AnswerProblem(f"the critical path names agents not in the run; its agents are {', '.join(nodes)}")
        handoffs = {(edge["from"], edge["to"]) for edge in edges}
        if not isinstance(flagged, list) or any(
                not isinstance(edge, dict) or (edge.get("from"), edge.get("to")) not in handoffs
                or edge.get("status") not in STATUSES for edge in flagged):
            raise AnswerProblem("a flagged handoff is not one of the run's, or is neither critical nor problematic")
        if len({(edge["from"], edge["to"]) for edge in flagged}) < len(flagged):
            raise AnswerProblem("a handoff is flagged twice")
        if not (critical or flagged):
            return None
        return {"critical_nodes": critical,
                "edges": [{"from": edge["from"], "to": edge["to"], "status": edge["status"]} for edge in flagged]}

    def answer_schema(self, scheme):
        edge = {"type": "object", "required": ["from", "to", "status"], "additionalProperties": False,
                "properties": {"from": {"type": "string"}, "to": {"type": "string"},
                               "status": {"enum": list(STATUSES)}}}
        return {"type": "object", "required": ["critical_nodes", "edges"], "additionalProperties": False,
                "properties": {"critical_nodes": {"type": "array", "uniqueItems": True, "items": {"type": "string"}},
                               "edges": {"type": "array", "items": edge}}}

    def form_fields(self, scheme, value, record=None):
        return {"": json.dumps(value, ensure_ascii=False)} if isinstance(value, dict) else {}

    def units(self, scheme, value, text=""):
        # Agreement per agent (on the path or not) and per flagged handoff.
        return {**{f"on the path · {node}": True for node in value["critical_nodes"]},
                **{f"{edge['from']} → {edge['to']}": edge["status"] for edge in value["edges"]}}

    def combine(self, scheme, values):
        half = len(values) / 2
        nodes = [node for node in dict.fromkeys(node for value in values for node in value["critical_nodes"])
                 if sum(node in value["critical_nodes"] for value in values) > half]
        flagged = []
        for key in dict.fromkeys((edge["from"], edge["to"]) for value in values for edge in value["edges"]):
            given = [edge["status"] for value in values for edge in value["edges"] if (edge["from"], edge["to"]) == key]
            status = majority(given)
            if status is not None and len(given) > half:
                flagged.append({"from": key[0], "to": key[1], "status": status})
        return {"critical_nodes": nodes, "edges": flagged}

    def potato_ordered(self, scheme, value, record):
        # Potato's object of flagged edges ("A->B": status), in the order first flagged; a part with none left out.
        return {**({"critical_nodes": value["critical_nodes"]} if value["critical_nodes"] else {}),
                **({"edges": {f"{edge['from']}->{edge['to']}": edge["status"] for edge in value["edges"]}}
                   if value["edges"] else {})}

    def potato_fields(self, scheme, saved, record):
        found = (saved.get("labels") or {}).get(scheme.name)
        if not found:
            return {}
        given = json.loads(found)
        edges = [{"from": key.split("->", 1)[0], "to": key.split("->", 1)[-1], "status": status}
                 for key, status in (given.get("edges") or {}).items()]
        return self.form_fields(scheme, {"critical_nodes": given.get("critical_nodes") or [], "edges": edges})

    def told(self, scheme, record=None):
        listed = ""
        if record is not None:
            nodes, edges = graph(scheme, record)
            listed = (f" Agents: {', '.join(nodes)}. Handoffs: "
                      + ("; ".join(f"{edge['from']} → {edge['to']} ({edge['count']}×)" for edge in edges) or "none")
                      + ".")
        return ("Name the agents on the critical path, in order, and flag any handoff critical or problematic, as "
                "{\"critical_nodes\": [agent, ...], \"edges\": [{\"from\": agent, \"to\": agent, \"status\": "
                f"\"critical\" or \"problematic\"}}]}}.{listed}")

    def card_labels(self, scheme):
        return "critical path; handoffs critical or problematic"
