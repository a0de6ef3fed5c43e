import json

from django.core.management.base import BaseCommand, CommandError

from aggregation.methods import METHODS
from aggregation.models import AggregationRun
from aggregation.report import write_comparison, write_report
from aggregation.services import batch_aggregate, runs_compare
from core.errors import CrowdsetError
from hits.models import Batch


class Command(BaseCommand):
    help = ("Aggregate a batch's votes (its design's agreement rules, e.g. the paper's 5/5 and 4/5, or a "
            "truth-inference method), measure agreement and worker quality, store them; or compare two runs of a "
            "batch (--compare RUN RUN).")

    def add_arguments(self, parser):
        parser.add_argument("batch", type=int, nargs="?")
        parser.add_argument("--method", choices=("paper", *METHODS), default="paper",
                            help="paper: the agreement rules; the others label every item with crowd-kit's models")
        parser.add_argument("--votes-required", type=int,
                            help="votes an item needs (default: the min_answers of the design's rule)")
        parser.add_argument("--keep-partial-negatives", type=float, default=1.0,
                            help="share of 4/5 negatives to keep, drawn with --seed (1.0 keeps all)")
        parser.add_argument("--with-model", nargs="?", const="", metavar="MODEL",
                            help="with a method: read a language model's answers (the last model to answer the "
                                 "batch, or MODEL) as one more annotator's on every item people voted on, and say "
                                 "its skill and how many labels it changes")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--samples", type=int, default=1000, help="bootstrap samples for alpha's interval")
        parser.add_argument("--compare", type=int, nargs=2, metavar="RUN",
                            help="the items whose label changes between two runs of a batch, and why")
        parser.add_argument("--json", action="store_true", help="with --compare: one JSON object")

    def handle(self, *args, **options):
        try:
            if options["compare"]:
                self.compare(*options["compare"], as_json=options["json"])
            else:
                self.aggregate(options)
        except CrowdsetError as error:
            raise CommandError(str(error)) from None

    def compare(self, first, second, *, as_json):
        runs = {run.pk: run for run in AggregationRun.objects.filter(pk__in=[first, second])}
        missing = [str(pk) for pk in (first, second) if pk not in runs]
        if missing:
            raise CommandError(f"no aggregation run {', '.join(missing)}")
        found = runs_compare(before=runs[first], after=runs[second])
        if as_json:
            self.stdout.write(json.dumps(found))
        else:
            write_comparison(self.stdout, found)

    def aggregate(self, options):
        if options["batch"] is None:
            raise CommandError("give the batch to aggregate, or --compare RUN RUN")
        batch = Batch.objects.filter(pk=options["batch"]).first()
        if batch is None:
            raise CommandError(f"no batch {options['batch']}")
        if not 0 <= options["keep_partial_negatives"] <= 1:
            raise CommandError("--keep-partial-negatives is a share between 0 and 1")
        run = batch_aggregate(batch=batch, samples=options["samples"], method=options["method"], seed=options["seed"],
                              keep_partial_negatives=options["keep_partial_negatives"],
                              votes_required=options["votes_required"], with_model=options["with_model"])
        write_report(self.stdout, run)
