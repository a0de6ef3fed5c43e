import json
import re
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from filtering import nlp
from filtering.patterns import DEFAULT_PROFILE, PROFILES, CandidateFilter

_PARAGRAPH_BREAK = re.compile(r"[ \t\r\f\v]*")


class Command(BaseCommand):
    help = ("Run the candidate filter over a text file (no database) and print JSON lines: one per candidate, "
            "or with --all one per sentence. start/end are character offsets: input[start:end] == sentence. "
            "The file is read a line (--sentences) or a paragraph at a time, so memory stays flat however big "
            "it is.")
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("file", help="a UTF-8 text file, or - for standard input")
        parser.add_argument("--sentences", action="store_true", help="one sentence per line; do not split")
        parser.add_argument("--all", action="store_true", help="print every sentence with candidate true/false")
        parser.add_argument("--profile", default=DEFAULT_PROFILE, choices=sorted(PROFILES))

    def handle(self, *args, **options):
        engine = CandidateFilter(options["profile"])
        lines = _decoded_lines(options["file"])
        spans = _sentence_lines(lines) if options["sentences"] else _paragraph_sentences(lines)
        write, everything = self.stdout.write, options["all"]
        for start, sentence in spans:
            match = engine.match(sentence)
            if match.candidate or everything:
                record = {"sentence": sentence, "start": start, "end": start + len(sentence),
                          "rows": list(match.rows), "pos_forms": list(match.pos_forms)}
                if everything:
                    record["candidate"] = match.candidate
                write(json.dumps(record, ensure_ascii=False))


def _decoded_lines(name):
    """(character offset, line with its line break) of the input, read and decoded a line at a time."""
    try:
        handle = sys.stdin.buffer if name == "-" else Path(name).open("rb")  # noqa: SIM115 (the with below)
    except OSError as error:
        raise CommandError(f"{name}: {error.strerror}") from None
    offset = 0
    with handle:
        for number, raw in enumerate(handle, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise CommandError(f"{name}:{number}: invalid UTF-8 (byte {error.start} of the line); re-encode "
                                   f"the file as UTF-8") from None
            yield offset, line
            offset += len(line)


def _sentence_lines(lines):
    """(start, sentence) for each non-blank line, without its line break.

    Only \\n (and \\r\\n) end a line: str.splitlines would also break at U+2028 and friends, which are text
    inside a sentence here.
    """
    for offset, line in lines:
        content = line.rstrip("\n").rstrip("\r")
        if content.strip():
            yield offset, content


def _paragraph_sentences(lines):
    """(start, sentence) of every sentence, split a paragraph (blank-line separated) at a time, as
    nlp.split_sentences splits a whole text."""
    start, parts = 0, []
    for offset, line in lines:
        if not parts:
            start = offset
        if _PARAGRAPH_BREAK.fullmatch(line.rstrip("\n")) and parts:
            yield from _split(start, "".join(parts))
            parts, start = [], offset + len(line)
            continue
        parts.append(line)
    if parts:
        yield from _split(start, "".join(parts))


def _split(start, paragraph):
    for sentence_start, sentence_end in nlp.split_sentences(paragraph):
        yield start + sentence_start, paragraph[sentence_start:sentence_end]
