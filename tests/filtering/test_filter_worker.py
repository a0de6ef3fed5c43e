"""The filter's chunks run in a real Celery worker against PostgreSQL."""

import json
import tempfile
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from filtering.models import Candidate, FilterChunk
from filtering.services import corpus_ingest

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_it_filters_chunks_in_the_worker(celery_worker):
    path = Path(tempfile.mkdtemp()) / "news.jsonl"
    texts = ["Had I known, I would have sold. Shares rose.", "I wish it were true. Rates fell.",
             "The vote passed. Nothing else happened."]
    path.write_text("\n".join(json.dumps({"id": str(i), "domain": "finance", "text": t}) for i, t in enumerate(texts)))
    corpus_ingest(path=path, corpus_name="worker-news")
    out = StringIO()
    call_command("filter_candidates", "--corpus", "worker-news", "--chunk-size", "2", stdout=out)
    assert FilterChunk.objects.count() == 3
    assert FilterChunk.objects.filter(done=True).count() == 3
    assert sorted(Candidate.objects.values_list("sentence__text", flat=True)) == [
        "Had I known, I would have sold.", "I wish it were true."]
    assert "2 candidates of 6 sentences" in out.getvalue()
