"""The demo runs end to end and a second run changes nothing."""

import html
import re
from io import StringIO

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from aggregation.models import AggregationRun
from aggregation.services import run_staleness
from annotation.models import SpanAnnotation, SpanAnswer
from core.spans import Spans, majority_spans
from core.stories import read_records
from hits.models import Assignment, Batch, Hit
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
    # Adaptive redundancy, positives only: most votes are not bought, nothing is left pending, and what it calls
    # positive the released labels call positive.
    saved = re.search(r"   (\d+) of 2500 votes not bought \((\d+) sentences settled early", text)
    assert saved and int(saved.group(1)) > 1000
    adaptive = Batch.objects.get(name="demo subtask-1, adaptive (released training sentences)")
    assert Hit.objects.filter(batch=adaptive, places__isnull=False).count() > 0  # retired and re-packed HITs
    found = re.search(r"discarded \d+, pending 0; (\d+) of the (\d+) positives are released positives", text)
    assert found and int(found.group(1)) >= 0.9 * int(found.group(2)) > 0
    version = DatasetVersion.objects.get(name="demo-crowd")
    run = AggregationRun.objects.get(pk=version.config["aggregation_run"])
    assert run == run.batch.aggregations.latest() and run_staleness(run) == ""
    assert "6. spans: 6 HITs submitted over HTTP" in text
    assert "19 sentences, each marked by 3 annotators (5 in all)" in text
    assert re.search(r"span agreement: 1\d sentences, \d+ pairs; token F1 antecedent 0\.\d{3}", text)
    assert SpanAnnotation.objects.filter(state="accepted").count() + \
        SpanAnnotation.objects.filter(state="removed").count() == 19
    # The double-annotated demo batch: the review page shows every answer and the majority it started from.
    client = Client()
    client.force_login(User.objects.get(username="demo-organizer"))
    reviewed = SpanAnnotation.objects.filter(state="accepted", worker=None).order_by("pk").first()
    page = client.get(reverse("annotation:review", args=[reviewed.pk])).content.decode()
    assert page.count('class="span-answer"') == 3 and "Majority (the proposal)" in page
    majority = re.search(r'<tr id="span-majority">.*?<span class="ant">(.*?)</span>', page, re.S).group(1)
    found = majority_spans(reviewed.text, [Spans(*answer.spans()) for answer in
                                           SpanAnswer.objects.filter(item=reviewed.item, counterfactual=True)])
    assert majority == html.escape(reviewed.text[found.antecedent_start:found.antecedent_end + 1])
    assert "Table 2" in text and version.spans.count() > 0
    card = (settings.BASE_DIR / "exports" / "demo" / "README.md").read_text(encoding="utf-8")
    assert re.search(r"span batch \d+ \(demo subtask-2 \(spans\)\): 3 annotator\(s\) a sentence", card)
    assert re.search(r"  - semeval: 1\d sentences, \d+ pairs; token F1", card)  # per domain
    assert "manage.py runserver" in text
    assert "11. Balanced COPA: 1000 items in 500 pairs" in text
    assert "'a' applies to 21.2% of the originals with productivity 57.5%" in text
    assert "export: 900 train / 100 dev items, every pair on one side" in text
    assert "12. Cheap Facts: 20 RTE paragraphs" in text
    assert "refused on the server, then written again:" in text and "for copy" in text
    assert "/projects/balanced-copa-demo/" in text and "/projects/cheap-facts-demo/" in text
    assert set(Batch.objects.values_list("state", flat=True)) == {"completed"}
    semeval = Assignment.objects.filter(hit__batch__design_link__version__slug__in=("semeval-subtask1",
                                                                                    "semeval-subtask2"))
    states = {state: semeval.filter(state=state).count() for state in ("approved", "rejected")}
    assert states["approved"] + states["rejected"] == 251  # 70 + 70 + 5 places + 100 + 6 span HITs
    assert states["rejected"] > 0  # spot checks rejected the spammers' HITs at the provider
    before = semeval.count(), Assignment.objects.count()
    again = StringIO()
    call_command("demo", stdout=again)
    assert again.getvalue().count("already done") == 7
    assert (semeval.count(), Assignment.objects.count()) == before  # nothing made again
    # The other designs: 20 HITs of 3 for B-COPA (designs/bcopa.yaml) and 4 HITs of 3 for Cheap Facts, reviewed,
    # not made again.
    copa_batch = Assignment.objects.filter(hit__batch__name="B-COPA validation")
    assert copa_batch.filter(hit__batch__task_type="design", state__in=("approved", "rejected")).count() == 60
    facts = Assignment.objects.filter(hit__batch__name="Cheap Facts writing")
    assert facts.filter(hit__batch__task_type="design", state="approved").count() == 12
    # Subtask 1 (a design file) and 2 (with the adaptive batch's): every assignment is one of the designs' or these.
    designs = Assignment.objects.filter(hit__batch__task_type="design").exclude(
        hit__batch__design_link__version__slug__in=("semeval-subtask1", "semeval-subtask2"))
    assert designs.count() + semeval.count() == Assignment.objects.count()
    # A seed design as a design file: 4 HITs of 3 through the generic task page, not made again.
    assert "14. A design file: bcopa.yaml (40 COPA items, 3 annotators" in text
    # The design batches: B-COPA, bcopa.yaml, Cheap Facts, TimeTravel's write and check stages (34 stories
    # written, 76 checks) over designs/timetravel.yaml, and its ratings (7 HITs of 2) and comparisons (4 HITs of
    # 3) over designs/timetravel-ratings.yaml and timetravel-comparisons.yaml (besides SemEval Subtask 1's).
    assert designs.count() == 60 + 12 + 12 + 34 + 76 + 14 + 12
    right = re.search(r"majority right on (\d+) of 40 items against the intended answers", text)
    assert right and int(right.group(1)) >= 36
    # Counterfactual story rewriting: every story written once, checked and edited, the export read back.
    assert "13. Counterfactual story rewriting (TimeTravel, designs/timetravel.yaml): 34 stories" in text
    assert Assignment.objects.filter(hit__batch__name="TimeTravel stories").count() == 34
    assert "refused on the server, then edited again: " in text and "ending rewritten" in text
    assert re.search(r"checks: \d+, sent back [1-9]\d* ", text)
    exported = settings.BASE_DIR / "exports" / "timetravel"
    records = {split: read_records(exported / f"{split}.jsonl") for split in ("train", "dev", "test")}
    assert all(records.values()) and all("edited_endings" in row for row in records["dev"] + records["test"])
    assert re.search(r"ordinal alpha 0\.\d+ \[", text) and "Pairwise (32 pairs" in text
