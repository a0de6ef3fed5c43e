import json
import tempfile
from io import StringIO
from pathlib import Path

from django.core.management import call_command

from filtering.models import FilterRun
from filtering.services import corpus_ingest
from hits.models import Batch
from releases.sampling import balanced_sample
from tests.base import BaseTestCase

CANDIDATES = [(f"f{n}", "finance") for n in range(50)] + [(f"p{n}", "politics") for n in range(50)] + \
             [(f"h{n}", "healthcare") for n in range(5)]


def test_it_balances_domains_and_spreads_a_shortfall():
    chosen, report = balanced_sample(CANDIDATES, 30, seed=1)
    # 10 each; healthcare has 5, so its 5 spare go 3/2 to the other two (the first in name order gets the odd one).
    assert report["per_group"] == {"finance": 13, "healthcare": 5, "politics": 12}
    assert len(chosen) == len(set(chosen)) == 30
    assert balanced_sample(CANDIDATES, 30, seed=1)[0] == chosen
    assert balanced_sample(CANDIDATES, 30, seed=2)[0] != chosen


def test_it_reports_when_fewer_are_available_than_asked():
    chosen, report = balanced_sample(CANDIDATES, 500)
    assert (len(chosen), report["short_by"]) == (105, 395)
    assert report["available"] == {"finance": 50, "healthcare": 5, "politics": 50}


class SampleCommandTests(BaseTestCase):
    def test_it_samples_candidates_into_a_batch(self):
        path = Path(tempfile.mkdtemp()) / "news.jsonl"
        texts = ["Had I known, I would have sold.", "I wish it were true.", "What if rates rise?",
                 "If only I had listened, I would have won."]
        path.write_text("\n".join(json.dumps({"id": str(n), "domain": ("finance", "politics")[n % 2], "text": t})
                                  for n, t in enumerate(texts)))
        corpus_ingest(path=path, corpus_name="news")
        call_command("filter_candidates", stdout=StringIO())
        out = StringIO()
        call_command("dataset", "sample", str(FilterRun.objects.get().pk), "--size", "2", "--batch", "sampled",
                     stdout=out)
        self.assertIn("2 of 2 requested", out.getvalue())
        self.assertIn("chosen {'finance': 1, 'politics': 1}", out.getvalue())
        self.assertEqual(Batch.objects.get(name="sampled").items.count(), 2)
