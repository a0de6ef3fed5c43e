"""Five-sentence stories for counterfactual rewriting (the TimeTravel design): read from JSONL or CSV, the
word-level edit measures the edit stage is bounded by, and the released record format written and read back.

A story is a premise (s1), an initial event (s2) and a three-sentence ending (s3-s5). The released records
are `story_id, premise, initial, counterfactual, original_ending, edited_ending`: `original_ending` one
string, `edited_ending` a list of three sentences; dev and test records carry `edited_endings`, a list of
such lists, one per worker who edited the ending.
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any

from core.errors import InputError, decode_utf8

MAX_LINE = 20_000  # characters of one story line: a story is five short sentences
STORY_FIELDS = ("story_id", "premise", "initial", "original_ending")
CSV_FIELDS = ("story_id", "sentence1", "sentence2", "sentence3", "sentence4", "sentence5")
RECORD_FIELDS = ("story_id", "premise", "initial", "counterfactual", "original_ending")
WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|\d+", re.UNICODE)
# Sentence ends inside a released ending string: . ! ? (with closing quotes) followed by space.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)]*\s+")


class StoryFileError(InputError):
    """A story file that cannot be read; the message names the file, line and field."""


@dataclass(frozen=True)
class Story:
    story_id: str
    premise: str
    initial: str
    ending: tuple[str, str, str]

    @property
    def original_ending(self) -> str:
        return " ".join(self.ending)


def words(text: str) -> list[str]:
    return [word.lower() for word in WORD.findall(text)]


def ending_sentences(text: str) -> list[str]:
    return [part.strip() for part in _SENTENCE_END.split(text.strip()) if part.strip()]


def read_stories(path: str | PathLike[str]) -> list[Story]:
    """Stories from `.jsonl` (`story_id, premise, initial, original_ending`, the ending a string of three
    sentences or a list of three) or `.csv` (`story_id, sentence1` … `sentence5`, ROCStories' columns; other
    columns are ignored). Refused by line: broken UTF-8, a missing or empty field, an ending that is not three
    sentences, a repeated story id, an empty file."""
    path = Path(path)
    text = decode_utf8(path.read_bytes(), file=path, error=StoryFileError)
    rows = _csv_rows(path, text) if path.suffix.lower() == ".csv" else _jsonl_rows(path, text)
    stories: list[Story] = []
    seen: dict[str, int] = {}
    for line, row in rows:
        story = _story(path, line, row)
        if story.story_id in seen:
            raise StoryFileError(f"story {story.story_id} is also at line {seen[story.story_id]}; story ids must "
                                 f"be unique", file=path, line=line, field="story_id")
        seen[story.story_id] = line
        stories.append(story)
    if not stories:
        raise StoryFileError("no stories; expected one JSON object a line or a CSV with "
                             f"{', '.join(CSV_FIELDS)}", file=path)
    return stories


def _jsonl_rows(path: Path, text: str) -> Iterable[tuple[int, dict[str, Any]]]:
    for line, content in enumerate(text.splitlines(), 1):
        if not content.strip():
            continue
        if len(content) > MAX_LINE:
            raise StoryFileError(f"is {len(content):,} characters long (at most {MAX_LINE:,}); a story is five "
                                 f"sentences", file=path, line=line)
        row = _object(path, line, content)
        missing = [name for name in STORY_FIELDS if name not in row]
        if missing:
            raise StoryFileError(f"missing field(s) {', '.join(missing)}", file=path, line=line)
        ending = row["original_ending"]
        if isinstance(ending, str):
            ending = ending_sentences(ending)
        yield line, {"story_id": row["story_id"], "premise": row["premise"], "initial": row["initial"],
                     "ending": ending}


def _object(path: Path, line: int, content: str) -> dict[str, Any]:
    try:
        row = json.loads(content)
    except json.JSONDecodeError as error:
        raise StoryFileError(f"not JSON ({error.msg} at column {error.colno})", file=path, line=line) from None
    if not isinstance(row, dict):
        raise StoryFileError(f"expected a JSON object, got {type(row).__name__}", file=path, line=line)
    return row


def _csv_rows(path: Path, text: str) -> Iterable[tuple[int, dict[str, Any]]]:
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if header is None:
        return
    header = [name.strip() for name in header]
    if "storyid" in header and "story_id" not in header:
        header[header.index("storyid")] = "story_id"  # ROCStories' own spelling
    missing = [name for name in CSV_FIELDS if name not in header]
    if missing:
        raise StoryFileError(f"missing column(s) {', '.join(missing)}", file=path, line=1)
    at = {name: header.index(name) for name in CSV_FIELDS}
    try:
        for row in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise StoryFileError(f"has {len(row)} fields, the header {len(header)}", file=path, line=line)
            cells = {name: row[index] for name, index in at.items()}
            yield line, {"story_id": cells["story_id"], "premise": cells["sentence1"], "initial": cells["sentence2"],
                         "ending": [cells["sentence3"], cells["sentence4"], cells["sentence5"]]}
    except csv.Error as error:
        raise StoryFileError(f"not CSV ({error})", file=path, line=reader.line_num) from None


def _story(path: Path, line: int, row: dict[str, Any]) -> Story:
    for name in ("story_id", "premise", "initial"):
        value = row[name]
        if not isinstance(value, str) or not value.strip():
            raise StoryFileError("is empty or not text", file=path, line=line, field=name)
    ending = row["ending"]
    if (not isinstance(ending, list) or len(ending) != 3
            or not all(isinstance(sentence, str) and sentence.strip() for sentence in ending)):
        found = len(ending) if isinstance(ending, list) else type(ending).__name__
        raise StoryFileError(f"needs three sentences (s3-s5), found {found}", file=path, line=line,
                             field="original_ending")
    return Story(story_id=row["story_id"].strip(), premise=row["premise"].strip(), initial=row["initial"].strip(),
                 ending=(ending[0].strip(), ending[1].strip(), ending[2].strip()))


# --- how much an edit changed -------------------------------------------------------

@dataclass(frozen=True)
class EditSize:
    """A rewritten ending against the original, in words: the word-level edit distance (insertions,
    deletions, substitutions), the original's length, and the share of the original's words kept in order."""

    distance: int
    original_words: int
    kept: int

    @property
    def changed_share(self) -> float:
        return self.distance / self.original_words if self.original_words else 0.0

    @property
    def kept_share(self) -> float:
        return self.kept / self.original_words if self.original_words else 1.0

    def describe(self) -> str:
        return (f"{self.distance} word edit{'s' if self.distance != 1 else ''} for {self.original_words} words "
                f"({self.changed_share:.0%} changed, {self.kept_share:.0%} kept)")


def edit_size(original: Sequence[str], edited: Sequence[str]) -> EditSize:
    """Levenshtein distance over the words of the whole ending, and the longest common subsequence kept."""
    before, after = words(" ".join(original)), words(" ".join(edited))
    previous = list(range(len(after) + 1))
    common = [0] * (len(after) + 1)
    for i, word in enumerate(before, 1):
        current, shared = [i] + [0] * len(after), [0] * (len(after) + 1)
        for j, other in enumerate(after, 1):
            same = word == other
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (0 if same else 1))
            shared[j] = common[j - 1] + 1 if same else max(common[j], shared[j - 1])
        previous, common = current, shared
    return EditSize(distance=previous[-1], original_words=len(before), kept=common[-1])


# --- the released records -----------------------------------------------------------

def record(story: Story, counterfactual: str, endings: Sequence[Sequence[str]], *, several: bool) -> dict[str, Any]:
    """One released record: `edited_ending` (train: one ending) or `edited_endings` (dev/test: all)."""
    row: dict[str, Any] = {"story_id": story.story_id, "premise": story.premise, "initial": story.initial,
                           "counterfactual": counterfactual, "original_ending": story.original_ending}
    if several:
        row["edited_endings"] = [list(ending) for ending in endings]
    else:
        (ending,) = endings
        row["edited_ending"] = list(ending)
    return row


def read_records(path: str | PathLike[str]) -> list[dict[str, Any]]:
    """Released records read back and checked: every field present with its type, endings of three
    sentences; a record has `edited_ending` or `edited_endings`, not both."""
    path = Path(path)
    found = []
    for line, content in enumerate(decode_utf8(path.read_bytes(), file=path, error=StoryFileError).splitlines(), 1):
        if not content.strip():
            continue
        row = _object(path, line, content)
        for name in RECORD_FIELDS:
            if not isinstance(row.get(name), str) or not row[name]:
                raise StoryFileError("missing or not text", file=path, line=line, field=name)
        several = "edited_endings" in row
        if several == ("edited_ending" in row):
            raise StoryFileError("needs edited_ending (train) or edited_endings (dev, test)", file=path, line=line)
        endings = row["edited_endings"] if several else [row.get("edited_ending")]
        if not isinstance(endings, list) or not endings or not all(
                isinstance(ending, list) and len(ending) == 3 and all(isinstance(s, str) and s for s in ending)
                for ending in endings):
            raise StoryFileError("an edited ending is a list of three sentences", file=path, line=line,
                                 field="edited_endings" if several else "edited_ending")
        unknown = set(row) - set(RECORD_FIELDS) - {"edited_ending", "edited_endings"}
        if unknown:
            raise StoryFileError(f"unknown field(s) {', '.join(sorted(unknown))}", file=path, line=line)
        found.append(row)
    return found


def word_diff(original: Sequence[str], edited: Sequence[str]) -> list[tuple[str, str]]:
    """The edited ending against the original as runs of ("same" | "removed" | "added", text), by words as
    written (punctuation stays on its word), for the organizer's view of an edit."""
    before, after = " ".join(original).split(), " ".join(edited).split()
    runs: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=before, b=after, autojunk=False).get_opcodes():
        if tag == "equal":
            runs.append(("same", " ".join(before[i1:i2])))
            continue
        if i2 > i1:
            runs.append(("removed", " ".join(before[i1:i2])))
        if j2 > j1:
            runs.append(("added", " ".join(after[j1:j2])))
    return runs
