"""The 40-item screening test, grading, grants and revocations, hosted and on MTurk."""

from django.apps import AppConfig


class QualificationConfig(AppConfig):
    name = "qualification"
    verbose_name = "Qualification"

    def ready(self):
        from hits import eligibility
        from qualification.services import eligibility_refusal

        eligibility.register(eligibility_refusal)
