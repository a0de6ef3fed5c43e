from django.contrib import admin

from aggregation.models import AggregationRun, ItemOutcome, SpotCheck, WorkerStat
from hits.admin import WorkKept


@admin.register(AggregationRun)
class AggregationRunAdmin(WorkKept, admin.ModelAdmin):
    list_display = ("pk", "batch", "created", "votes", "alpha", "alpha_low", "alpha_high")
    list_select_related = ("batch",)


@admin.register(ItemOutcome)
class ItemOutcomeAdmin(WorkKept, admin.ModelAdmin):
    list_display = ("pk", "run", "item", "yes", "no", "outcome")
    list_filter = ("outcome",)
    list_select_related = ("run", "item")


@admin.register(WorkerStat)
class WorkerStatAdmin(WorkKept, admin.ModelAdmin):
    list_display = ("pk", "run", "worker", "votes", "consensus_accuracy", "gold_accuracy")
    list_select_related = ("run", "worker__user")


@admin.register(SpotCheck)
class SpotCheckAdmin(WorkKept, admin.ModelAdmin):
    list_display = ("pk", "assignment", "decision", "accuracy", "consensus_accuracy", "gold_accuracy", "decided_by")
    list_filter = ("decision",)
    list_select_related = ("assignment__worker__user", "assignment__hit__batch", "decided_by")
