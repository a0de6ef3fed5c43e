from decimal import Decimal, InvalidOperation

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from aggregation.models import AggregationRun
from designs.semeval import span_batch_create
from hits.providers import PROVIDERS
from hits.services import CrowdError, batch_estimate_cost


class Command(BaseCommand):
    help = ("Create a Subtask-2 span batch from the positives of an aggregation, one annotator per sentence "
            "(or --annotators N) "
            "(publish it with `hits publish`).")

    def add_arguments(self, parser):
        parser.add_argument("aggregation", type=int, help="aggregation run id (see `aggregate` or the dashboard)")
        parser.add_argument("--name", required=True)
        parser.add_argument("--provider", choices=PROVIDERS, default=settings.CROWD_PROVIDER)
        parser.add_argument("--items-per-hit", type=int, default=10)
        parser.add_argument("--annotators", type=int, default=1,
                            help="annotators per sentence: 1 as in the paper; 2 or more measure span agreement and "
                                 "the review starts from their majority")
        parser.add_argument("--reward", default="0.80", help="per assignment, e.g. 0.80")
        parser.add_argument("--budget", help="publishing refuses to exceed this, fees included")
        parser.add_argument("--qualification", help="name of the test annotators must have passed")
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args, **options):
        run = AggregationRun.objects.filter(pk=options["aggregation"]).first()
        if run is None:
            raise CommandError(f"no aggregation run {options['aggregation']}")
        try:
            reward = Decimal(options["reward"])
            budget = Decimal(options["budget"]) if options["budget"] else None
        except InvalidOperation:
            raise CommandError("--reward and --budget are amounts like 0.80") from None
        requirements = {"qualification": options["qualification"]} if options["qualification"] else {}
        try:
            batch = span_batch_create(run=run, name=options["name"], provider=options["provider"],
                                      items_per_hit=options["items_per_hit"], annotators=options["annotators"],
                                      reward=reward, budget=budget,
                                      seed=options["seed"], requirements=requirements)
        except CrowdError as error:
            raise CommandError(str(error)) from None
        annotators = "one annotator" if options["annotators"] == 1 else f"{options['annotators']} annotators"
        self.stdout.write(f"batch {batch.pk}: {batch.hits.count()} HITs, {batch.items.count()} sentences, "
                          f"{annotators} each, "
                          f"estimated cost {batch_estimate_cost(batch=batch)}")
