"""Who may take work in a batch, beyond not being blocked.

Apps register checks (the qualification app registers the screening-test
check); each check gets the batch and the worker and returns the reason for a
refusal, or None. The checks run when a worker claims a place and again when
they submit.
"""

_CHECKS = []


def register(check):
    _CHECKS.append(check)
    return check


def refusal(batch, worker):
    for check in _CHECKS:
        reason = check(batch, worker)
        if reason:
            return reason
    return None
