"""interlinear_gloss: interlinear glossed text (Potato's interlinear_gloss; the Leipzig Glossing Rules): each word of
the item a column, its morpheme segmentation and its gloss typed under it (and any `tiers`), a free translation
under the columns. "<prefix>-<word from 0>-morphemes", "-gloss" and "-tier<n>" hold the cells, "<prefix>-translation"
the translation. A word's segmentation and gloss must have the same - and = boundaries in the same order (rule 2):
the page says where they do not (designs/interlinear_gloss.js, the same checks as `check_word`), and a required
scheme is answered only when every word is glossed and aligned; otherwise a word is kept as typed, as Potato keeps
it."""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from designs.schemes.base import AnswerProblem, SchemeBase, SchemeType, scheme_type

# The category labels of the Leipzig Glossing Rules' appendix (N doubles as the prefix non-: NSG, NPST).
LEIPZIG = (
    "1", "2", "3", "A", "ABL", "ABS", "ACC", "ADJ", "ADV", "AGR", "ALL", "ANTIP", "APPL", "ART", "AUX", "BEN", "CAUS",
    "CLF", "COM", "COMP", "COMPL", "COND", "COP", "CVB", "DAT", "DECL", "DEF", "DEM", "DET", "DIST", "DISTR", "DU",
    "DUR", "ERG", "EXCL", "F", "FOC", "FUT", "GEN", "IMP", "INCL", "IND", "INDF", "INF", "INS", "INTR", "IPFV", "IRR",
    "LOC", "M", "N", "NEG", "NMLZ", "NOM", "OBJ", "OBL", "P", "PASS", "PFV", "PL", "POSS", "PRED", "PRF", "PRS",
    "PROG", "PROH", "PROX", "PST", "PTCP", "PURP", "Q", "QUOT", "RECP", "REFL", "REL", "RES", "S", "SBJ", "SBJV",
    "SG", "TOP", "TR", "VOC",
)
RESERVED = ("word", "morphemes", "gloss")  # a word's own lines, which a tier may not be named
EDGES = ".,;:!?\"'“”‘’«»()[]{}¿¡…–—"  # stripped from a word's edges when a sentence is split, as Potato strips them
ELEMENT = re.compile(r"[^.:;_\\()\[\]\s<>=\-]+")  # one meaning of a gloss (rule 4 and its variants)
CATEGORY = re.compile(r"[0-9A-ZØ]+")
PERSON = re.compile(r"([123]+)([0-9A-Z]*)")
INFIX = re.compile(r"<([^<>]*)>")


class InterlinearGloss(SchemeBase):
    """Each word of the item segmented into morphemes and glossed, aligned as the Leipzig rules align them."""

    annotation_type: Literal["interlinear_gloss"]
    source_field: str = Field("text", min_length=1, description="the item field holding the sentence (split on "
                                                                "spaces) or its list of words")
    morphemes_field: str = Field("", description="an item field holding each word's segmentation to start from")
    gloss_field: str = Field("", description="an item field holding each word's gloss to start from")
    translation_field: str = Field("", description="an item field holding the free translation to start from")
    tiers: list[str] = Field([], description="more lines under each word (a part of speech, notes), each typed")
    abbreviations: bool | str | list[str] | dict[str, str] | None = Field(
        None, description="the category labels a gloss may use (leipzig: the Leipzig list; a list or mapping of "
                          "labels, `leipzig` among them adds the list); others are flagged, not refused")
    language: str = Field("", description="the object language's code (the words' and segmentation's lang)")
    metalanguage: str = Field("", description="the glosses' and translation's language code")
    show_translation: bool = Field(True, description="ask for a free translation under the words")

    @field_validator("abbreviations")
    @classmethod
    def _abbreviations(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().lower() != "leipzig":
            raise ValueError("abbreviations must be 'leipzig', a list of labels or a mapping of label: meaning")
        return value

    @model_validator(mode="after")
    def _tiers(self) -> InterlinearGloss:
        taken = [tier for tier in self.tiers if tier in RESERVED]
        if taken:
            raise ValueError(f"tiers may not be named {', '.join(taken)} (those lines are always shown)")
        if len(set(self.tiers)) < len(self.tiers) or any(not tier.strip() for tier in self.tiers):
            raise ValueError("tiers must be different names, none empty")
        return self


def known_labels(scheme: InterlinearGloss) -> list[str] | None:
    """The category labels a gloss may use, or None when they are not checked."""
    spec = scheme.abbreviations
    if spec is None or spec is False:
        return None
    if spec is True or isinstance(spec, str):
        return list(LEIPZIG)
    found: list[str] = []
    for label in spec:
        label = str(label).strip()
        found += LEIPZIG if label.lower() == "leipzig" else [label] if label else []
    return list(dict.fromkeys(found))


def words(scheme: InterlinearGloss, record: Any) -> list[str]:
    """The item's words: its list as given, or its sentence split on spaces, punctuation stripped from the edges and
    a token of only dashes or punctuation dropped (Potato's tokenize_sentence)."""
    if record is None:
        return []
    value = record.fields.get(scheme.source_field, record.text if scheme.source_field == "text" else None)
    if isinstance(value, list):
        return [str(word) for word in value if str(word).strip()]
    stripped = (token.strip(EDGES) for token in (value if isinstance(value, str) else "").split())
    return [word for word in stripped if word.strip("-=–—")]


def _per_word(value: Any) -> list[str] | None:
    if isinstance(value, list):
        return ["" if entry is None else str(entry) for entry in value]
    return value.split() if isinstance(value, str) else None


def starting(scheme: InterlinearGloss, record: Any) -> dict[str, Any]:
    """The answer the page starts from: each word, its segmentation the item's (else the word itself, so that only
    the boundaries need typing), its gloss and tiers the item's (else empty), the item's translation."""
    fields = record.fields if record is not None else {}
    given = {line: _per_word(fields.get(key)) if key else None
             for line, key in (("morphemes", scheme.morphemes_field), ("gloss", scheme.gloss_field))}
    tiers = {tier: _per_word(fields.get(tier)) if isinstance(fields.get(tier), list) else None for tier in scheme.tiers}
    found = []
    for place, word in enumerate(words(scheme, record)):
        entry = {"word": word}
        for line, default in (("morphemes", word), ("gloss", "")):
            values = given[line]
            entry[line] = values[place] if values and place < len(values) else default
        for tier, values in tiers.items():
            entry[tier] = values[place] if values and place < len(values) else ""
        found.append(entry)
    translation = str(fields.get(scheme.translation_field) or "") if scheme.translation_field else ""
    return {"words": found, "translation": translation}


def prefilled(scheme: InterlinearGloss, record: Any) -> bool:
    """Whether the item brings an analysis to confirm (kept even when nothing is edited, as Potato keeps it)."""
    fields = record.fields if record is not None else {}
    given = [fields.get(key) for key in (scheme.morphemes_field, scheme.gloss_field, scheme.translation_field) if key]
    return any(any(str(entry or "").strip() for entry in value) if isinstance(value, list)
               else bool(str(value or "").strip()) for value in given)


def _cell(text: str) -> tuple[list[str], list[str], int]:
    """A cell's pieces, its boundaries in order, and its infixes (<…>, rule 9, which stand apart)."""
    flat = INFIX.sub("", text.strip())
    parts = re.split(r"([-=])", flat)
    return parts[0::2], parts[1::2], len(INFIX.findall(text))


def _boundaries(bounds: list[str], infixes: int) -> str:
    count = len(bounds) + 2 * infixes
    if not count:
        return "no boundaries"
    return f"{count} boundar{'y' if count == 1 else 'ies'} ({' '.join([*bounds, *['<>'] * infixes])})"


def check_word(morphemes: str, gloss: str) -> tuple[str, list[str]]:
    """A word's status (ok, empty, incomplete or misaligned) and what is wrong, in Potato's words."""
    morphemes, gloss = morphemes.strip(), gloss.strip()
    if not morphemes and not gloss:
        return "empty", []
    if not gloss or not morphemes:
        return "incomplete", ["no gloss yet" if not gloss else "no segmentation yet"]
    said = []
    if re.search(r"\s", morphemes):
        said.append("the segmentation holds a space: join morphemes with - or =")
    if re.search(r"\s", gloss):
        said.append("the gloss holds a space: join the words of one gloss with . (rule 4)")
    (m_pieces, m_bounds, m_infixes), (g_pieces, g_bounds, g_infixes) = _cell(morphemes), _cell(gloss)
    if m_bounds != g_bounds or m_infixes != g_infixes:
        said.append(f"segmentation has {_boundaries(m_bounds, m_infixes)}, gloss has "
                    f"{_boundaries(g_bounds, g_infixes)}")
    else:
        empty = [str(place) for place, piece in enumerate(m_pieces, 1) if not piece.strip()]
        unglossed = [str(place) for place, piece in enumerate(g_pieces, 1) if not piece.strip()]
        said += ([f"empty morpheme at position {', '.join(empty)}"] if empty else []) + (
            [f"no gloss for morpheme {', '.join(unglossed)}"] if unglossed else [])
    return ("misaligned" if said else "ok"), said


def _known(element: str, known: set[str]) -> bool:
    if element in known or element == "Ø":
        return True
    person = PERSON.fullmatch(element)
    if person and all(digit in known for digit in person[1]) and (not person[2] or _known(person[2], known)):
        return True
    return len(element) > 1 and element.startswith("N") and "N" in known and _known(element[1:], known)


def unknown_labels(gloss: str, known: list[str] | None) -> list[str]:
    """The category labels (capitals, person digits) of a gloss that are not among `known`, once each."""
    if known is None:
        return []
    labels = set(known)
    found = [element for element in ELEMENT.findall(gloss) if (element in ("1", "2", "3") or (
        not element.isdigit() and CATEGORY.fullmatch(element))) and not _known(element, labels)]
    return list(dict.fromkeys(found))


def _width(entry: dict[str, str]) -> int:
    """A word's column width in characters, as Potato sizes it: its longest line and two, from 6 to 48."""
    return min(max(max(len(str(text)) for text in entry.values()) + 2, 6), 48)


@scheme_type
class InterlinearGlossType(SchemeType):
    name = "interlinear_gloss"
    settings = InterlinearGloss
    aggregators = ("none",)
    potato_keys = ("instructions", "source_field", "morphemes_field", "gloss_field", "translation_field", "tiers",
                   "abbreviations", "language", "metalanguage", "show_translation")
    potato_json = True
    potato_order = ("words", "word", "morphemes", "gloss", "translation")
    level = None  # a gloss is typed text, not compared
    script = "designs/interlinear_gloss.js"
    style = "designs/interlinear_gloss.css"

    def item_problem(self, scheme, record):
        if not words(scheme, record):
            return f"item {record.id!r} has no words to gloss under {scheme.source_field!r}"
        return None

    def widget_context(self, scheme, record, field, keys):
        begun = starting(scheme, record)
        return {"columns": [{"place": place, "word": entry["word"], "morphemes": entry["morphemes"],
                           "gloss": entry["gloss"], "width": _width(entry),
                           "tiers": [(number, tier, entry[tier]) for number, tier in enumerate(scheme.tiers)]}
                          for place, entry in enumerate(begun["words"])],
                "translation": begun["translation"], "prefilled": prefilled(scheme, record),
                "known": json.dumps(known_labels(scheme))}

    def read(self, scheme, fields, record):
        begun = starting(scheme, record)
        answer = {"words": [], "translation": fields.get("translation") if scheme.show_translation
                  else begun["translation"]}
        for place, entry in enumerate(begun["words"]):
            typed = {"word": entry["word"], "morphemes": fields.get(f"{place}-morphemes"),
                     "gloss": fields.get(f"{place}-gloss")}
            typed.update({tier: fields.get(f"{place}-tier{number}") for number, tier in enumerate(scheme.tiers)})
            answer["words"].append(typed)
        if answer == begun and not prefilled(scheme, record):
            return None  # nothing typed: the page's segmentation is only each word
        if scheme.required:
            for place, entry in enumerate(answer["words"], 1):
                status, said = check_word(entry["morphemes"], entry["gloss"])
                if status != "ok":
                    raise AnswerProblem(f"word {place} ({entry['word']!r}): "
                                        + ("; ".join(said) if said else "segment and gloss it"))
        return answer

    def answer_schema(self, scheme):
        lines = ["word", "morphemes", "gloss", *scheme.tiers]
        return {"type": "object", "required": ["words", "translation"], "additionalProperties": False, "properties": {
            "translation": {"type": "string"},
            "words": {"type": "array", "minItems": 1, "items": {
                "type": "object", "required": lines, "additionalProperties": False,
                "properties": {line: {"type": "string"} for line in lines}}}}}

    def form_fields(self, scheme, value, record=None):
        if not isinstance(value, dict) or not isinstance(value.get("words"), list):
            return {}
        fields = {"translation": str(value.get("translation") or "")}
        for place, entry in enumerate(value["words"]):
            if isinstance(entry, dict):
                fields[f"{place}-morphemes"] = str(entry.get("morphemes") or "")
                fields[f"{place}-gloss"] = str(entry.get("gloss") or "")
                fields.update({f"{place}-tier{number}": str(entry.get(tier) or "")
                               for number, tier in enumerate(scheme.tiers)})
        return fields


    def potato_ordered(self, scheme, value, record):
        lines = ["word", "morphemes", "gloss", *scheme.tiers]  # a word's lines, its tiers in the scheme's order
        return {**value, "words": [{line: word[line] for line in lines if line in word} for word in value["words"]]}

    def told(self, scheme, record=None):
        found = "" if record is None else " Words: " + " ".join(words(scheme, record)) + "."
        tiers = f", {', '.join(scheme.tiers)}" if scheme.tiers else ""
        return ("Segment each word into morphemes (joined by - for an affix, = for a clitic) and gloss each morpheme "
                "the same way, the boundaries of the two lines alike (Leipzig rules; category labels in capitals), "
                f"as {{\"words\": [{{word, morphemes, gloss{tiers}}}], \"translation\"}}.{found}")

    def card_labels(self, scheme):
        return "each word's morphemes and gloss" + (f", {', '.join(scheme.tiers)}" if scheme.tiers else "") + (
            ", a translation" if scheme.show_translation else "")
