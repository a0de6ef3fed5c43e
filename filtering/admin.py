from django.contrib import admin

from filtering.models import Candidate, Corpus, Document, FilterChunk, FilterRun


@admin.register(Corpus)
class CorpusAdmin(admin.ModelAdmin):
    list_display = ("name", "created")


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ("external_id", "corpus", "domain", "title")
    list_filter = ("domain", "corpus")
    list_select_related = ("corpus",)
    search_fields = ("external_id", "title")


@admin.register(FilterRun)
class FilterRunAdmin(admin.ModelAdmin):
    list_display = ("pk", "profile", "scope", "created")


@admin.register(FilterChunk)
class FilterChunkAdmin(admin.ModelAdmin):
    list_display = ("pk", "run", "first_id", "last_id", "done", "sentences", "candidates", "finished")
    list_filter = ("done",)
    list_select_related = ("run",)


@admin.register(Candidate)
class CandidateAdmin(admin.ModelAdmin):
    list_display = ("pk", "sentence", "rows", "pos_forms", "run")
    list_select_related = ("sentence", "run")
    raw_id_fields = ("sentence",)
