import json

from django.core.management.base import BaseCommand, CommandError

from aggregation.report import span_agreement_text
from aggregation.services import span_batch_agreement
from hits.models import Batch
from hits.services import CrowdError


class Command(BaseCommand):
    help = ("Agreement between the annotators of a span batch with two or more a sentence: token F1 (antecedent, "
            "consequent, both) and token-level Krippendorff's alpha with a sentence-bootstrap interval, over the "
            "batch and per domain.")

    def add_arguments(self, parser):
        parser.add_argument("batch", type=int, help="span batch id (see `hits list`)")
        parser.add_argument("--samples", type=int, default=1000, help="bootstrap resamples of sentences; 0: none")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args, **options):
        batch = Batch.objects.filter(pk=options["batch"]).first()
        if batch is None:
            raise CommandError(f"no batch {options['batch']}; `hits list` shows the batches")
        if options["samples"] < 0:
            raise CommandError("--samples is a number of resamples, 0 or more")
        try:
            found = span_batch_agreement(batch=batch, samples=options["samples"], seed=options["seed"])
        except CrowdError as error:
            raise CommandError(str(error)) from None
        if options["json"]:
            self.stdout.write(json.dumps(found))
            return
        self.stdout.write(f"batch {batch.pk} ({batch.name}), {batch.assignments_per_hit} annotator(s) a sentence")
        for name, row in [("all", found), *found["by_domain"].items()]:
            self.stdout.write(f"  {name}: {span_agreement_text(row)}")

