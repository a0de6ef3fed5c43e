import csv
import json

from django.core.management.base import BaseCommand, CommandError

from aggregation import maths
from core.votes import VotesFileError, read_votes


class Command(BaseCommand):
    help = ("Agreement on a table of votes (CSV: item,worker,label; any labels): Fleiss' kappa, "
            "Krippendorff's alpha (nominal) or the majority label per item.")

    def add_arguments(self, parser):
        parser.add_argument("votes", help="CSV with a header item,worker,label and one row per vote")
        parser.add_argument("--metric", choices=("fleiss", "alpha", "majority"), required=True)
        parser.add_argument("--samples", type=int, default=0,
                            help="bootstrap resamples of items for a 95%% interval (fleiss, alpha); 0: none")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args, **options):
        if options["samples"] < 0:
            raise CommandError("--samples is a number of resamples, 0 or more")
        try:
            votes = read_votes(options["votes"])
        except VotesFileError as error:
            raise CommandError(str(error)) from None
        table = maths.VoteTable([(vote.item, vote.worker, vote.label) for vote in votes])
        summary = {"metric": options["metric"], "items": len(table.items), "votes": table.size,
                   "workers": len(table.workers), "labels": list(table.labels)}
        if options["metric"] == "majority":
            self._majority(summary, votes, options["json"])
            return
        if options["metric"] == "fleiss":
            value = maths.fleiss_kappa(table.counts)
            low, high = maths.fleiss_interval(table.counts, samples=options["samples"], seed=options["seed"])
            name = "Fleiss' kappa"
        else:
            found = table.agreement(samples=options["samples"], seed=options["seed"])
            value, low, high = found.alpha, found.low, found.high
            name = "Krippendorff's alpha (nominal)"
        summary.update(value=_number(value), low=_number(low), high=_number(high), samples=options["samples"])
        if options["json"]:
            self.stdout.write(json.dumps(summary))
            return
        interval = (f"; 95% interval [{low:.4f}, {high:.4f}] from {options['samples']:,} resamples of items"
                    if options["samples"] else "")
        self.stdout.write(f"{name}: {value:.4f} over {summary['items']:,} items, {summary['votes']:,} votes by "
                          f"{summary['workers']:,} workers, labels {', '.join(summary['labels'])}{interval}")

    def _majority(self, summary, votes, as_json):
        decided = maths.majority([(vote.item, vote.worker, vote.label) for vote in votes])
        ties = [found for found in decided if found.label is None]
        summary.update(ties=len(ties), majority=[
            {"item": found.item, "label": found.label, "votes": found.votes, "top": found.top,
             "tied": list(found.tied)} for found in decided])
        if as_json:
            self.stdout.write(json.dumps(summary))
            return
        writer = csv.writer(self.stdout, lineterminator="\n")
        writer.writerow(("item", "label", "votes", "top", "tied"))
        for found in decided:
            writer.writerow((found.item, "" if found.label is None else found.label, found.votes, found.top,
                             "|".join(found.tied)))
        self.stderr.write(f"{len(decided):,} items, {len(ties):,} tied (no majority label)")


def _number(value):
    return None if value != value else value  # NaN (undefined) as null
