"""The error a user can cause and fix: it says where (file, line, field or id) and what to do."""

from __future__ import annotations


class CrowdsetError(Exception):
    """A failure whose message is meant for the person who asked: what went wrong and what to do.

    Pages show it, commands print it, and a job that raises it ends failed with
    it as its message. Anything else that escapes is a bug and is logged whole.
    """


class InputError(CrowdsetError, ValueError):
    """Bad input, reported as `file:line: field: message`.

    Every part of the location is optional; the message says what is wrong and
    what to do about it. Apps derive their own kinds (CrowdError, SpanError,
    SemEvalFileError, ...) so callers can catch one base class and show the
    message as it is.
    """

    def __init__(self, message: str, *, file: object = None, line: int | None = None, field: str | None = None):
        self.message = message
        self.file = None if file is None else str(file)
        self.line = line
        self.field = field
        super().__init__(self.describe())

    def describe(self) -> str:
        where = ":".join(str(part) for part in (self.file, self.line) if part is not None)
        text = f"{self.field}: {self.message}" if self.field else self.message
        return f"{where}: {text}" if where else text


def decode_utf8(data: bytes, *, file: object, error: type[InputError]) -> str:
    """`data` as text (a byte-order mark dropped); invalid UTF-8 raises `error` with the line it is on."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as found:
        line = data[:found.start].count(b"\n") + 1
        raise error(f"invalid UTF-8 at byte {found.start}; re-encode the file as UTF-8", file=file,
                    line=line) from None
