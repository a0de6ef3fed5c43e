"""Fault injection shared by the provider emulators (MTurk, Prolific): per operation, a share of calls
at random or exactly the next N calls, each dropped (the work done, the answer lost), throttled or failed;
and a delay per operation, so that a test can hold one call open while others arrive."""

import random
import threading
import time


class Faults:
    """Faults by operation: a share of calls at random (`set`), or exactly the next N calls (`next`)."""

    def __init__(self, seed=0):
        self.random = random.Random(seed)
        self.rules = {}
        self.queued = {}
        self.lock = threading.Lock()
        self.counts = {"drop": 0, "throttle": 0, "error": 0}
        self.delays = {}
        self.calls = {}  # operation -> calls made, for tests that check what was asked

    def slow(self, operation, seconds):
        """Every call of `operation` waits `seconds` before it is done (0 to stop)."""
        with self.lock:
            self.delays[operation] = float(seconds)

    def pause(self, operation):
        with self.lock:
            seconds = self.delays.get(operation, 0.0)
        if seconds:
            time.sleep(seconds)

    def set(self, rules):
        """{"Operation": {"drop": 0.1, "throttle": 0.1, "error": 0.0, "next": {"drop": 1}}}."""
        with self.lock:
            self.rules = {}
            for operation, rule in dict(rules).items():
                queued = dict(rule).pop("next", None)
                self.rules[operation] = {kind: share for kind, share in rule.items() if kind != "next"}
                for kind, count in (queued or {}).items():
                    self.queued.setdefault(operation, []).extend([kind] * int(count))

    def next(self, operation, kind="drop", count=1):
        """The next `count` calls of `operation` get `kind` ("drop": done, and the answer lost)."""
        with self.lock:
            self.queued.setdefault(operation, []).extend([kind] * count)

    def draw(self, operation):
        """'drop', 'throttle', 'error' or None for this call."""
        with self.lock:
            self.calls[operation] = self.calls.get(operation, 0) + 1
            if self.queued.get(operation):
                kind = self.queued[operation].pop(0)
                self.counts[kind] += 1
                return kind
            rule = self.rules.get(operation)
            if not rule:
                return None
            roll = self.random.random()
            for kind in ("drop", "throttle", "error"):
                share = float(rule.get(kind, 0))
                if roll < share:
                    self.counts[kind] += 1
                    return kind
                roll -= share
            return None
