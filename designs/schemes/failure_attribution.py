"""failure_attribution: which agent of a multi-agent run caused its failure, at which step, and why (Potato's
failure_attribution; Zhang et al. 2025, "Which Agent Causes Task Failures and When?"): the agent and the step chosen
from the run's own steps (the item's `steps_key`), the reason written. "<prefix>-agent", "-step" (from 0) and
"-reason" hold them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from designs.dialogue import acting
from designs.schemes.base import AnswerProblem, SchemeBase, SchemeType, majority, scheme_type

SAID = ("content", "text", "action", "reasoning")  # what a step says, in the order Potato's page looks


class FailureAttribution(SchemeBase):
    """The agent whose step made a run fail, that step, and why."""

    annotation_type: Literal["failure_attribution"]
    steps_key: str = Field("steps", min_length=1, description="the item field holding the run's steps (a list)")
    agent_key: str = Field("agent", min_length=1, description="the step field naming its agent (else its speaker or "
                                                               "role)")
    agents: list[str] = Field([], description="the agents offered first, in this order; an agent acting in the run "
                                              "is offered too")


def steps(scheme: FailureAttribution, record: Any) -> list[tuple[str, str]]:
    """(agent, what it did) for each step of the run, as Potato's page names them ("step 3" for a step with no
    agent)."""
    found = record.fields.get(scheme.steps_key) if record is not None else None
    return [(agent, str(next((step[key] for key in SAID if step.get(key)), "")) if isinstance(step, dict)
             else "" if step is None else str(step))
            for agent, step in zip(acting(found, scheme.agent_key, "step"), found if isinstance(found, list) else [],
                                   strict=True)]


def roster(scheme: FailureAttribution, record: Any) -> list[str]:
    """The agents offered: the scheme's, then any other acting in the run, as Potato offers them."""
    return list(dict.fromkeys([*scheme.agents, *(agent for agent, _ in steps(scheme, record))]))


@scheme_type
class FailureAttributionType(SchemeType):
    name = "failure_attribution"
    settings = FailureAttribution
    aggregators = ("majority", "none")
    potato_keys = ("instructions", "steps_key", "agent_key", "agents")
    potato_json = True
    potato_order = ("responsible_agent", "decisive_step", "reason")
    page = {"value": "texts"}  # answered once any of the three is given, as Potato keeps a partial one
    style = "designs/failure_attribution.css"

    def item_problem(self, scheme, record):
        if not steps(scheme, record):
            return f"item {record.id!r} has no run under {scheme.steps_key!r} (a list of steps) to attribute"
        return None

    def widget_context(self, scheme, record, field, keys):
        return {"agents": roster(scheme, record),
                "steps": [(place, f"{place + 1}. [{agent}] {said[:60]}")
                          for place, (agent, said) in enumerate(steps(scheme, record))]}

    def read(self, scheme, fields, record):
        agent, step, reason = fields.get("agent"), fields.get("step"), fields.get("reason", 2000)
        if not (agent or step or reason):
            return None
        if agent and agent not in roster(scheme, record):
            raise AnswerProblem(f"{agent[:40]!r} is not an agent of this run ({', '.join(roster(scheme, record))})")
        count = len(steps(scheme, record))
        if step and (not step.isdecimal() or int(step) >= count):
            raise AnswerProblem(f"step {step[:10]!r} is not a step of this run (it has {count})")
        if scheme.required and not (agent and step):
            raise AnswerProblem("no " + " or ".join(part for part, given in (("responsible agent", agent),
                                                                              ("decisive step", step)) if not given)
                                + " chosen")
        return {"responsible_agent": agent, "decisive_step": int(step) if step else None, "reason": reason}

    def answer_schema(self, scheme):
        return {"type": "object", "required": ["responsible_agent", "decisive_step", "reason"],
                "additionalProperties": False, "properties": {
                    "responsible_agent": {"type": "string"},
                    "decisive_step": {"type": ["integer", "null"], "minimum": 0},
                    "reason": {"type": "string", "maxLength": 2000}}}

    def form_fields(self, scheme, value, record=None):
        if not isinstance(value, dict):
            return {}
        step = value.get("decisive_step")
        return {"agent": str(value.get("responsible_agent") or ""), "step": "" if step is None else str(step),
                "reason": str(value.get("reason") or "")}

    def units(self, scheme, value, text=""):
        # Agreement on who and on when, apart (the reason is free text).
        return {part: value[key] for part, key in (("agent", "responsible_agent"), ("step", "decisive_step"))
                if value[key] not in ("", None)}

    def combine(self, scheme, values):
        return {"responsible_agent": majority([value["responsible_agent"] for value in values]) or "",
                "decisive_step": majority([value["decisive_step"] for value in values]), "reason": ""}


    def told(self, scheme, record=None):
        run = "" if record is None else " Steps: " + "; ".join(
            f"{place}. [{agent}] {said}" for place, (agent, said) in enumerate(steps(scheme, record))) + "."
        agents = "" if record is None else f" Agents: {', '.join(roster(scheme, record))}."
        return ("Say which agent caused the failure, at which step (numbered from 0), and why, as "
                f"{{\"responsible_agent\", \"decisive_step\", \"reason\"}}.{agents}{run}")

    def card_labels(self, scheme):
        return "the responsible agent, the decisive step and why"
