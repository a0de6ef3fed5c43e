from django.contrib import admin

from jobs.models import Job


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ["pk", "kind", "target", "state", "created_by", "created", "finished", "message"]
    list_filter = ["kind", "state"]
    list_select_related = ["created_by"]
