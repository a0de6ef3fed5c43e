"""Scheme types: one module each, registered in SCHEME_TYPES by the module's import below, in the order the
design file reference lists them (designs.schemes.base says what a type holds).

Adding a type is adding a module here (a `SchemeType` subclass with its settings model) and its widget
(designs/templates/designs/widgets/<name>.html); the design model's union of schemes, designs/schema.json and
the docs' design-file reference follow by themselves.
"""

from designs.schemes import (  # noqa: F401, I001  (each registers itself, in this order: not sorted)
    radio,
    select,
    multiselect,
    likert,
    turn_rating,
    tree_annotation,
    failure_attribution,
    tool_call_review,
    code_review,
    trajectory_eval,
    trajectory_edit,
    agent_scorecard,
    handoff_review,
    tool_contention,
    agent_interaction_graph,
    emergent_behavior,
    consensus_tracking,
    interlinear_gloss,
    triad_test,
    slider,
    range_slider,
    number,
    list_experiment,
    datetime,
    text,
    free_list,
    ego_network,
    span,
    span_link,
    event_annotation,
    multi_document_event,
    pairwise,
    bws,
    multirate,
    price_list,
    conjoint,
    constant_sum,
    ranking,
    card_sort,
    cloze,
    pure_display,
)
from designs.schemes.base import SCHEME_TYPES, AnswerProblem, Fields, Record, SchemeType, scheme_type

__all__ = ["SCHEME_TYPES", "AnswerProblem", "Fields", "Record", "SchemeType", "scheme_type"]
