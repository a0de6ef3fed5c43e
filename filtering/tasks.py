from celery import shared_task
from django.db import OperationalError

from filtering.services import filter_chunk_process


# A lost database connection is the one failure that goes away by itself.
@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def filter_chunk(chunk_id):
    chunk = filter_chunk_process(chunk_id=chunk_id)
    return {"chunk": chunk.id, "sentences": chunk.sentences, "candidates": chunk.candidates}


def filter_run_queue(run):
    """Queue a task for each chunk of `run` not done yet (eagerly, they run here); returns their ids."""
    pending = list(run.chunks.filter(done=False).values_list("id", flat=True))
    for chunk_id in pending:
        filter_chunk.delay(chunk_id)
    return pending
