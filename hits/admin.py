from django.contrib import admin, messages
from django.db import transaction

from hits import tasks
from hits.models import Assignment, Batch, Bonus, Hit, Item, Worker


def _queue(modeladmin, request, task, ids, *args, label):
    for pk in ids:
        transaction.on_commit(lambda pk=pk: task.delay(pk, *args))
    modeladmin.message_user(request, f"{label}: queued {len(ids)}", messages.SUCCESS)


@admin.register(Batch)
class BatchAdmin(admin.ModelAdmin):
    list_display = ("pk", "name", "task_type", "provider", "state", "items_per_hit", "assignments_per_hit", "reward",
                    "budget", "created")
    list_filter = ("state", "provider", "task_type")
    search_fields = ("name",)
    actions = ["publish", "sync", "expire"]

    @admin.action(description="Publish the selected batches")
    def publish(self, request, queryset):
        _queue(self, request, tasks.batch_publish, list(queryset.values_list("pk", flat=True)), label="publish")

    @admin.action(description="Sync results from the provider")
    def sync(self, request, queryset):
        _queue(self, request, tasks.batch_sync, list(queryset.values_list("pk", flat=True)), label="sync")

    @admin.action(description="Expire the selected batches")
    def expire(self, request, queryset):
        _queue(self, request, tasks.batch_expire, list(queryset.values_list("pk", flat=True)), label="expire")


@admin.register(Hit)
class HitAdmin(admin.ModelAdmin):
    list_display = ("pk", "batch", "index", "state", "provider_hit_id", "published")
    list_filter = ("state", "batch__provider")
    list_select_related = ("batch",)
    search_fields = ("provider_hit_id",)


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    list_display = ("pk", "batch", "key", "group", "is_gold")
    list_filter = ("is_gold", "group")
    list_select_related = ("batch",)
    search_fields = ("key",)


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ("pk", "hit", "worker", "state", "claimed", "submitted", "reviewed")
    list_filter = ("state", "hit__batch__provider")
    list_select_related = ("hit__batch", "worker__user")
    search_fields = ("provider_assignment_id", "worker__external_id")
    actions = ["approve", "reject"]

    @admin.action(description="Approve the selected submissions")
    def approve(self, request, queryset):
        ids = list(queryset.filter(state=Assignment.State.SUBMITTED).values_list("pk", flat=True))
        _queue(self, request, tasks.assignment_review, ids, True, label="approve")

    @admin.action(description="Reject the selected submissions (feedback: 'did not follow the instructions')")
    def reject(self, request, queryset):
        ids = list(queryset.filter(state=Assignment.State.SUBMITTED).values_list("pk", flat=True))
        _queue(self, request, tasks.assignment_review, ids, False, "did not follow the instructions", label="reject")


@admin.register(Worker)
class WorkerAdmin(admin.ModelAdmin):
    list_display = ("pk", "provider", "external_id", "user", "blocked", "created")
    list_filter = ("provider", "blocked")
    list_select_related = ("user",)
    search_fields = ("external_id", "user__username")
    actions = ["block"]

    @admin.action(description="Block the selected workers (reason: 'blocked by an organizer')")
    def block(self, request, queryset):
        ids = list(queryset.filter(blocked=False).values_list("pk", flat=True))
        _queue(self, request, tasks.worker_block, ids, "blocked by an organizer", label="block")


@admin.register(Bonus)
class BonusAdmin(admin.ModelAdmin):
    list_display = ("pk", "worker", "assignment", "amount", "reason", "sent")
    list_select_related = ("worker__user", "assignment__worker__user", "assignment__hit__batch")
