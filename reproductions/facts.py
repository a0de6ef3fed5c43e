"""Facts and counter-facts batches and what they yield: the written statements as RTE-style T-H pairs
(the paragraph as text, a fact as an entailed hypothesis, a counter-fact as a contradiction) and the
Cheap Facts paper's Tables 1 and 2 computed on them, beside the source's own hypotheses."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Any

from core.semeval import spreadsheet_csv
from core.textrules import overlap, position, words
from designs.items import Record
from designs.schemes.text import Text
from designs.services import design_batch_create, shipped_version
from designs.task_type import design_of, record
from hits.models import Assignment, Batch, Item
from hits.services import CrowdError
from reproductions.rte import RteFileError, RtePair, paragraphs, read_rte, with_entities

DESIGN = "cheap-facts"  # designs/cheap-facts.yaml
SCHEME = "statements"
LABELS = {"facts": "entailment", "counterfacts": "contradiction"}
PAIR_FIELDS = ("id", "text", "hypothesis", "label", "entity", "source", "worker")


def fact_batch_create(*, items: Sequence[Record], name: str, **options: Any) -> Batch:
    """A batch of designs/cheap-facts.yaml for `items` (fact_items' records); `options` as design_batch_create
    takes them (packing, reward, provider, filters, seed), the design's own where not given."""
    options.setdefault("provider", "inhouse")
    return design_batch_create(version=shipped_version(DESIGN), records=items, name=name, **options)


def draw_items(pairs: list[RtePair], *, texts: int | None, instruction: str, seed: int = 0) -> list[Record]:
    """`texts` paragraphs with a shared entity drawn (seeded; None: all of them, in file order); with "both",
    half for each instruction."""
    usable = with_entities(pairs)
    texts = len(usable) if texts is None else texts
    if texts > len(usable):
        raise CrowdError(f"asked for {texts} paragraphs; {len(usable)} of the file's {len(pairs)} pairs share an "
                           f"entity between text and hypothesis")
    kept = [usable[place] for place in sorted(random.Random(seed).sample(range(len(usable)), texts))]
    if instruction != "both":
        return paragraphs(kept, instruction=instruction)
    half = len(kept) // 2
    return paragraphs(kept[:half], instruction="facts") + paragraphs(kept[half:], instruction="counterfacts")


def fact_rows(data: bytes, name: str) -> list[tuple[int, dict[str, Any]]]:
    """An RTE XML file (an upload called `name`) as items under designs/cheap-facts.yaml's keys, for `design new`
    and the browser (designs.items.XML_ITEMS): every paragraph whose text and hypothesis share an entity, the
    first half asked for facts and the rest for counter-facts, as `manage.py facts batch` draws by default (its
    options draw fewer)."""
    pairs = read_rte(name, data)
    items = draw_items(pairs, texts=None, instruction="both")
    if not items:
        raise RteFileError("no pair's text and hypothesis share an entity (a name both mention), so no paragraph "
                           "has words to write about", file=name)
    lines = {f"{pair.source}:{pair.pair_id}": pair.line for pair in pairs}
    return [(lines[item.fields["source"]], {"id": item.id, "text": item.text, **item.fields}) for item in items]


def statements(batch: Batch) -> list[dict[str, Any]]:
    """Every statement of submitted or approved work as a T-H pair, in submission order."""
    labels = _statement_labels(batch)
    items = {item.pk: record(item) for item in Item.objects.filter(batch=batch)}
    rows = (Assignment.objects.answered(batch)
            .order_by("submitted", "pk").values_list("pk", "answers", "worker__external_id"))
    pairs = []
    for assignment, answers, worker in rows:
        for item_pk, answer in (answers or {}).items():
            payload = items[int(item_pk)]
            written = (answer or {}).get(SCHEME) or {}
            # In the design's box order (a JSON column may keep keys in its own order).
            for line, statement in enumerate((written[name] for name in labels if name in written), 1):
                pairs.append({"id": f"{payload.id}-{assignment}-{line}", "text": payload.text,
                              "hypothesis": statement, "label": LABELS[payload.fields["instruction"]],
                              "entity": payload.fields["entity"], "source": payload.fields["source"],
                              "worker": worker})
    return pairs


def _statement_labels(batch: Batch) -> list[str]:
    """The boxes of the batch's statements scheme; a batch of another design is refused."""
    design = design_of(batch)
    found = [scheme for scheme in design.annotation_schemes if scheme.name == SCHEME] if design else []
    if found and isinstance(found[0], Text):
        return [label.name for label in found[0].labels]
    raise CrowdError(f"batch {batch.pk} is not a facts batch (one made from designs/{DESIGN}.yaml)")


def tables(batch: Batch, pairs: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Table 1 (entities and statements, total and per text) and Table 2 (average length in words, average
    bag-of-words overlap with the text, where the entity sits) per instruction, with the source's own
    hypotheses of the same texts as the paper's comparison rows."""
    pairs = statements(batch) if pairs is None else pairs
    items = [record(item) for item in Item.objects.filter(batch=batch)]
    table1, table2 = {}, {}
    for instruction, label in LABELS.items():
        shown = [item for item in items if item.fields["instruction"] == instruction]
        if not shown:
            continue
        written = [pair for pair in pairs if pair["label"] == label]
        texts = {pair["text"] for pair in written}
        entities = {(pair["text"], pair["entity"]) for pair in written}
        table1[instruction] = {"texts": len(shown), "texts_answered": len(texts), "entities": len(entities),
                               "entities_per_text": len(entities) / len(texts) if texts else 0.0,
                               "statements": len(written),
                               "statements_per_text": len(written) / len(texts) if texts else 0.0}
        table2[instruction] = _shape([(pair["hypothesis"], pair["text"], pair["entity"]) for pair in written])
        original = "entailment" if instruction == "facts" else "not-entailment"
        table2[f"source {original} hypotheses"] = _shape([
            (item.fields["hypothesis"], item.text, item.fields["entity"]) for item in shown
            if item.fields["label"] == original])
    return {"batch": batch.pk, "table1": table1, "table2": table2}


def _shape(rows: list[tuple[str, str, str]]) -> dict[str, Any]:
    if not rows:
        return {"count": 0, "length": 0.0, "bow": 0.0, "head": 0.0, "middle": 0.0, "tail": 0.0}
    places = [position(statement, entity) for statement, _, entity in rows]
    placed = [place for place in places if place]
    share = {place: (placed.count(place) / len(placed) if placed else 0.0) for place in ("head", "middle", "tail")}
    return {"count": len(rows), "length": sum(len(words(statement)) for statement, _, _ in rows) / len(rows),
            "bow": sum(overlap(statement, text) for statement, text, _ in rows) / len(rows), **share}


def export_pairs(batch: Batch, folder: str | PathLike[str]) -> list[str]:
    """`pairs.jsonl` and `pairs.csv` (T-H pairs, RTE-style labels; the CSV spreadsheet-safe) and `tables.json`;
    the names written."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    pairs = statements(batch)
    (out / "pairs.jsonl").write_text("".join(json.dumps(pair) + "\n" for pair in pairs), encoding="utf-8")
    # Statements are typed by crowd workers: the CSV is for spreadsheets, so a cell a spreadsheet would run
    # as a formula gets a leading apostrophe; the JSONL keeps every statement as written.
    (out / "pairs.csv").write_text(spreadsheet_csv(PAIR_FIELDS, ([pair[name] for name in PAIR_FIELDS]
                                                                 for pair in pairs)), encoding="utf-8")
    (out / "tables.json").write_text(json.dumps(tables(batch, pairs), indent=2) + "\n", encoding="utf-8")
    return ["pairs.jsonl", "pairs.csv", "tables.json"]


def tables_text(found):
    lines = ["Table 1 (valid statements):",
             f"  {'':<14} {'texts':>6} {'entities':>9} {'per text':>9} {'statements':>11} {'per text':>9}"]
    for instruction, row in found["table1"].items():
        lines.append(f"  {instruction:<14} {row['texts']:>6} {row['entities']:>9} {row['entities_per_text']:>9.2f} "
                     f"{row['statements']:>11} {row['statements_per_text']:>9.2f}")
    lines += ["Table 2:", f"  {'':<34} {'count':>5} {'length':>7} {'BoW':>5} {'head':>5} {'middle':>7} {'tail':>5}"]
    for name, row in found["table2"].items():
        lines.append(f"  {name:<34} {row['count']:>5} {row['length']:>7.1f} {row['bow']:>5.2f} {row['head']:>5.0%} "
                     f"{row['middle']:>7.0%} {row['tail']:>5.0%}")
    return "\n".join(lines)
