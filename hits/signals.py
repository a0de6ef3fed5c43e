"""Signals for task types that keep their own records of answers.

`assignment_submitted(sender=<task type name>, assignment=...)` is sent once
per assignment, inside the transaction that stores its parsed answers, both
for in-house submissions and for submissions synced from a provider.
"""

from django.dispatch import Signal

assignment_submitted = Signal()
