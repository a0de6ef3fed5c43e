import json
import re
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from filtering import nlp
from filtering.patterns import DEFAULT_PROFILE, PROFILES, CandidateFilter


class Command(BaseCommand):
    help = ("Run the candidate filter over a text file (no database) and print JSON lines: one per candidate, "
            "or with --all one per sentence. start/end are character offsets: input[start:end] == sentence.")
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("file", help="a UTF-8 text file, or - for standard input")
        parser.add_argument("--sentences", action="store_true", help="one sentence per line; do not split")
        parser.add_argument("--all", action="store_true", help="print every sentence with candidate true/false")
        parser.add_argument("--profile", default=DEFAULT_PROFILE, choices=sorted(PROFILES))

    def handle(self, *args, **options):
        text = self._read(options["file"])
        engine = CandidateFilter(options["profile"])
        spans = _lines(text) if options["sentences"] else nlp.split_sentences(text)
        out = self.stdout
        for start, end in spans:
            sentence = text[start:end]
            match = engine.match(sentence)
            if match.candidate or options["all"]:
                record = {"sentence": sentence, "start": start, "end": end,
                          "rows": list(match.rows), "pos_forms": list(match.pos_forms)}
                if options["all"]:
                    record["candidate"] = match.candidate
                out.write(json.dumps(record, ensure_ascii=False))

    def _read(self, name):
        try:
            raw = sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()
        except OSError as error:
            raise CommandError(f"{name}: {error.strerror}") from None
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as error:
            line = raw.count(b"\n", 0, error.start) + 1
            raise CommandError(
                f"{name}:{line}: invalid UTF-8 (byte {error.start}); re-encode the file as UTF-8"
            ) from None


def _lines(text):
    """(start, end) of each non-blank line, without its line break.

    Only \n (and \r\n) end a line: str.splitlines would also break at
    U+2028 and friends, which are text inside a sentence here.
    """
    for match in re.finditer(r"[^\n]+", text):
        content = match.group().rstrip("\r")
        if content.strip():
            yield match.start(), match.start() + len(content)
