"""Scheme types: one module each, registered in SCHEME_TYPES by the module's import below.

A type knows its widget (designs/widgets/<type>.html), how to read its answer from the submitted form
(`read`), which Krippendorff level its answers are measured at, and which aggregations fit it. Adding a type is
adding a module here and its widget; nothing else changes.
"""

from designs.schemes import (  # noqa: F401  (each registers itself)
    bws,
    choice,
    likert,
    multirate,
    multiselect,
    number,
    pairwise,
    pure_display,
    span,
    text,
)
from designs.schemes.base import SCHEME_TYPES, AnswerProblem, Record, scheme_type

__all__ = ["SCHEME_TYPES", "AnswerProblem", "Record", "scheme_type"]
