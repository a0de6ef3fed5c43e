"""What zipfile raises for a zip it cannot unpack, and what to tell the person who uploaded it.

A damaged or unusual zip fails in many ways besides BadZipFile: a bad CRC or header (BadZipFile), a broken deflate
stream (zlib.error), a cut-off member (EOFError), an encrypted member (RuntimeError), a compression or zip version
zipfile does not know (NotImplementedError), offsets that point nowhere (ValueError).
"""

from __future__ import annotations

import zipfile
import zlib

UNREADABLE = (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError, ValueError)


def unreadable(error: BaseException, member: str) -> str:
    """Why `member` of an uploaded zip could not be read, and what to do."""
    if isinstance(error, RuntimeError) and "encrypted" in str(error):
        return f"{member!r} is encrypted; zip the folder again without a password"
    if isinstance(error, NotImplementedError):
        return f"{member!r} is packed in a way this reader cannot unpack ({error}); zip the folder again as a plain zip"
    return f"{member!r} cannot be unpacked ({error or type(error).__name__}): the zip is damaged; zip the folder again"
