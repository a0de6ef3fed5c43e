import json

from django.core.management.base import BaseCommand, CommandError

from core.errors import CrowdsetError
from hits.cli import add_filter_arguments, filter_requirements, hits_text, parse_reward
from hits.models import Batch
from hits.services import describe_batch
from reproductions.facts import draw_items, export_pairs, fact_batch_create, tables, tables_text
from reproductions.rte import read_rte


class Command(BaseCommand):
    help = ("Cheap Facts: a batch of RTE paragraphs with a highlighted entity for crowd workers to write facts "
            "or counter-facts about, the paper's Tables 1 and 2 on what they wrote, and the T-H pair export.")

    def add_arguments(self, parser):
        commands = parser.add_subparsers(dest="action", required=True)
        batch = commands.add_parser("batch", help="a writing batch from an RTE XML file")
        batch.add_argument("file")
        batch.add_argument("--name", required=True)
        batch.add_argument("--instruction", choices=("facts", "counterfacts", "both"), default="both",
                           help="both: half the texts for facts, the other half for counter-facts")
        batch.add_argument("--texts", type=int, default=20, help="paragraphs drawn (seeded) among those with an "
                                                                  "entity shared by text and hypothesis")
        batch.add_argument("--per-hit", type=int, default=5, help="paragraphs per HIT (the paper's 5)")
        batch.add_argument("--assignments", type=int, default=3, help="workers per paragraph (the paper's 3)")
        batch.add_argument("--reward", default="0.05", help="per HIT (about a cent a statement in the paper)")
        batch.add_argument("--provider", default="inhouse")
        batch.add_argument("--seed", type=int, default=0)
        add_filter_arguments(batch)
        report = commands.add_parser("report", help="Tables 1 and 2 of a writing batch")
        report.add_argument("batch", type=int)
        report.add_argument("--json", action="store_true")
        export = commands.add_parser("export", help="the statements as T-H pairs (JSONL, spreadsheet-safe CSV)")
        export.add_argument("batch", type=int)
        export.add_argument("--out", required=True)

    def handle(self, *args, **options):
        try:
            getattr(self, options["action"])(options)
        except CrowdsetError as error:
            raise CommandError(str(error)) from None

    def batch(self, options):
        reward = parse_reward(options["reward"])
        items = draw_items(read_rte(options["file"]), texts=options["texts"], instruction=options["instruction"],
                           seed=options["seed"])
        batch = fact_batch_create(items=items, name=options["name"], items_per_hit=options["per_hit"],
                                  assignments_per_hit=options["assignments"], reward=reward,
                                  provider=options["provider"], seed=options["seed"],
                                  requirements=filter_requirements(options) or None)
        self.stdout.write(f"batch {batch.pk} {batch.name!r}: {len(items)} paragraphs in {hits_text(batch)}, "
                          f"{batch.assignments_per_hit} workers each, {batch.reward} per HIT")
        self.stdout.write(describe_batch(batch))

    def report(self, options):
        found = tables(self._batch(options))
        self.stdout.write(json.dumps(found) if options["json"] else tables_text(found))

    def export(self, options):
        written = export_pairs(self._batch(options), options["out"])
        self.stdout.write(f"{', '.join(written)} -> {options['out']}")

    def _batch(self, options):
        batch = Batch.objects.filter(pk=options["batch"]).first()
        if batch is None:
            raise CommandError(f"no batch {options['batch']}")
        return batch
