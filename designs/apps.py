from django.apps import AppConfig


class DesignsConfig(AppConfig):
    name = "designs"

    def ready(self):
        from designs import components, task_type  # noqa: F401  (task_type registers the "design" task type)

        components.register()
        from designs.screening import DESIGN_TESTS_ENTRY
        from qualification.extensions import DESIGN_TESTS

        DESIGN_TESTS.register("design", DESIGN_TESTS_ENTRY)
        from designs.model_runs import models_spent
        from hits.extensions import SPENDING

        SPENDING.register("models", models_spent)  # a model's tokens count against the batch's budgets
        from designs.model_votes import model_answers, model_votes
        from hits.extensions import MODEL_ANSWERS, MODEL_VOTES

        MODEL_VOTES.register("design", model_votes)  # a model as one more voter in adaptive batches
        MODEL_ANSWERS.register("design", model_answers)  # and beside the crowd in the vote rules' methods
        from designs import attention
        from hits.extensions import ELIGIBILITY, FILTER_WORDS, NOTICES

        ELIGIBILITY.register("attention checks", attention.refusal)  # Potato's block_threshold
        NOTICES.register("attention checks", attention.notice)  # and its warn_threshold
        NOTICES.register("gold feedback", attention.gold_feedback)  # Potato's gold_standards.feedback
        FILTER_WORDS.register("attention checks", attention.words)
