"""A protocol-level Prolific emulator for tests and the demo (see server.py)."""

from emulators.prolific.server import ProlificEmulator, sign

__all__ = ["ProlificEmulator", "sign"]
