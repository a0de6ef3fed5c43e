"""The span review: Subtask-2 answers as reviewable annotations, and the organizers' pages."""

from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Annotation"

    def ready(self):
        from annotation.services import SPAN_REVIEW, spans_record_submission, spans_withdraw_submission
        from core.components import COMPONENTS, Component

        COMPONENTS.register(SPAN_REVIEW, Component(
            "Double check before spans", "The span annotator first confirms the sentence is counterfactual; a 'no' "
            "sends it back to review instead of marking spans (the design's display_logic shows the spans on "
            "'yes'). Each answer becomes a SpanAnswer and the sentence's proposal for the organizers' span review.",
            runs="/review/spans/", submitted=spans_record_submission, withdrawn=spans_withdraw_submission))
