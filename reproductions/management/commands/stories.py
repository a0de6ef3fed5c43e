import json

from django.core.management.base import BaseCommand, CommandError

from core.errors import CrowdsetError
from core.stories import read_stories
from hits.models import Batch
from reproductions.stories import export, statistics, statistics_text, workflow_of, workflow_start
from reproductions.story_evaluation import (
    RATINGS,
    evaluation_kind,
    likert_batch_create,
    likert_report,
    pairwise_batch_create,
    pairwise_report,
    report_text,
)


class Command(BaseCommand):
    help = ("Counterfactual story rewriting (TimeTravel, designs/timetravel.yaml): a write -> check -> edit workflow "
            "over five-sentence stories, its statistics, the released JSONL splits, and the Likert and pairwise "
            "human evaluation.")

    def add_arguments(self, parser):
        commands = parser.add_subparsers(dest="action", required=True)
        start = commands.add_parser("start", help="a workflow from stories (JSONL or ROCStories CSV), its write stage "
                                                  "published; packing, pay and rounds are the design file's")
        start.add_argument("file")
        start.add_argument("--name", required=True)
        start.add_argument("--provider", default="inhouse")
        report = commands.add_parser("report", help="the workflow's statistics")
        report.add_argument("workflow", help="the write stage's batch id or name")
        report.add_argument("--json", action="store_true")
        out = commands.add_parser("export", help="train/dev/test JSONL in the released format and statistics.json")
        out.add_argument("workflow")
        out.add_argument("--out", required=True)
        out.add_argument("--seed", type=int, default=0)
        evaluate = commands.add_parser("evaluate", help="a Likert and a pairwise batch over the edited endings")
        evaluate.add_argument("workflow")
        evaluate.add_argument("--scale", type=int, default=3, choices=(3, 5, 7))
        evaluate.add_argument("--raters", type=int, default=2, help="workers per output (the paper's 2)")
        evaluate.add_argument("--provider", default="inhouse")
        ratings = commands.add_parser("ratings", help="the report of a Likert or pairwise batch")
        ratings.add_argument("batch", type=int)
        ratings.add_argument("--json", action="store_true")

    def handle(self, *args, **options):
        try:
            getattr(self, options["action"])(options)
        except (CrowdsetError, ValueError) as error:
            raise CommandError(str(error)) from None

    def start(self, options):
        stories = read_stories(options["file"])
        first = workflow_start(stories, name=options["name"], provider=options["provider"])
        self.stdout.write(f"workflow {first.pk} {first.name!r}: {len(stories)} stories; stage 1 (write) published, "
                          f"stage 2 (check and edit) opens as counterfactuals arrive; chains at "
                          f"/review/chains/{first.pk}/")

    def report(self, options):
        found = statistics(workflow_of(options["workflow"]))
        self.stdout.write(json.dumps(found, indent=2) if options["json"] else statistics_text(found))

    def export(self, options):
        found = export(workflow_of(options["workflow"]), options["out"], seed=options["seed"])
        self.stdout.write(statistics_text(found))
        self.stdout.write(f"train.jsonl, dev.jsonl, test.jsonl, statistics.json -> {options['out']}")

    def evaluate(self, options):
        workflow = workflow_of(options["workflow"])
        likert = likert_batch_create(workflow, name=f"{workflow.name}: ratings", scale=options["scale"],
                                     assignments_per_hit=options["raters"], provider=options["provider"])
        pairs = pairwise_batch_create(workflow, name=f"{workflow.name}: comparisons", provider=options["provider"])
        self.stdout.write(f"batch {likert.pk} (Likert, {likert.items.count()} endings, {options['raters']} raters) "
                          f"and batch {pairs.pk} (pairwise, {pairs.items.count()} pairs); publish them from the "
                          f"workspace or with `manage.py hits publish`")

    def ratings(self, options):
        batch = Batch.objects.filter(pk=options["batch"]).first()
        if batch is None:
            raise CommandError(f"no batch {options['batch']}")
        ratings = evaluation_kind(batch) == RATINGS
        found = likert_report(batch) if ratings else pairwise_report(batch)
        if options["json"]:
            self.stdout.write(json.dumps(found, indent=2))
        else:
            self.stdout.write(report_text(found if ratings else None, None if ratings else found))
