"""conjoint: a choice among profiles (Potato's conjoint; discrete choice analysis): each profile a card of its
attributes' levels, the annotator choosing one ("1", "2", …) or none of them ("none"). The profiles are each
item's own (`profiles_field`), else drawn from `attributes` as Potato 2.12.1 draws them."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from designs.schemes.base import SchemeBase, SchemeType, Strict, one_of, pick, scheme_type

NONE = "none"
MISSING = "—"  # a level a profile does not give, as Potato shows it


class Attribute(Strict):
    """One attribute of the profiles and the levels it takes."""

    name: str = Field(min_length=1, description="shown on each card's row")
    levels: list[str] = Field(min_length=1, description="the values a profile may have")

    @model_validator(mode="before")
    @classmethod
    def _levels_as_text(cls, value):
        # YAML reads `8` and `yes` as a number and a boolean; a level is the text written.
        if isinstance(value, dict) and isinstance(value.get("levels"), list):
            value = {**value, "levels": [str(level) for level in value["levels"]]}
        return value


class Conjoint(SchemeBase):
    """One of several profiles chosen (or none of them)."""

    annotation_type: Literal["conjoint"]
    profiles_per_set: int = Field(3, ge=2, le=4, description="how many profiles (cards) are shown")
    attributes: list[Attribute] = Field(default_factory=list, description="the rows of each card; without "
                                                                          "profiles_field, the profiles are drawn "
                                                                          "from their levels")
    profiles_field: str | None = Field(None, description="an item field holding the item's own profiles: a list "
                                                         "of {attribute: level}")
    show_none_option: bool = Field(True, description="a \"None of these\" choice under the cards")

    @model_validator(mode="after")
    def _profiles(self) -> Conjoint:
        if not self.attributes and not self.profiles_field:
            raise ValueError("give the profiles' attributes, or an item field holding each item's profiles "
                             "(profiles_field)")
        return self


def _own(scheme: Conjoint, record) -> list[dict]:
    found = record.fields.get(scheme.profiles_field) if scheme.profiles_field and record is not None else None
    return [entry for entry in found if isinstance(entry, dict)] if isinstance(found, list) else []


def _units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2  # a JavaScript string's length


def profiles(scheme: Conjoint, record) -> tuple[list[str], list[dict[str, str]], int]:
    """The attributes (rows), the profiles shown on `record` (each {attribute: level}) and how many the item has
    in all. An item's own profiles are shown up to profiles_per_set, under the scheme's attributes, else under each
    profile's own in the order Potato 2.12.1 shows them (each profile's in alphabetical order, as its server sends
    the item). Without them the profiles are drawn from the levels as Potato's page draws them: level
    (len(item id) + len(attribute) + 8 × card) mod the number of levels, so an item gets the same cards there and
    here."""
    own = _own(scheme, record)
    if own:
        names = [attribute.name for attribute in scheme.attributes] or list(dict.fromkeys(
            str(name) for profile in own for name in sorted(profile)))
        shown = [{name: str(profile[name]) if profile.get(name) not in (None, "") else MISSING for name in names}
                 for profile in own[:scheme.profiles_per_set]]
        return names, shown, len(own)
    if not scheme.attributes:
        return [], [], 0
    item = _units(record.id) if record is not None else 0
    drawn = [{attribute.name: attribute.levels[(item + _units(attribute.name) + 8 * card) % len(attribute.levels)]
              for attribute in scheme.attributes} for card in range(scheme.profiles_per_set)]
    return [attribute.name for attribute in scheme.attributes], drawn, len(drawn)


@scheme_type
class ConjointType(SchemeType):
    name = "conjoint"
    settings = Conjoint
    aggregators = ("majority", "none")
    potato_keys = ("profiles_per_set", "attributes", "profiles_field", "show_none_option")
    asked_once = True
    style = "designs/conjoint.css"

    def choices(self, scheme, record) -> list[str]:
        shown = len(profiles(scheme, record)[1])
        return [str(card) for card in range(1, shown + 1)] + ([NONE] if scheme.show_none_option else [])

    def item_problem(self, scheme, record):
        if scheme.profiles_field and not scheme.attributes and not _own(scheme, record):
            return (f"item {record.id!r} has no profiles under {scheme.profiles_field!r} to choose from (a list of "
                    f"{{attribute: level}})")
        return None

    def widget_context(self, scheme, record, field, keys):
        names, shown, total = profiles(scheme, record)
        return {"cards": [{"place": place, "rows": [(name, profile[name]) for name in names]}
                          for place, profile in enumerate(shown, 1)], "cut": total - len(shown), "total": total}

    def read(self, scheme, fields, record):
        value = fields.get()
        return pick(value, self.choices(scheme, record), "choices") if value else None

    def answer_schema(self, scheme):
        # The cards an item shows may be fewer (its own profiles); read checks the answer against them.
        return one_of([str(card) for card in range(1, scheme.profiles_per_set + 1)]
                      + ([NONE] if scheme.show_none_option else []))

    def form_fields(self, scheme, value, record=None):
        return {"": str(value)}

    def potato_answer(self, scheme, value, record):
        return {"labels": {scheme.name: value}}  # the card's number, or "none", under the scheme's own name

    def potato_fields(self, scheme, saved, record):
        found = (saved.get("labels") or {}).get(scheme.name)
        return {} if found in (None, "") else {"": str(found)}

    def told(self, scheme, record=None):
        names, shown, _ = profiles(scheme, record)
        if record is None or not shown:  # the profiles are each item's
            return ""
        cards = "; ".join(f"{place}: " + ", ".join(f"{name} {profile[name]}" for name in names)
                          for place, profile in enumerate(shown, 1))
        return f"Profiles: {cards}. Answer the profile's number" + (f", or {NONE}." if scheme.show_none_option
                                                                    else ".")

    def card_labels(self, scheme):
        return f"one of {scheme.profiles_per_set} profiles" + (" or none" if scheme.show_none_option else "")
