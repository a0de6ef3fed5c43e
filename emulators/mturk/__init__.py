"""A protocol-level MTurk emulator for tests and the demo (see server.py)."""

from emulators.mturk.server import MTurkEmulator

__all__ = ["MTurkEmulator"]
