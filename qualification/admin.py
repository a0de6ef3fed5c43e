from django.contrib import admin

from qualification.models import Attempt, Grant, QualificationTest, TestItem


class TestItemInline(admin.TabularInline):
    model = TestItem
    fields = ("position", "sentence_id", "text", "answer", "rows")
    extra = 0


@admin.register(QualificationTest)
class QualificationTestAdmin(admin.ModelAdmin):
    list_display = ("name", "version", "pass_threshold", "duration", "retake_delay", "mturk_qualification_type_id")
    inlines = [TestItemInline]


@admin.register(Attempt)
class AttemptAdmin(admin.ModelAdmin):
    list_display = ("pk", "test", "worker", "started", "submitted", "score", "passed")
    list_filter = ("passed", "test")
    list_select_related = ("test", "worker__user")


@admin.register(Grant)
class GrantAdmin(admin.ModelAdmin):
    list_display = ("pk", "test", "worker", "score", "granted", "revoked")
    list_filter = ("test", "revoked")
    list_select_related = ("test", "worker__user")
