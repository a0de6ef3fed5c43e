"""ranking: the scheme's labels put in order, the first the most (Potato's ranking; Label Studio's Ranker). The
form field holds the order as JSON, ["b", "a", "c"], which the page's move buttons write."""

from __future__ import annotations

import statistics
from typing import Literal

from designs.schemes.base import AnswerProblem, LabelledScheme, SchemeType, one_of, read_json, scheme_type


class Ranking(LabelledScheme):
    """The labels put in order, the first the most (the things to rank are the labels)."""

    annotation_type: Literal["ranking"]


@scheme_type
class RankingType(SchemeType):
    name = "ranking"
    settings = Ranking
    aggregators = ("borda", "none")
    potato_keys = ("labels",)
    potato_humanizes = True
    page = {"value": "order"}
    script = "designs/ranking.js"
    level = "ordinal"  # per label: its place

    def read(self, scheme, fields, record):
        order = read_json(fields, "order", "order them again")
        if order is None:
            return None
        names = [label.name for label in scheme.labels]
        if not isinstance(order, list) or sorted(map(str, order)) != sorted(names):
            raise AnswerProblem(f"put every one of {', '.join(names)} in order, each once")
        return [str(name) for name in order]

    def answer_schema(self, scheme):
        names = [label.name for label in scheme.labels]
        return {"type": "array", "items": one_of(names), "minItems": len(names), "maxItems": len(names),
                "uniqueItems": True}

    def units(self, scheme, value, text=""):
        # Agreement per label: its place (1 the first), compared as ordinal values.
        return {name: place for place, name in enumerate(value, 1)}

    def combine(self, scheme, values):
        """Borda: the labels by their mean place over the answers (ties in the labels' order)."""
        names = [label.name for label in scheme.labels]
        places = {name: statistics.fmean(value.index(name) for value in values if name in value) for name in names}
        return sorted(names, key=lambda name: (places[name], names.index(name)))

    def potato_answer(self, scheme, value, record):
        # Potato's ranking form has one input, rank_order: the labels in order, comma-joined.
        return {"labels": {"rank_order": ",".join(value)}}

    def card_labels(self, scheme):
        return "an order of " + ", ".join(label.name for label in scheme.labels)
