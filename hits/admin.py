from django import forms
from django.contrib import admin, messages
from django.db import transaction

from hits import tasks
from hits.models import Assignment, Batch, Hit, Item, Payment, Worker
from hits.providers import PROVIDERS
from hits.task_types import TASK_TYPES


class WorkKept:
    """For rows that hold annotated or paid work: never deleted from the admin (retire them instead)."""

    def has_delete_permission(self, request, obj=None):
        return False


def _queue(modeladmin, request, task, ids, *args, label):
    for pk in ids:
        transaction.on_commit(lambda pk=pk: task.delay(pk, *args))
    modeladmin.message_user(request, f"{label}: queued {len(ids)}", messages.SUCCESS)


class BatchForm(forms.ModelForm):
    """Task type and provider as choices of what is registered, not free text."""

    task_type = forms.ChoiceField(choices=())
    provider = forms.ChoiceField(choices=[(name, name) for name in PROVIDERS])

    class Meta:
        model = Batch
        fields = ["name", "task_type", "provider", "state", "items_per_hit", "assignments_per_hit", "gold_rate", "seed",
                  "reward", "budget", "assignment_duration", "lifetime", "auto_approval_delay", "requirements",
                  "provider_state", "created_by", "published"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["task_type"].choices = [(name, f"{name}: {task.title}") for name, task in TASK_TYPES.items()]


@admin.register(Batch)
class BatchAdmin(WorkKept, admin.ModelAdmin):
    form = BatchForm
    list_display = ("pk", "name", "task_type", "provider", "state", "items_per_hit", "assignments_per_hit", "reward",
                    "budget", "created")
    list_filter = ("state", "provider", "task_type")
    search_fields = ("name",)
    actions = ["publish", "sync", "expire", "cancel", "archive"]

    @admin.action(description="Cancel the selected batches (their HITs expire at the provider; work keeps syncing)")
    def cancel(self, request, queryset):
        _queue(self, request, tasks.batch_cancel, list(queryset.values_list("pk", flat=True)), label="cancel")

    @admin.action(description="Archive the selected batches (hidden from the lists, nothing deleted)")
    def archive(self, request, queryset):
        done = queryset.exclude(state__in=[Batch.State.PUBLISHING, Batch.State.PUBLISHED]).update(archived=True)
        self.message_user(request, f"archived {done}; published batches are cancelled first", messages.SUCCESS)

    def has_add_permission(self, request):
        # A batch is made with its items and HITs on a project's page (or `subtask1_batch`); a bare row here
        # would have none.
        return False

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
class HitAdmin(WorkKept, admin.ModelAdmin):
    list_display = ("pk", "batch", "index", "state", "provider_hit_id", "published")
    list_filter = ("state", "batch__provider")
    list_select_related = ("batch",)
    search_fields = ("provider_hit_id",)


@admin.register(Item)
class ItemAdmin(WorkKept, admin.ModelAdmin):
    list_display = ("pk", "batch", "key", "group", "is_gold")
    list_filter = ("is_gold", "group")
    list_select_related = ("batch",)
    search_fields = ("key",)


@admin.register(Assignment)
class AssignmentAdmin(WorkKept, admin.ModelAdmin):
    list_display = ("pk", "hit", "worker", "state", "flag", "claimed", "submitted", "reviewed")
    list_filter = ("state", "hit__batch__provider")
    list_select_related = ("hit__batch", "worker__user")
    search_fields = ("provider_assignment_id", "worker__external_id")
    actions = ["approve", "reject"]

    @admin.action(description="Approve the selected submissions (flagged ones are left for a person)")
    def approve(self, request, queryset):
        ids = list(queryset.filter(state=Assignment.State.SUBMITTED, flag="").values_list("pk", flat=True))
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


@admin.register(Payment)
class PaymentAdmin(WorkKept, admin.ModelAdmin):
    """The ledger is written by the services only; here it is read."""

    list_display = ("pk", "kind", "amount", "state", "worker", "assignment", "batch", "reason", "created", "confirmed")
    list_filter = ("kind", "state", "batch__provider")
    list_select_related = ("worker__user", "assignment__hit__batch", "batch")
    search_fields = ("reason", "worker__external_id", "key")
    readonly_fields = [field.name for field in Payment._meta.fields]

    def has_add_permission(self, request):
        return False
