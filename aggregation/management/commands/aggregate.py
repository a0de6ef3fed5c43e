from django.core.management.base import BaseCommand, CommandError

from aggregation.maths import Rules
from aggregation.report import write_report
from aggregation.services import batch_aggregate
from hits.models import Batch


class Command(BaseCommand):
    help = "Aggregate a batch's votes (the 5/5 and 4/5 rules), measure agreement and worker quality, store them."

    def add_arguments(self, parser):
        parser.add_argument("batch", type=int)
        parser.add_argument("--votes-required", type=int, default=5)
        parser.add_argument("--keep-partial-negatives", type=float, default=1.0,
                            help="share of 4/5 negatives to keep, drawn with --seed (1.0 keeps all)")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--samples", type=int, default=1000, help="bootstrap samples for alpha's interval")

    def handle(self, *args, **options):
        batch = Batch.objects.filter(pk=options["batch"]).first()
        if batch is None:
            raise CommandError(f"no batch {options['batch']}")
        if not 0 <= options["keep_partial_negatives"] <= 1:
            raise CommandError("--keep-partial-negatives is a share between 0 and 1")
        rules = Rules(votes_required=options["votes_required"], seed=options["seed"],
                      keep_partial_negatives=options["keep_partial_negatives"])
        run = batch_aggregate(batch=batch, rules=rules, samples=options["samples"])
        write_report(self.stdout, run)
