"""Records of a simple XML corpus (COPA's <item>, RTE's <pair>): each record's attributes and the text
of its named child elements, with the line it starts on, so a reader can name the line of a bad record.
The external DTD these files name is never fetched (expat does not load it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from xml.parsers import expat

from core.errors import InputError


@dataclass
class XmlRecord:
    line: int
    attributes: dict[str, str]
    texts: dict[str, str] = field(default_factory=dict)

    def text(self, tag: str) -> str:
        """The child's text with whitespace runs made one space ("" when missing)."""
        return " ".join(self.texts.get(tag, "").split())


def read_records(path: str | PathLike[str], record: str, children: Sequence[str],
                 error: type[InputError] = InputError, data: bytes | None = None) -> list[XmlRecord]:
    """Every <record> element of the file in order (of `data` when given, an upload `path` names); errors (no
    file, not XML, no record) as `error`."""
    try:
        data = Path(path).read_bytes() if data is None else data
    except FileNotFoundError:
        raise error("no such file", file=path) from None
    except IsADirectoryError:
        raise error("is a folder; give the XML file itself", file=path) from None
    parser = expat.ParserCreate()
    found: list[XmlRecord] = []
    reading: list[str] = []  # the child whose text is being read, if any

    def start(tag: str, attributes: dict[str, str]) -> None:
        if tag == record:
            found.append(XmlRecord(parser.CurrentLineNumber, dict(attributes)))
        elif tag in children and found:
            reading[:] = [tag]
            found[-1].texts[tag] = ""

    def end(tag: str) -> None:
        reading[:] = []

    def text(data: str) -> None:
        if reading and found:
            found[-1].texts[reading[0]] += data

    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, text
    try:
        parser.Parse(data, True)
    except expat.ExpatError as problem:
        raise error(f"not valid XML: {expat.errors.messages[problem.code]}; fix it and import again", file=path,
                    line=problem.lineno) from None
    except (LookupError, ValueError) as problem:
        raise _encoding(problem, path, error) from None
    if not found:
        raise error(f"no <{record}> elements", file=path)
    return found


def root_tag(data: bytes, file: object, error: type[InputError] = InputError) -> str:
    """The name of the document's root element, read up to it (what kind of corpus the file is)."""
    parser = expat.ParserCreate()
    found: list[str] = []
    parser.StartElementHandler = lambda tag, attributes: found.append(tag)
    try:
        for start in range(0, len(data), 4096):  # a chunk at a time, so a large file is read only up to its root
            parser.Parse(data[start:start + 4096], False)
            if found:
                return found[0]
        parser.Parse(b"", True)
    except expat.ExpatError as problem:
        raise error(f"not valid XML: {expat.errors.messages[problem.code]}; fix it and import again", file=file,
                    line=problem.lineno) from None
    except (LookupError, ValueError) as problem:
        raise _encoding(problem, file, error) from None
    raise error("has no XML element", file=file)


def _encoding(problem: Exception, file: object, error: type[InputError]) -> InputError:
    # The XML declaration names an encoding expat does not know, or a multi-byte one (Shift JIS, Big5) it
    # cannot read: Python raises these as LookupError and ValueError rather than an ExpatError.
    return error(f"its XML declaration names an encoding this reader cannot read ({problem}); save the file as "
                 f"UTF-8 and import again", file=file, line=1)
