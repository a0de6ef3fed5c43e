from decimal import Decimal, InvalidOperation

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from designs.semeval import subtask1_batch_create
from filtering.models import FilterRun
from hits.providers import PROVIDERS
from hits.services import CrowdError, batch_estimate_cost
from qualification.services import reserved_sentence_ids


class Command(BaseCommand):
    help = "Create a Subtask-1 labeling batch from the candidates of a filter run (publish it with `hits publish`)."

    def add_arguments(self, parser):
        parser.add_argument("run", type=int, help="filter run id (see the admin or filter_candidates output)")
        parser.add_argument("--name", required=True)
        parser.add_argument("--provider", choices=PROVIDERS, default=settings.CROWD_PROVIDER)
        parser.add_argument("--items-per-hit", type=int, default=25)
        parser.add_argument("--assignments", type=int, default=5, help="workers per HIT")
        parser.add_argument("--reward", default="0.50", help="per assignment, e.g. 0.50")
        parser.add_argument("--budget", help="publishing refuses to exceed this, fees included")
        parser.add_argument("--gold-file", help="a released Subtask-1 CSV to draw known-answer items from")
        parser.add_argument("--gold-count", type=int, default=0)
        parser.add_argument("--gold-rate", type=float, default=0.0, help="share of each HIT that is gold, e.g. 0.1")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--limit", type=int, help="use only the first N candidates")
        parser.add_argument("--adaptive", choices=("outcomes", "positives"), default="",
                            help="stop buying votes that can no longer change what must be decided (the paper's "
                                 "outcomes, or positive or not) and re-pack the rest (in-house and MTurk)")

    def handle(self, *args, **options):
        run = FilterRun.objects.filter(pk=options["run"]).first()
        if run is None:
            raise CommandError(f"no filter run {options['run']}")
        try:
            reward = Decimal(options["reward"])
            budget = Decimal(options["budget"]) if options["budget"] else None
        except InvalidOperation:
            raise CommandError("--reward and --budget are amounts like 0.50") from None
        try:
            batch = subtask1_batch_create(
                run=run, name=options["name"], provider=options["provider"], items_per_hit=options["items_per_hit"],
                assignments_per_hit=options["assignments"], reward=reward, budget=budget,
                gold_path=options["gold_file"], gold_count=options["gold_count"], gold_rate=options["gold_rate"],
                seed=options["seed"], limit=options["limit"], exclude_gold=reserved_sentence_ids(),
                adaptive=options["adaptive"])
        except (CrowdError, OSError) as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"batch {batch.pk}: {batch.hits.count()} HITs, {batch.items.count()} items, "
                          f"estimated cost {batch_estimate_cost(batch=batch)}"
                          + (" (at most: adaptive, it stops buying votes that cannot change an outcome)"
                             if batch.adaptive else ""))
