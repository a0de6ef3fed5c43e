"""The demo runs end to end and a second run changes nothing."""

from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command

from hits.models import Assignment, Batch

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def test_it_runs_the_pipeline_twice_without_duplicating_anything():
    if not (settings.SHARED_DIR / "corpora").exists():
        pytest.skip(f"the shared corpora are not at {settings.SHARED_DIR}")
    out = StringIO()
    call_command("demo", stdout=out)
    text = out.getvalue()
    assert "2. filter (news profile): 434 candidates of 18308 sentences" in text
    assert "3. in-house: 95 assignments submitted over HTTP" in text
    assert "4. MTurk emulator: 95 assignments submitted" in text
    assert set(Batch.objects.values_list("state", flat=True)) == {"completed"}
    assert Assignment.objects.filter(state="approved").count() == 190
    again = StringIO()
    call_command("demo", stdout=again)
    assert "already done" in again.getvalue()
    assert Assignment.objects.count() == 190
