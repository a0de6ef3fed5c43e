"""select: one label of several, from a drop-down list (for long lists); answered as a radio scheme is."""

from __future__ import annotations

from typing import Literal

from designs.schemes.base import ItemLabels, LabelledScheme, scheme_type
from designs.schemes.radio import RadioType


class Select(ItemLabels, LabelledScheme):
    """One label of several, from a drop-down list (for long lists)."""

    annotation_type: Literal["select"]


@scheme_type
class SelectType(RadioType):
    name = "select"
    potato_input = "select-one"  # Potato's drop-down is one input, whatever the labels
    settings = Select
    nests = True
    potato_keys = ("labels", "sequential_key_binding", "has_free_response", "dynamic_options",
                   "dynamic_options_field")
    potato_aliases = ()
    potato_humanizes = False  # Potato's drop-down shows its labels as written
    page = {}
    asked_once = False
