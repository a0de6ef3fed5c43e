"""span_link: labelled links between two spans another span scheme of the item marked (Potato's span_link; its
coreference runs as one: mentions linked as the same entity; Label Studio's Relations). The form field holds the links
as JSON, [[type, [start, end, label], [start, end, label]], ...], which the page's link pickers write
(span-extras.js); the server checks each against the spans marked in the same answer."""

from __future__ import annotations

import itertools
import json
from typing import Any, Literal
from xml.sax.saxutils import quoteattr

from pydantic import Field, field_validator

from designs.schemes.base import (
    AnswerProblem,
    SchemeBase,
    SchemeType,
    Strict,
    an,
    no_repeats,
    one_of,
    read_json,
    scheme_type,
)
from designs.schemes.span import EXTRAS, allowed_label, most_give, span_at, spans_named, unknown_labels

MAX_LINKS = 100
# The colours Potato's coreference manager gives its chains in turn (static/coreference-manager.js).
CHAIN_COLOURS = ("#6E56CF", "#EF4444", "#22C55E", "#3B82F6", "#F59E0B", "#EC4899", "#06B6D4", "#F97316", "#8B5CF6",
                 "#10B981")


class LinkType(Strict):
    """One kind of link: its name, whether it has a direction, and which span labels may be at each end."""

    name: str = Field(min_length=1, max_length=100)
    directed: bool = Field(False, description="the link goes from its first span to its second")
    allowed_source_labels: list[str] = Field(default_factory=list, description="span labels the first end may have "
                                                                               "(any when empty)")
    allowed_target_labels: list[str] = Field(default_factory=list, description="span labels the second end may "
                                                                               "have (any when empty)")
    max_spans: Literal[2] = Field(2, description="spans a link joins: two (Potato's n-ary links are not built)")
    color: str | None = Field(None, description="Potato's; read and kept, not drawn")


class SpanLink(SchemeBase):
    """Links between two spans of another span scheme (span_schema), each of one of link_types."""

    annotation_type: Literal["span_link"]
    span_schema: str = Field(description="the span scheme whose spans are linked")
    link_types: list[LinkType] = Field(min_length=1)
    visual_display: dict[str, Any] | None = Field(None, description="Potato's arcs over the text; read and kept, "
                                                                    "not drawn: links are listed under the pickers")

    @field_validator("link_types", mode="after")
    @classmethod
    def _distinct_types(cls, types: list[LinkType]) -> list[LinkType]:
        no_repeats([kind.name for kind in types], "link_types", "name")
        return types


def _key(link: dict[str, Any], directed: bool) -> tuple:
    ends = [tuple(link[end].values()) for end in ("from", "to")]
    return (link["type"], *(ends if directed else sorted(ends)))


@scheme_type
class SpanLinkType(SchemeType):
    name = "span_link"
    settings = SpanLink
    aggregators = ("majority", "none")
    potato_keys = ("span_schema", "link_types", "visual_display")
    potato_aliases = ("coreference",)
    labelstudio_tags = ("Relations",)
    level = None  # links are kept and combined, not compared: two annotators' spans seldom meet exactly
    script = EXTRAS  # beside the span scheme's spans.js

    def read(self, scheme, fields, record):
        given = read_json(fields, "links", "link them again")
        if given is None:
            return None
        if not isinstance(given, list) or len(given) > MAX_LINKS:
            raise AnswerProblem(f"expected a list of at most {MAX_LINKS} links")
        kinds = {kind.name: kind for kind in scheme.link_types}
        links, seen = [], set()
        for entry in given:
            if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str) and entry[0] in kinds):
                raise AnswerProblem(f"{str(entry)[:40]} is not a link [type, span, span] of one of "
                                    f"{', '.join(kinds)}")
            kind = kinds[entry[0]]
            ends = [span_at(end, record.text) for end in entry[1:]]
            if ends[0] == ends[1]:
                raise AnswerProblem(f"{an(kind.name)} link joins two different spans")
            for label, allowed, side in ((ends[0][2], kind.allowed_source_labels, "first"),
                                         (ends[1][2], kind.allowed_target_labels, "second")):
                allowed_label(label, allowed, f"{an(kind.name)} link's {side} span")
            link = {"type": kind.name, **{name: {"start": start, "end": end, "label": label}
                                          for name, (start, end, label) in zip(("from", "to"), ends, strict=True)}}
            key = _key(link, kind.directed)
            if key in seen:
                raise AnswerProblem(f"the same {kind.name} link is given twice")
            seen.add(key)
            links.append(link)
        return links

    def check_answers(self, scheme, value, answers):
        marked = {(span["start"], span["end"], span["label"]) for span in answers.get(scheme.span_schema) or []}
        for link in value:
            for end in ("from", "to"):
                if tuple(link[end].values()) not in marked:
                    raise AnswerProblem(f"{an(link['type'])} link names a span not marked in {scheme.span_schema} "
                                        f"({link[end]['label']} at {link[end]['start']}:{link[end]['end']}); mark it "
                                        f"or remove the link")

    def references(self, scheme, design):
        spans, problems = spans_named(scheme, design)
        return problems or [problem for number, kind in enumerate(scheme.link_types)
                            for key in ("allowed_source_labels", "allowed_target_labels")
                            for problem in unknown_labels(spans, ("link_types", number, key), getattr(kind, key))]

    def answer_schema(self, scheme):
        end = {"type": "object", "required": ["start", "end", "label"], "additionalProperties": False,
               "properties": {"start": {"type": "integer", "minimum": 0}, "end": {"type": "integer", "minimum": 1},
                              "label": {"type": "string"}}}
        return {"type": "array", "maxItems": MAX_LINKS, "items": {
            "type": "object", "required": ["type", "from", "to"], "additionalProperties": False,
            "properties": {"type": one_of([kind.name for kind in scheme.link_types]), "from": end, "to": end}}}

    def combine(self, scheme, values):
        """The links more than half the answers give (an undirected link either way round)."""
        directed = {kind.name: kind.directed for kind in scheme.link_types}
        return most_give(values, lambda link: _key(link, directed.get(link["type"], True)))

    def potato_answer(self, scheme, value, record):
        directed = {kind.name: kind.directed for kind in scheme.link_types}
        return {"links": [{"id": f"{scheme.name}_{number}", "schema": scheme.name, "link_type": link["type"],
                           "span_ids": [f"{scheme.span_schema}_{link[end]['label']}_{link[end]['start']}_"
                                        f"{link[end]['end']}" for end in ("from", "to")],
                           "direction": "directed" if directed[link["type"]] else "undirected", "properties": {}}
                          for number, link in enumerate(value, 1)]}

    def potato_alias_answer(self, alias, scheme, value, record, settings=None):
        if alias != "coreference":
            return self.potato_answer(scheme, value, record)
        # Potato keeps a coreference chain as one undirected link of all its mentions (span_ids), "chain_1" on, of
        # type coreference (no entity types are asked here), coloured in turn: the mentions linked here, together.
        chains: list[list[tuple]] = []
        for link in value:
            ends = [(link[end]["start"], link[end]["end"], link[end]["label"]) for end in ("from", "to")]
            joined = [chain for chain in chains if any(end in chain for end in ends)]
            merged = sorted({*ends, *(mention for chain in joined for mention in chain)})
            chains = [chain for chain in chains if chain not in joined] + [merged]
        chains.sort()
        return {"links": [{"id": f"chain_{number}", "schema": scheme.name, "link_type": "coreference",
                           "span_ids": [f"{scheme.span_schema}_{label}_{start}_{end}" for start, end, label in chain],
                           "direction": "undirected", "properties": {"color": CHAIN_COLOURS[(number - 1) % 10]}}
                          for number, chain in enumerate(chains, 1)]}

    def potato_fields(self, scheme, saved, record):
        links = [{"type": link["link_type"], **dict(zip(("from", "to"), _ends(link, saved), strict=True))}
                 for link in saved.get("links") or []]
        return self.form_fields(scheme, links) if links else {}

    def potato_alias_fields(self, alias, scheme, saved, record, settings=None):
        if alias != "coreference":
            return self.potato_fields(scheme, saved, record)
        # A chain of mentions: each linked to the next, which gives the chain back when written again.
        links = [{"type": "coreference", "from": first, "to": second} for chain in saved.get("links") or []
                 for first, second in itertools.pairwise(_ends(chain, saved, every=True))]
        return self.form_fields(scheme, links) if links else {}

    def potato_alias(self, scheme, importer):
        # Coreference chains: the mentions of one entity linked to each other, the chain being what is linked.
        return ({"span_schema": scheme.get("span_schema", ""),
                 "link_types": [{"name": "same entity", "directed": False}]},
                "coreference chains, run as links between mentions (\"same entity\"): a chain is the mentions linked "
                "together" + ("; its entity_types are not asked" if scheme.get("entity_types") else ""))

    def from_labelstudio(self, control, importer):
        # Label Studio's relations link any two regions, in the direction the annotator sets: here, the spans of the
        # config's first Labels, each relation label a directed link type.
        kinds = [{"name": name, "directed": True} for _, name in importer.children(control, "Relation")]
        return {"span_schema": importer.first_spans(control), "link_types": kinds or [{"name": "related"}]}

    def form_fields(self, scheme, value, record=None):
        return {"": json.dumps([[link["type"], *([link[end]["start"], link[end]["end"], link[end]["label"]]
                                                 for end in ("from", "to"))] for link in value])}

    def labelstudio_names(self, scheme):
        return [""]  # a relation names no control

    def from_labelstudio_results(self, scheme, results, regions):
        links = []
        for result in results:
            ends = [regions.get(result.get(key)) for key in ("from_id", "to_id")]
            if None in ends or any(owner != scheme.span_schema for owner, _ in ends):
                continue
            first, second = (span for _, span in ends)
            if result.get("direction") == "left":
                first, second = second, first
            for name in result.get("labels") or [scheme.link_types[0].name]:
                links.append({"type": name, **{end: {key: span[key] for key in ("start", "end", "label")}
                                               for end, span in (("from", first), ("to", second))}})
        return links or None

    def labelstudio_control(self, scheme, to_name):
        relations = "".join(f"<Relation value={quoteattr(kind.name)}/>" for kind in scheme.link_types)
        return f"<Relations>{relations}</Relations>"

    def labelstudio_results(self, scheme, value, to_name, regions):
        directed = {kind.name: kind.directed for kind in scheme.link_types}

        def region(end: dict) -> tuple:
            # By name, not by the stored order of its keys: PostgreSQL's jsonb keeps them in an order of its own.
            return (scheme.span_schema, end["start"], end["end"], end["label"])

        return [{"type": "relation", "from_id": regions[region(link["from"])], "to_id": regions[region(link["to"])],
                 "direction": "right" if directed[link["type"]] else "bi", "labels": [link["type"]]}
                for link in value if region(link["from"]) in regions and region(link["to"]) in regions]

    def card_labels(self, scheme):
        return f"links ({', '.join(kind.name for kind in scheme.link_types)}) between spans of {scheme.span_schema}"


def _ends(link: dict[str, Any], saved: dict[str, Any], every: bool = False) -> list[dict[str, Any]]:
    """The spans a link Potato saved joins (its span_ids, among the item's spans), as this scheme's ends; a link of
    other than two is refused unless `every` (a coreference chain's mentions)."""
    ends = [saved["spans_by_id"][span_id] for span_id in link["span_ids"]]
    if len(ends) != 2 and not every:
        raise ValueError(f"the link {link.get('id')!r} joins {len(ends)} spans; links of two are read here")
    return [{"start": span["start"], "end": span["end"], "label": span["name"]} for span in ends]
