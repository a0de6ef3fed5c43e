"""Fault injection shared by the provider emulators (MTurk, Prolific): per operation, a share of calls at random
or exactly the next N calls, and a delay per operation, so that a test can hold one call open while others arrive.

Two families of faults, because a client must treat them differently:
- before the work (nothing was done, the client may simply try again): `throttle` (429 with Retry-After, or
  MTurk's ThrottlingException) and `error` (503);
- after the work (it was done, and the answer is lost on the way back, as a gateway or the network loses it):
  `drop` (the connection closed unanswered, a reset), `502` and `504` (a gateway's answer) and `timeout` (no
  answer until the client gives up). A client that sends such a call again without looking first does it twice.
"""

import random
import threading
import time

BEFORE = ("throttle", "error")
AFTER = ("drop", "502", "504", "timeout")
KINDS = BEFORE + AFTER


class Faults:
    """Faults by operation: a share of calls at random (`set`), or exactly the next N calls (`next`)."""

    def __init__(self, seed=0, *, timeout_seconds=2.0):
        self.random = random.Random(seed)
        self.rules = {}
        self.queued = {}
        self.lock = threading.Lock()
        self.counts = dict.fromkeys(KINDS, 0)
        self.delays = {}
        self.calls = {}  # operation -> calls made, for tests that check what was asked
        self.done = {}  # operation -> calls whose work was done (a fault after the work included)
        # How long a `timeout` keeps the client waiting before the connection closes: longer than the client's
        # read timeout (the tests set theirs under a second).
        self.timeout_seconds = timeout_seconds
        # What a `throttle` answers in Retry-After (seconds).
        self.retry_after = "0"

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
        """{"Operation": {"drop": 0.1, "throttle": 0.1, "502": 0.05, "next": {"504": 1}}}."""
        with self.lock:
            self.rules = {}
            for operation, rule in dict(rules).items():
                queued = dict(rule).pop("next", None)
                unknown = set(rule) - set(KINDS) - {"next"}
                if unknown:
                    raise ValueError(f"unknown fault kinds {sorted(unknown)}; use {', '.join(KINDS)}")
                self.rules[operation] = {kind: share for kind, share in rule.items() if kind != "next"}
                for kind, count in (queued or {}).items():
                    self.queued.setdefault(operation, []).extend([kind] * int(count))

    def next(self, operation, kind="drop", count=1):
        """The next `count` calls of `operation` get `kind` (see the module's docstring)."""
        if kind not in KINDS:
            raise ValueError(f"unknown fault kind {kind!r}; use {', '.join(KINDS)}")
        with self.lock:
            self.queued.setdefault(operation, []).extend([kind] * count)

    def draw(self, operation):
        """One of KINDS, or None, for this call."""
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
            for kind in KINDS:
                share = float(rule.get(kind, 0))
                if roll < share:
                    self.counts[kind] += 1
                    return kind
                roll -= share
            return None

    def worked(self, operation):
        """Count a call whose work was done (whatever its answer)."""
        with self.lock:
            self.done[operation] = self.done.get(operation, 0) + 1

    def lose_answer(self, handler, kind, send):
        """After the work: lose the answer as `kind` says. `send(status, body, headers)` answers for 502 and 504."""
        if kind == "502":
            return send(502, "<html><body><h1>502 Bad Gateway</h1></body></html>")
        if kind == "504":
            return send(504, "<html><body><h1>504 Gateway Time-out</h1></body></html>")
        if kind == "timeout":
            time.sleep(self.timeout_seconds)
        handler.close_connection = True  # `drop` and `timeout`: the connection closes with no answer
        return None
