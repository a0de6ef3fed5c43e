from django.contrib import admin

from annotation.models import SpanAnnotation, SpanChange
from hits.admin import WorkKept


class SpanChangeInline(admin.TabularInline):
    model = SpanChange
    extra = 0
    can_delete = False
    readonly_fields = ["action", "worker", "user", "at", "before", "after", "note"]


@admin.register(SpanAnnotation)
class SpanAnnotationAdmin(WorkKept, admin.ModelAdmin):
    # History is kept by the review page; the admin only shows it.
    list_display = ["pk", "item", "worker", "flagged", "state", "reviewed_by", "reviewed"]
    list_filter = ["state", "flagged"]
    list_select_related = ["item", "worker__user", "reviewed_by"]
    readonly_fields = [field.name for field in SpanAnnotation._meta.fields]
    inlines = [SpanChangeInline]
