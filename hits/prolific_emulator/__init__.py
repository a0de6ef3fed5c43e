"""A protocol-level Prolific emulator for tests and the demo (see server.py)."""

from hits.prolific_emulator.server import ProlificEmulator, sign

__all__ = ["ProlificEmulator", "sign"]
