"""triad_test: a triad test (Potato's triad_test; Weller & Romney 1988): the items of a domain shown three at a time,
the one most different chosen in each triad. Which triads are asked depends on the domain only (every triad, a
Steiner triple system, or a seeded sample: Potato's cultural_domain.triads, ported here); the page
(designs/triad_test.js) shows them one at a time and shuffles their order and the items' places per participant,
item and scheme with Potato's hash and generator, so a participant meets them as in Potato. "<prefix>-<triad>"
holds the item chosen, "<prefix>-<triad>-shown" the triad's items in the places shown, "<prefix>-order" the triads
in the order shown."""

from __future__ import annotations

import json
import math
from itertools import combinations
from typing import Any, Literal

from pydantic import Field, model_validator

from designs.schemes.base import (
    AnswerProblem,
    Label,
    SchemeBase,
    SchemeType,
    labels_in_any_form,
    majority,
    scheme_type,
)

DESIGNS = ("auto", "complete", "steiner", "sample")
COMPLETE_MAX = 20  # auto asks every triad while there are at most this many (6 items)
MAX_DOMAIN = 60  # the most items a domain may have, as in Potato
QUESTION = "Which is most different?"
MASK = 0xFFFFFFFF


def _labels_in_any_form(schema: dict[str, Any]) -> None:
    """The labels' schema (a list, or none) takes a label written as its name, as a labelled scheme's does."""
    for branch in schema.get("anyOf", []):
        if "items" in branch:
            labels_in_any_form(branch)


class TriadTest(SchemeBase):
    """The items of a domain three at a time, the one most different chosen in each triad."""

    annotation_type: Literal["triad_test"]
    labels: list[Label] | None = Field(None, json_schema_extra=_labels_in_any_form,
                                       description="the domain's items, the same on every item (else each item's "
                                                   "items_field)")
    items_field: str | None = Field(None, min_length=1, description="the item field holding the domain (a list), "
                                                                    "when it is each item's own (default items)")
    design: Literal["auto", "complete", "steiner", "sample"] = Field(
        "auto", description="which triads: every one, a Steiner triple system (each pair once; 7, 9, 13, 15, … "
                            "items), a sample keeping pair counts even, or auto (the first that fits)")
    max_triads: int | None = Field(None, ge=1, description="the most triads asked (a sample's size)")
    question: str = Field(QUESTION, min_length=1, description="asked of each triad")

    @model_validator(mode="after")
    def _domain(self) -> TriadTest:
        # Potato's own checks (server_utils/schemas/triad_test.py validate_scheme).
        if self.labels is not None and self.items_field is not None:
            raise ValueError("give the domain as labels or as items_field, not both")
        if self.labels is not None:
            found = domain_items(self.labels)
            if len(found) < 3:
                raise ValueError("labels must name at least three different items")
            if len(found) > MAX_DOMAIN:
                raise ValueError(f"a triad test domain may have at most {MAX_DOMAIN} items")
            if self.design == "steiner" and not steiner_exists(len(found)):
                raise ValueError(f"design: steiner needs a number of items that is 1 or 3 mod 6 (7, 9, 13, 15, ...); "
                                 f"there are {len(found)}. Use auto or sample")
        return self


def domain_items(raw: Any) -> list[str]:
    """The domain's names from a list of texts, labels or {name}/{text} mappings, duplicates dropped (as Potato)."""
    found: list[str] = []
    for entry in raw if isinstance(raw, list) else []:
        if isinstance(entry, Label):
            entry = entry.name
        elif isinstance(entry, dict):
            entry = entry.get("name", entry.get("text"))
        text = "" if entry is None else str(entry).strip()
        if text and text not in found:
            found.append(text)
    return found


def domain(scheme: TriadTest, record: Any) -> list[str]:
    if scheme.labels is not None:
        return domain_items(scheme.labels)
    return domain_items(record.fields.get(scheme.items_field or "items")) if record is not None else []


# --- Potato's designs (cultural_domain/triads.py), their hash and generator the page's too --------------------------

def fnv1a(text: str) -> int:
    found = 0x811C9DC5
    for byte in text.encode("utf-8"):
        found = ((found ^ byte) * 0x01000193) & MASK
    return found


def mulberry32(seed: int):
    state = seed & MASK

    def draw() -> float:
        nonlocal state
        state = (state + 0x6D2B79F5) & MASK
        t = ((state ^ (state >> 15)) * (state | 1)) & MASK
        t = ((t + (((t ^ (t >> 7)) * (t | 61)) & MASK)) & MASK) ^ t
        return ((t ^ (t >> 14)) & MASK) / 4294967296.0

    return draw


def shuffle(values: list, draw) -> list:
    for high in range(len(values) - 1, 0, -1):
        low = int(draw() * (high + 1))
        values[high], values[low] = values[low], values[high]
    return values


def steiner_exists(size: int) -> bool:
    return size >= 3 and size % 6 in (1, 3)


def steiner(size: int) -> list[tuple[int, ...]]:
    """A Steiner triple system on range(size): Bose's construction for 6t + 3 items, Skolem's for 6t + 1."""
    blocks = []
    if size % 6 == 3:
        v = size // 3
        half = (v + 1) // 2  # the inverse of 2 mod v

        def point(x: int, i: int) -> int:
            return x + v * (i % 3)
        blocks += [(point(x, 0), point(x, 1), point(x, 2)) for x in range(v)]
        blocks += [(point(x, i), point(y, i), point(((x + y) * half) % v, i + 1))
                   for x in range(v) for y in range(x + 1, v) for i in range(3)]
    else:
        t = (size - 1) // 6
        m = 2 * t

        def point(x: int, i: int) -> int:
            return x + m * (i % 3)

        def op(x: int, y: int) -> int:  # a half-idempotent commutative quasigroup
            total = (x + y) % m
            return total // 2 if total % 2 == 0 else t + (total - 1) // 2
        blocks += [(point(x, 0), point(x, 1), point(x, 2)) for x in range(t)]
        blocks += [(size - 1, point(x + t, i), point(x, i + 1)) for x in range(t) for i in range(3)]
        blocks += [(point(x, i), point(y, i), point(op(x, y), i + 1))
                   for x in range(m) for y in range(x + 1, m) for i in range(3)]
    return sorted(tuple(sorted(block)) for block in blocks)


def sample(size: int, most: int | None, seed: int) -> list[tuple[int, ...]]:
    """`most` triads (else until every pair has been in one) chosen greedily to keep pair counts even, ties broken by
    a seeded shuffle."""
    candidates = shuffle(list(combinations(range(size), 3)), mulberry32(seed))
    limit = len(candidates) if most is None else min(most, len(candidates))
    pairs = [[0] * size for _ in range(size)]
    seen = [0] * size
    used = [False] * len(candidates)
    chosen: list[tuple[int, ...]] = []
    uncovered = size * (size - 1) // 2
    while len(chosen) < limit and (most is not None or uncovered > 0):
        best, best_score = -1, None
        for place, (a, b, c) in enumerate(candidates):
            if used[place]:
                continue
            ab, ac, bc = pairs[a][b], pairs[a][c], pairs[b][c]
            score = max(ab, ac, bc) * 1000000 + (ab + ac + bc) * 1000 + seen[a] + seen[b] + seen[c]
            if best_score is None or score < best_score:
                best, best_score = place, score
        used[best] = True
        a, b, c = candidates[best]
        for x, y in ((a, b), (a, c), (b, c)):
            uncovered -= pairs[x][y] == 0
            pairs[x][y] += 1
            pairs[y][x] += 1
        for x in (a, b, c):
            seen[x] += 1
        chosen.append((a, b, c))
    return chosen


def resolve(size: int, design: str, most: int | None) -> str:
    if design == "steiner" and not steiner_exists(size):
        return "sample"
    if design != "auto":
        return design
    total = math.comb(size, 3)
    if total <= COMPLETE_MAX and (most is None or total <= most):
        return "complete"
    if steiner_exists(size) and (most is None or size * (size - 1) // 6 <= most):
        return "steiner"
    return "sample"


def triads(scheme: TriadTest, record: Any) -> tuple[str, list[list[str]]]:
    """(the design used, its triads as the domain's items), the same for every participant."""
    found = domain(scheme, record)
    if len(found) < 3:
        return scheme.design, []
    kind = resolve(len(found), scheme.design, scheme.max_triads)
    built = (list(combinations(range(len(found)), 3)) if kind == "complete" else steiner(len(found))
             if kind == "steiner" else sample(len(found), scheme.max_triads, fnv1a(
                 "triad-design\x1f" + scheme.name + "\x1f" + "\x1f".join(found))))
    return kind, [[found[place] for place in triad] for triad in built]


def _read_json(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        raise AnswerProblem(f"{what} could not be read; reload the page and answer the triads again") from None


@scheme_type
class TriadTestType(SchemeType):
    name = "triad_test"
    settings = TriadTest
    aggregators = ("majority", "none")
    potato_keys = ("instructions", "labels", "items_field", "design", "max_triads", "question")
    potato_json = True
    potato_order = ("design", "triads")
    page = {"value": "checked"}  # answered once a triad is (its hidden order and places always hold something)
    script = "designs/triad_test.js"
    style = "designs/triad_test.css"

    def item_problem(self, scheme, record):
        found = domain(scheme, record)
        if scheme.labels is None and not 3 <= len(found) <= MAX_DOMAIN:
            return (f"item {record.id!r} has {len(found)} different items under {scheme.items_field or 'items'!r}; "
                    f"a triad test needs 3 to {MAX_DOMAIN}")
        return None

    def widget_context(self, scheme, record, field, keys):
        kind, found = triads(scheme, record)
        return {"triads": [{"items": triad, "shown": json.dumps(triad, ensure_ascii=False)} for triad in found],
                "design": kind, "item_id": record.id}

    def read(self, scheme, fields, record):
        kind, found = triads(scheme, record)
        order = _read_json(fields.get("order") or json.dumps(list(range(len(found)))), "the triads' order")
        if not (isinstance(order, list) and all(type(place) is int for place in order)
                and sorted(order) == list(range(len(found)))):
            raise AnswerProblem("the triads' order could not be read; reload the page and answer them again")
        answered = []
        for place in order:
            shown = _read_json(fields.get(f"{place}-shown") or json.dumps(found[place]), f"triad {place + 1}")
            if not isinstance(shown, list) or sorted(map(str, shown)) != sorted(found[place]):
                raise AnswerProblem(f"triad {place + 1} is not one of this item's; reload the page and answer again")
            shown = list(map(str, shown))
            chosen = fields.get(str(place)) or None
            if chosen is not None and chosen not in shown:
                raise AnswerProblem(f"{chosen[:40]!r} is not in triad {place + 1} ({', '.join(shown)})")
            answered.append([*shown, chosen])
        left = sum(triad[3] is None for triad in answered)
        if left == len(answered):
            return None
        if left and scheme.required:
            raise AnswerProblem(f"answer {left} more triad{'' if left == 1 else 's'}")
        return {"design": kind, "triads": answered}

    def answer_schema(self, scheme):
        item = {"type": "string", "minLength": 1}
        return {"type": "object", "required": ["design", "triads"], "additionalProperties": False, "properties": {
            "design": {"type": "string", "enum": list(DESIGNS[1:])},
            "triads": {"type": "array", "minItems": 1, "items": {
                "type": "array", "prefixItems": [item, item, item, {"type": ["string", "null"]}], "minItems": 4,
                "maxItems": 4}}}}

    def form_fields(self, scheme, value, record=None):
        if not isinstance(value, dict) or not isinstance(value.get("triads"), list) or record is None:
            return {}
        _, found = triads(scheme, record)
        places = {tuple(sorted(triad)): place for place, triad in enumerate(found)}
        fields, order = {}, []
        for triad in value["triads"]:
            place = places.get(tuple(sorted(map(str, triad[:3])))) if isinstance(triad, list) else None
            if place is None or place in order:
                continue  # a triad this item does not ask (a model's answer may be anything)
            order.append(place)
            fields[f"{place}-shown"] = json.dumps([str(entry) for entry in triad[:3]], ensure_ascii=False)
            if len(triad) > 3 and triad[3] is not None:
                fields[str(place)] = str(triad[3])
        if not order:
            return {}
        fields["order"] = json.dumps(order + [place for place in range(len(found)) if place not in order])
        return fields

    def units(self, scheme, value, text=""):
        # Agreement per triad (its items in any order): the one chosen as most different.
        return {"|".join(sorted(triad[:3])): triad[3] for triad in value["triads"] if triad[3] is not None}

    def combine(self, scheme, values):
        chosen: dict[tuple[str, ...], list[str]] = {}
        for value in values:
            for triad in value["triads"]:
                if triad[3] is not None:
                    chosen.setdefault(tuple(sorted(triad[:3])), []).append(triad[3])
        return {"design": values[0]["design"], "triads": [[*key, majority(odds)] for key, odds in chosen.items()]}


    def told(self, scheme, record=None):
        if record is None:
            return "For each triad, choose the one most different."
        kind, found = triads(scheme, record)
        return ("For each triad, choose the one most different, as {\"design\": \"" + kind + "\", \"triads\": "
                "[[first, second, third, chosen], …]}. Triads: " + "; ".join(
                    f"{place}. {', '.join(triad)}" for place, triad in enumerate(found, 1)) + ".")

    def card_labels(self, scheme):
        return "the most different of each triad" + (
            f" of {', '.join(domain_items(scheme.labels))}" if scheme.labels is not None else "")
