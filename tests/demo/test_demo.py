"""The demo runs end to end and a second run changes nothing."""

import re
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command

from aggregation.models import AggregationRun
from aggregation.services import run_staleness
from annotation.models import SpanAnnotation
from core.stories import read_records
from hits.models import Assignment, Batch
from releases.models import DatasetVersion

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def test_it_runs_the_pipeline_twice_without_duplicating_anything():
    if not (settings.SHARED_DIR / "corpora").exists():
        pytest.skip(f"the shared corpora are not at {settings.SHARED_DIR}")
    out = StringIO()
    call_command("demo", stdout=out)
    text = out.getvalue()
    assert "2. filter (extended profile): 443 candidates of 18308 sentences" in text
    assert "sample: 300 of 443 candidates, balanced across domains: {'finance': 72, 'healthcare': 114, " \
           "'politics': 114}" in text
    assert "qualification pool (inhouse): 5 of 14 passed counterfactual-screening v1" in text
    assert "sim-spammer1 40% (refused)" in text
    assert "3. in-house: 70 assignments submitted over HTTP" in text
    assert "4. MTurk emulator: 70 assignments submitted" in text
    assert "4b. Prolific emulator: 5 places submitted by simulated participants" in text
    assert "reconcile clean" in text
    assert "blocked below 70%: sim-agg-spammer1, sim-agg-spammer2" in text
    assert "on the released sentences: passes 1427 of 1454 counterfactuals (98.1%)" in text
    # The spot checks rejected HITs after the first aggregation: the demo aggregates again, and its
    # version is built from the run that saw every review.
    assert "aggregated again after the spot checks: 2500 votes before, 2375 after the rejected HITs left" in text
    version = DatasetVersion.objects.get(name="demo-crowd")
    run = AggregationRun.objects.get(pk=version.config["aggregation_run"])
    assert run == run.batch.aggregations.latest() and run_staleness(run) == ""
    assert "6. spans: 2 HITs submitted over HTTP" in text
    assert "19 sentences, each marked by one annotator (2 annotators)" in text
    assert SpanAnnotation.objects.filter(state="accepted").count() + \
        SpanAnnotation.objects.filter(state="removed").count() == 19
    assert "Table 2" in text and version.spans.count() > 0
    assert "manage.py runserver" in text
    assert "11. Balanced COPA: 1000 items in 500 pairs" in text
    assert "'a' applies to 21.2% of the originals with productivity 57.5%" in text
    assert "export: 900 train / 100 dev items, every pair on one side" in text
    assert "12. Cheap Facts: 20 RTE paragraphs" in text
    assert "refused on the server, then written again:" in text and "for copy" in text
    assert "/projects/balanced-copa-demo/" in text and "/projects/cheap-facts-demo/" in text
    assert set(Batch.objects.values_list("state", flat=True)) == {"completed"}
    semeval = Assignment.objects.filter(hit__batch__task_type__in=("subtask1", "subtask2"))
    states = {state: semeval.filter(state=state).count() for state in ("approved", "rejected")}
    assert states["approved"] + states["rejected"] == 247
    assert states["rejected"] > 0  # spot checks rejected the spammers' HITs at the provider
    again = StringIO()
    call_command("demo", stdout=again)
    assert again.getvalue().count("already done") == 6
    assert semeval.count() == 247
    # The other designs: 20 HITs of 3 for B-COPA and 4 HITs of 3 for Cheap Facts, reviewed, not made again.
    assert Assignment.objects.filter(hit__batch__task_type="choice", state__in=("approved", "rejected")).count() == 60
    assert Assignment.objects.filter(hit__batch__task_type="facts", state="approved").count() == 12
    stories = ("story-write", "story-edit", "likert", "pairwise")
    assert Assignment.objects.exclude(hit__batch__task_type__in=stories).count() == 247 + 72
    # Counterfactual story rewriting: every story written once, checked and edited, the export read back.
    assert "13. Counterfactual story rewriting (TimeTravel): 34 stories" in text
    assert Assignment.objects.filter(hit__batch__task_type="story-write").count() == 34
    assert "refused on the server, then edited again: " in text and "ending rewritten" in text
    assert re.search(r"checks: \d+, sent back [1-9]\d* ", text)
    exported = settings.BASE_DIR / "exports" / "timetravel"
    records = {split: read_records(exported / f"{split}.jsonl") for split in ("train", "dev", "test")}
    assert all(records.values()) and all("edited_endings" in row for row in records["dev"] + records["test"])
    assert re.search(r"ordinal alpha 0\.\d+ \[", text) and "Pairwise (32 pairs" in text
