"""A protocol-level MTurk emulator for tests and the demo (see server.py)."""

from hits.mturk_emulator.server import MTurkEmulator

__all__ = ["MTurkEmulator"]
