"""Reading a table of votes, `item,worker,label` per row (any labels), as researchers bring them to the
`agreement` command. Errors name the file, line and field; nothing is guessed."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

from core.errors import InputError, decode_utf8

COLUMNS = ("item", "worker", "label")
# A vote's fields are short ids and labels; a longer one is a broken file, refused by line.
MAX_FIELD = 1000


class VotesFileError(InputError):
    """A votes table that cannot be read; the message names file, line and field."""


@dataclass(frozen=True)
class Vote:
    line: int
    item: str
    worker: str
    label: str


def read_votes(path: str | PathLike[str], *, minimum: int = 2) -> list[Vote]:
    """The votes of a CSV with columns item, worker, label (others ignored), in file order.

    Refused by line: a ragged row, an empty or over-long field, a NUL, a worker voting twice on one
    item (naming both lines) and an item with fewer than `minimum` votes (naming its first line).
    A byte-order mark is accepted; invalid UTF-8 is refused with the line it is on.
    """
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise VotesFileError("no such file", file=path) from None
    except IsADirectoryError:
        raise VotesFileError("is a folder; give the CSV file itself", file=path) from None
    text = decode_utf8(data, file=path, error=VotesFileError)
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    try:
        header = reader.fieldnames or []
        missing = [column for column in COLUMNS if column not in header]
        if missing:
            raise VotesFileError(f"missing column(s) {', '.join(missing)}; the header is item,worker,label",
                                 file=path, line=1)
        votes: list[Vote] = []
        seen: dict[tuple[str, str], int] = {}
        start = reader.line_num
        for row in reader:
            line, start = start + 1, reader.line_num
            if None in row or any(value is None for value in row.values()):
                raise VotesFileError(f"the row's fields do not match the header's {len(header)}", file=path,
                                     line=line)
            for field in COLUMNS:
                value = row[field].strip()
                if not value:
                    raise VotesFileError("is empty", file=path, line=line, field=field)
                if len(value) > MAX_FIELD or "\x00" in value:
                    raise VotesFileError(f"is not a short id or label (over {MAX_FIELD} characters or a NUL)",
                                         file=path, line=line, field=field)
            vote = Vote(line, row["item"].strip(), row["worker"].strip(), row["label"].strip())
            earlier = seen.get((vote.item, vote.worker))
            if earlier is not None:
                raise VotesFileError(f"worker {vote.worker} already voted on item {vote.item} at line {earlier}; "
                                     f"keep one vote per worker and item", file=path, line=line)
            seen[(vote.item, vote.worker)] = line
            votes.append(vote)
    except csv.Error as error:
        raise VotesFileError(f"not CSV ({error}); a quote may be left open", file=path,
                             line=reader.line_num) from None
    if not votes:
        raise VotesFileError("no votes; the file needs a header item,worker,label and a row per vote", file=path)
    first: dict[str, int] = {}
    many: dict[str, int] = {}
    for vote in votes:
        first.setdefault(vote.item, vote.line)
        many[vote.item] = many.get(vote.item, 0) + 1
    for item, count in many.items():
        if count < minimum:
            raise VotesFileError(f"item {item} has {count} vote(s); agreement needs {minimum} or more per item "
                                 f"(collect more or leave it out)", file=path, line=first[item])
    return votes
