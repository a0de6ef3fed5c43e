"""The 40-item screening test, grading, grants and revocations, hosted and on MTurk."""

from django.apps import AppConfig


class QualificationConfig(AppConfig):
    name = "qualification"
    verbose_name = "Qualification"

    def ready(self):
        from hits.extensions import ELIGIBILITY, REVOKERS, STUDY_FILTERS
        from qualification.prolific import group_filter
        from qualification.services import eligibility_refusal, grants_revoke_count

        ELIGIBILITY.register("qualification", eligibility_refusal)
        REVOKERS.register("qualification", grants_revoke_count)
        STUDY_FILTERS.register("qualification", group_filter)
