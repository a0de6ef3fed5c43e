"""Between-subjects conditions (Potato's `conditions` block): each person who works on a batch is given one cell,
a level of every factor, the first time they open one of its pages, and keeps it for the batch. A page shows
what their cell's levels allow: an element marked `data-condition-only="<factor>=<level>"` (a list experiment's
sensitive statement) is taken out of the HTML of everyone in another level, so it is not in their page at all.

The cell is chosen as Potato's ConditionAssigner chooses it (server_utils/experiment_conditions.py): `balanced`
gives the cell furthest below its weighted share (a tie drawn per person), `random` draws by weight with a seed of
the person, `round_robin` takes the cells in turn by arrival; `max_per_cell` closes a full cell (when all are
full, the least filled is taken, as Potato does); `balance_on: completed` counts only those who submitted, so a
dropout is replaced."""

from __future__ import annotations

import hashlib
import html
import itertools
import random
import re
import statistics
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from designs.schemes.base import Strict

CONDITION = "condition."  # display logic on a person's condition names "condition.<factor>" as its schema
ONLY = re.compile(r'<(?P<tag>[a-z]+) data-condition-only="(?P<factor>[^"=]*)=(?P<level>[^"]*)"[^>]*>.*?</(?P=tag)>',
                  re.S)


class Cell(Strict):
    """One cell of the design, a level of every factor, drawn `weight` times as often as a cell of weight 1."""

    levels: dict[str, str]
    weight: float = Field(1.0, gt=0)


class Conditions(Strict):
    """Potato's between-subjects conditions: the factors, each person given one level of every one."""

    factors: dict[str, list[str]] = Field(min_length=1, description="each factor's levels, e.g. {list: [control, "
                                                                    "treatment]}")
    assignment: Literal["balanced", "random", "round_robin"] = "balanced"
    balance_on: Literal["assigned", "completed"] = Field("assigned", description="completed: only those who "
                                                                                 "submitted count, so a dropout "
                                                                                 "is replaced")
    max_per_cell: int | None = Field(None, ge=1, description="a full cell takes no one more (while another has room)")
    cells: list[dict[str, Any]] | None = Field(None, min_length=1, description="a subset of the full factorial, "
                                                                               "each cell its levels and a weight")

    @field_validator("factors", mode="before")
    @classmethod
    def _levels_as_text(cls, factors: Any) -> Any:
        if not isinstance(factors, dict):
            return factors
        read = {}
        for name, levels in factors.items():
            if not isinstance(name, str) or not name.isidentifier():
                raise ValueError(f"{name!r} must be a plain name (letters, digits, underscores)")
            if not isinstance(levels, list) or len(levels) < 2:
                raise ValueError(f"{name} must list at least two levels")
            if any(isinstance(level, bool) for level in levels):
                raise ValueError(f"{name} has a true/false level: YAML reads unquoted yes/no/on/off as true/false; "
                                 f"quote the level names")
            if any(isinstance(level, dict | list) for level in levels):
                raise ValueError(f"{name}'s levels must be single values")
            read[name] = [str(level) for level in levels]
            if len(set(read[name])) < len(read[name]):
                raise ValueError(f"{name} names a level twice; levels must differ")
        return read

    @model_validator(mode="after")
    def _cells_known(self) -> Conditions:
        self.all_cells()  # a cell naming an unknown factor or level is named now, not when someone arrives
        return self

    def all_cells(self) -> list[Cell]:
        """The design's cells in order: the full factorial of the factors' levels, or `cells`."""
        names = list(self.factors)
        if self.cells is None:
            return [Cell(levels=dict(zip(names, combo, strict=True)))
                    for combo in itertools.product(*self.factors.values())]
        found: list[Cell] = []
        for number, raw in enumerate(self.cells):
            unknown = sorted(set(raw) - set(names) - {"weight"})
            if unknown:
                raise ValueError(f"cells[{number}] names {', '.join(unknown)}, not a factor ({', '.join(names)})")
            levels = {}
            for name in names:
                if name not in raw:
                    raise ValueError(f"cells[{number}] gives no level of {name}")
                if str(raw[name]) not in self.factors[name]:
                    raise ValueError(f"cells[{number}].{name}: {raw[name]!r} is not one of its levels "
                                     f"({', '.join(self.factors[name])})")
                levels[name] = str(raw[name])
            if any(cell.levels == levels for cell in found):
                raise ValueError(f"cells[{number}] repeats an earlier cell")
            found.append(Cell(levels=levels, weight=raw.get("weight", 1.0)))
        return found

    def choose(self, person: str, ordinal: int, counts: list[int]) -> int:
        """The cell (its place in all_cells) for the person arriving `ordinal`-th (from 0), `counts` the people
        each cell holds so far, as Potato's ConditionAssigner._choose."""
        cells = self.all_cells()
        open_cells = [place for place in range(len(cells))
                      if self.max_per_cell is None or counts[place] < self.max_per_cell] or list(range(len(cells)))
        weights = [cells[place].weight for place in open_cells]
        draw = random.Random(hashlib.sha256(f"{person}:{self.assignment}".encode()).digest())
        if self.assignment == "random":
            return draw.choices(open_cells, weights=weights)[0]
        if self.assignment == "round_robin":
            return open_cells[ordinal % len(open_cells)]
        load = {place: counts[place] / weight for place, weight in zip(open_cells, weights, strict=True)}
        low = min(load.values())
        tied = [place for place in open_cells if load[place] == low]
        return tied[0] if len(tied) == 1 else draw.choice(tied)


def shown(page: str, levels: dict[str, str]) -> str:
    """`page` as a person of the cell `levels` is shown it: an element only for another level is taken out."""
    return ONLY.sub(lambda found: found.group(0) if levels.get(found["factor"]) == html.unescape(found["level"])
                    else "", page)


def difference_in_means(treated: list[float], control: list[float]) -> dict[str, Any]:
    """A list experiment's estimate of how many hold the sensitive statement: the treated group's mean count less
    the control group's, with its standard error (unpooled, as in Blair and Imai 2012's difference-in-means) and
    a 95% interval; None where a group has fewer than two answers."""
    estimate: dict[str, Any] = {"treated": len(treated), "control": len(control), "estimate": None,
                                "standard_error": None, "interval": None}
    if len(treated) < 2 or len(control) < 2:
        return estimate
    difference = statistics.fmean(treated) - statistics.fmean(control)
    error = (statistics.variance(treated) / len(treated) + statistics.variance(control) / len(control)) ** 0.5
    estimate.update(estimate=round(difference, 4), standard_error=round(error, 4),
                    interval=[round(difference - 1.96 * error, 4), round(difference + 1.96 * error, 4)])
    return estimate
