import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from core import copa, cues
from core.errors import CrowdsetError
from hits.cli import add_filter_arguments, filter_requirements, hits_text, parse_reward
from hits.models import Batch
from hits.services import describe_batch
from reproductions.copa import choice_batch_create, choice_report, copa_sample, report_table


class Command(BaseCommand):
    help = ("Balanced COPA: a 2-choice validation batch of designs/bcopa.yaml from a COPA XML file, its report "
            "(majority accuracy, Fleiss' kappa by subset), the train/dev export that keeps pairs together, the "
            "superficial-cue report.")

    def add_arguments(self, parser):
        commands = parser.add_subparsers(dest="action", required=True)
        batch = commands.add_parser("batch", help="a validation batch of original and mirrored items")
        batch.add_argument("file")
        batch.add_argument("--name", required=True)
        batch.add_argument("--per-subset", type=int, default=100,
                           help="originals and mirrored items each (the paper's 100 + 100); 0 takes all")
        batch.add_argument("--items-per-hit", type=int, help="default: designs/bcopa.yaml's 10")
        batch.add_argument("--assignments", type=int, help="workers per HIT (designs/bcopa.yaml: the paper's 3)")
        batch.add_argument("--reward", help="per HIT (designs/bcopa.yaml: the paper's $0.10)")
        batch.add_argument("--provider", default="inhouse")
        batch.add_argument("--seed", type=int, default=0)
        add_filter_arguments(batch)
        report = commands.add_parser("report", help="accuracy and agreement of a validation batch")
        report.add_argument("batch", type=int)
        report.add_argument("--samples", type=int, default=1000)
        report.add_argument("--json", action="store_true")
        export = commands.add_parser("export", help="train/dev JSONL and CSV with each pair on one side")
        export.add_argument("file")
        export.add_argument("--out", required=True)
        export.add_argument("--dev-share", type=float, default=0.1)
        export.add_argument("--seed", type=int, default=0)
        export.add_argument("--original-only", action="store_true", help="leave the mirrored items out")
        found = commands.add_parser("cues", help="tokens that give the right alternative away")
        found.add_argument("file")
        found.add_argument("--original-only", action="store_true")
        found.add_argument("--top", type=int, default=10)
        found.add_argument("--json", action="store_true")

    def handle(self, *args, **options):
        try:
            getattr(self, options["action"])(options)
        except CrowdsetError as error:
            raise CommandError(str(error)) from None

    def batch(self, options):
        items = copa.read_copa(options["file"])
        reward = parse_reward(options["reward"]) if options["reward"] is not None else None
        chosen = copa_sample(items, per_subset=options["per_subset"] or None, seed=options["seed"])
        # Worker filters given on the command line replace the design's (the paper's Masters, 10,000, 99%).
        batch = choice_batch_create(items=chosen, name=options["name"], items_per_hit=options["items_per_hit"],
                                    assignments_per_hit=options["assignments"], reward=reward,
                                    provider=options["provider"], seed=options["seed"],
                                    requirements=filter_requirements(options) or None)
        mirrored = sum(item.mirrored for item in chosen)
        self.stdout.write(f"batch {batch.pk} {batch.name!r}: {len(chosen) - mirrored} original and {mirrored} mirrored "
                          f"items in {hits_text(batch)}, {batch.assignments_per_hit} workers each, "
                          f"{batch.reward} per HIT")
        self.stdout.write(describe_batch(batch))

    def report(self, options):
        batch = Batch.objects.filter(pk=options["batch"]).first()
        if batch is None:
            raise CommandError(f"no batch {options['batch']}")
        found = choice_report(batch, samples=options["samples"])
        if options["json"]:
            self.stdout.write(json.dumps(found))
            return
        self.stdout.write(report_table(found))

    def export(self, options):
        items = copa.read_copa(options["file"])
        if options["original_only"]:
            items = [item for item in items if not item.mirrored]
        sides = copa.split_pairs(items, dev_share=options["dev_share"], seed=options["seed"])
        copa.write_sides(sides, options["out"])
        for side, members in sides.items():
            self.stdout.write(f"{side}: {len(members)} items in {len(copa.pairs(members))} pairs -> "
                              f"{Path(options['out']) / side}.jsonl, .csv")

    def cues(self, options):
        items = copa.read_copa(options["file"])
        if options["original_only"]:
            items = [item for item in items if not item.mirrored]
        report = cues.choice_cues(copa.right_and_wrong(items))
        if options["json"]:
            self.stdout.write(json.dumps({"instances": report.instances, "imbalance": report.imbalance,
                                          "strongest": [cue.as_dict() for cue in report.strongest(options["top"])]}))
            return
        self.stdout.write(report.table(options["top"]))
