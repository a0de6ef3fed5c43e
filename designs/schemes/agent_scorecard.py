"""agent_scorecard: a multi-agent run scored on two levels (Potato's agent_scorecard, after MultiAgentBench): each
agent of the run on each of `agent_dimensions`, the team on each of `team_dimensions`, points 1 to `scale`, and the
`milestones` reached ticked. "<prefix>-<agent from 0>-<dimension from 0>" holds an agent's point,
"<prefix>-team-<dimension>" the team's, "<prefix>-m-<milestone>" a milestone ticked; any cell may be left, and a
point picked again is taken back (designs/retract.js), as Potato's second click takes it back."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from designs.dialogue import acting
from designs.schemes.base import AnswerProblem, SchemeBase, SchemeType, majority, point, scheme_type


class AgentScorecard(SchemeBase):
    """Each agent of a run, and the team, scored on their dimensions; the milestones reached ticked."""

    annotation_type: Literal["agent_scorecard"]
    steps_key: str = Field("steps", min_length=1, description="the item field holding the run's steps (a list)")
    agent_key: str = Field("agent", min_length=1, description="the step field naming its agent (else its speaker or "
                                                               "role)")
    agents: list[str] = Field([], description="the agents scored first, in this order; an agent acting in the run "
                                              "is scored too")
    agent_dimensions: list[str] = Field(["role fidelity", "contribution", "coordination"],
                                        description="what each agent is scored on")
    team_dimensions: list[str] = Field(["coordination", "communication", "efficiency"],
                                       description="what the team is scored on")
    milestones: list[str] = Field([], description="what the run may have reached, each ticked or not")
    scale: int = Field(5, ge=2, le=10, description="the highest point (points from 1)")


def roster(scheme: AgentScorecard, record: Any) -> list[str]:
    """The agents scored: the scheme's, then any other acting in the run ("agent 3" for a step without one), as
    Potato's page lists them."""
    found = record.fields.get(scheme.steps_key) if record is not None else None
    return list(dict.fromkeys([*scheme.agents, *acting(found, scheme.agent_key)]))


@scheme_type
class AgentScorecardType(SchemeType):
    name = "agent_scorecard"
    settings = AgentScorecard
    aggregators = ("majority", "none")
    potato_keys = ("instructions", "steps_key", "agent_key", "agents", "agent_dimensions", "team_dimensions",
                   "milestones", "scale")
    potato_json = True
    potato_order = ("agents", "team", "milestones")
    level = "ordinal"
    page = {"value": "checked"}  # answered once a point is given or a milestone ticked
    script = "designs/retract.js"
    style = "designs/agent_scorecard.css"

    def item_problem(self, scheme, record):
        if not roster(scheme, record) and scheme.agent_dimensions:
            return f"item {record.id!r} has no agents to score (no steps under {scheme.steps_key!r})"
        return None

    def widget_context(self, scheme, record, field, keys):
        return {"agents": list(enumerate(roster(scheme, record))), "points": list(range(1, scheme.scale + 1))}

    def read(self, scheme, fields, record):
        agents: dict[str, dict[str, int]] = {}
        for place, agent in enumerate(roster(scheme, record)):
            given = {dimension: point(fields.get(f"{place}-{number_}"), scheme.scale, f"{agent}, {dimension}")
                     for number_, dimension in enumerate(scheme.agent_dimensions) if fields.get(f"{place}-{number_}")}
            if given:
                agents[agent] = given
        team = {dimension: point(fields.get(f"team-{place}"), scheme.scale, f"the team, {dimension}")
                for place, dimension in enumerate(scheme.team_dimensions) if fields.get(f"team-{place}")}
        reached = {milestone: True for place, milestone in enumerate(scheme.milestones) if fields.get(f"m-{place}")}
        if not (agents or team or reached):
            return None
        if scheme.required:
            total = len(roster(scheme, record)) * len(scheme.agent_dimensions) + len(scheme.team_dimensions)
            done = sum(map(len, agents.values())) + len(team)
            if done < total:
                raise AnswerProblem(f"{done} of {total} scored")
        return {"agents": agents, "team": team, "milestones": reached}

    def answer_schema(self, scheme):
        points = {"type": "integer", "minimum": 1, "maximum": scheme.scale}
        scores = {"type": "object", "propertyNames": {"enum": scheme.agent_dimensions}, "additionalProperties": points}
        return {"type": "object", "required": ["agents", "team", "milestones"], "additionalProperties": False,
                "properties": {"agents": {"type": "object", "additionalProperties": scores},
                               "team": {"type": "object", "propertyNames": {"enum": scheme.team_dimensions},
                                        "additionalProperties": points},
                               "milestones": {"type": "object", "propertyNames": {"enum": scheme.milestones},
                                              "additionalProperties": {"const": True}}}}

    def form_fields(self, scheme, value, record=None):
        if not isinstance(value, dict):
            return {}
        fields = {}
        places = {agent: place for place, agent in enumerate(roster(scheme, record))}
        for agent, given in (value.get("agents") or {}).items():
            for place, dimension in enumerate(scheme.agent_dimensions):
                if agent in places and isinstance(given, dict) and given.get(dimension):
                    fields[f"{places[agent]}-{place}"] = str(given[dimension])
        for place, dimension in enumerate(scheme.team_dimensions):
            if (value.get("team") or {}).get(dimension):
                fields[f"team-{place}"] = str(value["team"][dimension])
        fields.update({f"m-{place}": "1" for place, milestone in enumerate(scheme.milestones)
                       if (value.get("milestones") or {}).get(milestone)})
        return fields

    def units(self, scheme, value, text=""):
        # Agreement per cell: an agent's dimension, or the team's.
        return {**{f"{agent} · {dimension}": point for agent, given in value["agents"].items()
                   for dimension, point in given.items()},
                **{f"team · {dimension}": point for dimension, point in value["team"].items()}}

    def combine(self, scheme, values):
        agents: dict[str, dict[str, int]] = {}
        for agent in dict.fromkeys(agent for value in values for agent in value["agents"]):
            given = {dimension: majority([value["agents"][agent][dimension] for value in values
                                          if dimension in value["agents"].get(agent, {})])
                     for dimension in scheme.agent_dimensions}
            agents[agent] = {dimension: point for dimension, point in given.items() if point is not None}
        team = {dimension: majority([value["team"][dimension] for value in values if dimension in value["team"]])
                for dimension in scheme.team_dimensions}
        reached = {milestone: True for milestone in scheme.milestones
                   if sum(milestone in value["milestones"] for value in values) * 2 > len(values)}
        return {"agents": agents, "team": {key: point for key, point in team.items() if point is not None},
                "milestones": reached}


    def potato_ordered(self, scheme, value, record):
        # The agents in the roster's order, the dimensions and milestones in the scheme's, as Potato's page adds them.
        agents = [*roster(scheme, record), *(agent for agent in value["agents"] if agent not in roster(scheme, record))]
        return {"agents": {agent: {dimension: value["agents"][agent][dimension] for dimension in scheme.agent_dimensions
                                   if dimension in value["agents"][agent]}
                           for agent in agents if agent in value["agents"]},
                "team": {dimension: value["team"][dimension] for dimension in scheme.team_dimensions
                         if dimension in value["team"]},
                "milestones": {milestone: True for milestone in scheme.milestones if milestone in value["milestones"]}}

    def told(self, scheme, record=None):
        agents = "" if record is None else f" Agents: {', '.join(roster(scheme, record))}."
        milestones = f" Milestones (true if reached): {', '.join(scheme.milestones)}." if scheme.milestones else ""
        return (f"Score each agent on {', '.join(scheme.agent_dimensions)} and the team on "
                f"{', '.join(scheme.team_dimensions)}, 1 to {scheme.scale}, as {{\"agents\": {{agent: {{dimension: "
                f"point}}}}, \"team\": {{dimension: point}}, \"milestones\": {{milestone: true}}}}.{agents}"
                f"{milestones}")

    def card_labels(self, scheme):
        return f"1 to {scheme.scale} for each agent and the team"
