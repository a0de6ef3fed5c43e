"""The filtering app's job kinds."""

from core.words import counted
from filtering.models import FilterChunk
from filtering.patterns import DEFAULT_PROFILE
from filtering.services import filter_run_prepare
from filtering.tasks import filter_run_queue
from jobs.registry import JOB_KINDS, JobKind


def run_filter(job, corpus):
    run = filter_run_prepare(profile=job.options.get("profile", DEFAULT_PROFILE), corpus=corpus)
    chunks = filter_run_queue(run)  # one task per chunk: every worker takes a share
    return f"filter run {run.pk}: {counted(len(chunks), 'chunk')} handed to the workers", {"run": run.pk}


def filter_progress(job):
    if not job.result.get("run"):
        return None
    chunks = FilterChunk.objects.filter(run_id=job.result["run"])
    return chunks.filter(done=True).count(), chunks.count()


JOB_KINDS.register("filter", JobKind("filter", "run the candidate filter over", "filtering.Corpus", run_filter,
                                     filter_progress))
