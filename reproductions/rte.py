"""RTE challenge files (RTE-1 to RTE-3 XML) read into text/hypothesis pairs, and the named entities a
pair's text and hypothesis share, found as the NLTK tagger's proper-noun sequences (no NER model ships
offline; the paper used the Stanford recognizer)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from os import PathLike

from core.errors import InputError
from core.xmlrecords import read_records
from designs.items import Record
from filtering import nlp

# RTE-1 says value="TRUE/FALSE", RTE-2 and RTE-3 entailment="YES/NO"; both are two-way.
_LABELS = {"TRUE": "entailment", "YES": "entailment", "FALSE": "not-entailment", "NO": "not-entailment"}
_PROPER = ("NNP", "NNPS")


class RteFileError(InputError):
    """An RTE XML file that cannot be read; the message names the file, line and pair."""


@dataclass(frozen=True)
class RtePair:
    pair_id: str
    text: str
    hypothesis: str
    label: str  # entailment or not-entailment
    task: str
    source: str
    line: int = field(default=0, compare=False)  # where the pair starts in its file


def read_rte(path: str | PathLike[str], data: bytes | None = None) -> list[RtePair]:
    """The pairs of an RTE file (or of `data`, an upload `path` names) in order; a pair without id, t, h or a
    known judgement is refused by line."""
    name = str(path).replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".xml")
    pairs, seen = [], {}
    for record in read_records(path, "pair", ("t", "h"), RteFileError, data):
        pair_id = record.attributes.get("id", "").strip()
        if not pair_id:
            raise RteFileError("is missing", file=path, line=record.line, field="id")
        if pair_id in seen:
            raise RteFileError(f"pair {pair_id} repeats line {seen[pair_id]}", file=path, line=record.line, field="id")
        seen[pair_id] = record.line
        judgement = (record.attributes.get("value") or record.attributes.get("entailment") or "").upper()
        if judgement not in _LABELS:
            raise RteFileError(f"pair {pair_id}: judgement {judgement!r} is not TRUE/FALSE or YES/NO", file=path,
                               line=record.line, field="entailment")
        for tag in ("t", "h"):
            if not record.text(tag):
                raise RteFileError(f"pair {pair_id}: <{tag}> is missing or empty", file=path, line=record.line,
                                   field=tag)
        pairs.append(RtePair(pair_id, record.text("t"), record.text("h"), _LABELS[judgement],
                             record.attributes.get("task", ""), name, record.line))
    return pairs


def proper_nouns(text: str) -> list[str]:
    """Runs of proper-noun tokens (NNP, NNPS), as they are written in the text."""
    tokens = nlp.word_tokenizer().tokenize(text)
    found, run = [], []
    for token, tag in zip(tokens, nlp.tagger().tag(tokens), strict=True):
        if tag in _PROPER and any(character.isalpha() for character in token):
            run.append(token)
            continue
        if run:
            found.append(" ".join(run))
        run = []
    if run:
        found.append(" ".join(run))
    return found


def whole_word(entity: str, text: str) -> int:
    """Where `entity` first stands in `text` as whole words ("Iraq" not inside "Iraqi"); -1 if nowhere."""
    found = re.search(r"(?<!\w)" + re.escape(entity) + r"(?!\w)", text)
    return found.start() if found else -1


def shared_entities(pair: RtePair) -> list[str]:
    """Proper-noun sequences of the hypothesis that also stand in the text as whole words, longest first."""
    found = []
    for entity in proper_nouns(pair.hypothesis):
        if whole_word(entity, pair.text) >= 0 and entity not in found:
            found.append(entity)
    return sorted(found, key=lambda entity: (-len(entity), pair.hypothesis.index(entity)))


INSTRUCTIONS = {
    "facts": ("Write several facts about the highlighted words according to the paragraph. You may add common "
              "knowledge (e.g. Paris is in France), but mainly use what the paragraph says. Do not copy and paste."),
    "counterfacts": ("Write several statements that contradict the paragraph. Make them about the highlighted "
                     "words and use mainly what the paragraph says. Avoid words like not or never."),
}
# What an item adds to the design's rules (designs/cheap-facts.yaml): counter-facts may not simply negate.
ITEM_RULES = {"facts": {}, "counterfacts": {"banned": ["not", "never"]}}


def fact_items(pairs: list[RtePair], *, instruction: str) -> list[Record]:
    """One record per pair that shares an entity, the longest shared entity highlighted at its first place in
    the text, with the source pair's own hypothesis and label kept to compare with."""
    return paragraphs(with_entities(pairs), instruction=instruction)


def with_entities(pairs: list[RtePair]) -> list[tuple[RtePair, list[str]]]:
    """The pairs that share an entity, in order, each with its shared entities (tagging a pair is the slow part:
    a draw finds them once)."""
    return [(pair, entities) for pair in pairs if (entities := shared_entities(pair))]


def paragraphs(found: list[tuple[RtePair, list[str]]], *, instruction: str) -> list[Record]:
    return [paragraph(f"{pair.source}-{pair.pair_id}-{instruction}", pair.text, entities[0], instruction,
                      hypothesis=pair.hypothesis, label=pair.label, source=f"{pair.source}:{pair.pair_id}")
            for pair, entities in found]


def paragraph(record_id: str, text: str, entity: str, instruction: str = "facts", *, hypothesis: str = "",
              label: str = "", source: str = "") -> Record:
    """A record of designs/cheap-facts.yaml: the paragraph, its entity highlighted where it first stands as whole
    words, the instruction (the record's group) and what it adds to the design's rules."""
    start = whole_word(entity, text)
    if instruction not in INSTRUCTIONS or start < 0:
        raise InputError(f"{record_id}: the instruction is facts or counterfacts and the entity words of the text "
                         f"(got {instruction!r}, {entity!r})", field="entity")
    return Record(id=record_id, text=text, group=instruction, fields={
        "entity": entity, "entity_start": start, "instruction": instruction, "prompt": INSTRUCTIONS[instruction],
        "rules": ITEM_RULES[instruction], "hypothesis": hypothesis, "label": label, "source": source})
