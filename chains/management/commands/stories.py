import json

from django.core.management.base import BaseCommand, CommandError

from chains.evaluation import (
    evaluation_kind,
    likert_batch_create,
    likert_report,
    pairwise_batch_create,
    pairwise_report,
    report_text,
)
from chains.models import Workflow
from chains.report import export, statistics, statistics_text
from chains.services import workflow_create, workflow_publish
from core.errors import CrowdsetError
from core.stories import EditBound, read_stories
from hits.cli import add_filter_arguments, filter_requirements, parse_reward
from hits.models import Batch


class Command(BaseCommand):
    help = ("Counterfactual story rewriting (TimeTravel): a write -> check -> edit workflow over five-sentence "
            "stories, its statistics, the released JSONL splits, and the Likert and pairwise human evaluation.")

    def add_arguments(self, parser):
        commands = parser.add_subparsers(dest="action", required=True)
        start = commands.add_parser("start", help="a workflow from stories (JSONL or CSV), its first stage published")
        start.add_argument("file")
        start.add_argument("--name", required=True)
        start.add_argument("--provider", default="inhouse")
        start.add_argument("--endings", type=int, default=1,
                           help="workers who check and edit each counterfactual (several for dev and test)")
        start.add_argument("--loop-limit", type=int, default=2, help="failed checks before a chain goes to review")
        start.add_argument("--max-changed", type=float, default=0.8,
                           help="most of an ending's words an edit may change (word edit distance / words)")
        start.add_argument("--min-kept", type=float, default=0.3,
                           help="least of an ending's words an edit must keep in order")
        start.add_argument("--write-reward", default="0.10")
        start.add_argument("--edit-reward", default="0.20")
        start.add_argument("--budget", default=None, help="for each stage")
        add_filter_arguments(start)
        report = commands.add_parser("report", help="the workflow's statistics")
        report.add_argument("workflow")
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
        bound = EditBound(max_changed=options["max_changed"], min_kept=options["min_kept"])
        EditBound.from_json(bound.to_json())  # the shares checked
        budget = parse_reward(options["budget"]) if options["budget"] else None
        common = {"requirements": filter_requirements(options), "budget": budget}
        workflow = workflow_create(
            name=options["name"], stories=stories, provider=options["provider"], loop_limit=options["loop_limit"],
            bound=bound, write={"reward": parse_reward(options["write_reward"]), **common},
            edit={"reward": parse_reward(options["edit_reward"]), "assignments_per_hit": options["endings"],
                  **common})
        workflow_publish(workflow)
        self.stdout.write(f"workflow {workflow.pk} {workflow.name!r}: {len(stories)} stories; stage 1 (write) "
                          f"published, stage 2 (check and edit, {options['endings']} worker(s) each) opens as "
                          f"counterfactuals arrive; page /chains/{workflow.pk}/")

    def report(self, options):
        found = statistics(self._workflow(options))
        self.stdout.write(json.dumps(found, indent=2) if options["json"] else statistics_text(found))

    def export(self, options):
        found = export(self._workflow(options), options["out"], seed=options["seed"])
        self.stdout.write(statistics_text(found))
        self.stdout.write(f"train.jsonl, dev.jsonl, test.jsonl, statistics.json -> {options['out']}")

    def evaluate(self, options):
        workflow = self._workflow(options)
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
        kind = evaluation_kind(batch)
        found = likert_report(batch) if kind == "likert" else pairwise_report(batch)
        if options["json"]:
            self.stdout.write(json.dumps(found, indent=2))
        else:
            self.stdout.write(report_text(found if kind == "likert" else None, found if kind == "pairwise" else None))

    def _workflow(self, options):
        key = options["workflow"]
        workflow = Workflow.objects.filter(**({"pk": int(key)} if key.isdigit() else {"name": key})).first()
        if workflow is None:
            raise CommandError(f"no workflow {key!r}; give its id or name")
        return workflow
