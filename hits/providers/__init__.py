"""Crowd providers behind one interface (`base.Provider`).

`get_provider(name)` returns the configured provider; tests and the demo can
install another instance (e.g. an MTurk provider bound to the emulator) with
`use_provider`.
"""

from typing import Any

_INSTANCES: dict[str, Any] = {}


def get_provider(name):
    if name not in _INSTANCES:
        if name == "inhouse":
            from hits.providers.inhouse import InHouseProvider

            _INSTANCES[name] = InHouseProvider()
        elif name == "mturk":
            from hits.providers.mturk import MTurkProvider

            _INSTANCES[name] = MTurkProvider.from_settings()
        elif name == "prolific":
            from hits.providers.prolific import ProlificProvider

            _INSTANCES[name] = ProlificProvider.from_settings()
        else:
            raise LookupError(f"unknown crowd provider {name!r}; use inhouse, mturk or prolific")
    return _INSTANCES[name]


def use_provider(name, provider):
    """Install `provider` under `name` (None removes it); returns the previous one."""
    previous = _INSTANCES.pop(name, None)
    if provider is not None:
        _INSTANCES[name] = provider
    return previous


PROVIDERS = ("inhouse", "mturk", "prolific")
