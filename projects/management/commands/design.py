import json
import os
import re
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.staticfiles import finders
from django.core.management.base import BaseCommand, CommandError
from django.template.loader import render_to_string
from django.urls import reverse

from core.errors import CrowdsetError
from core.words import counted
from designs import labelstudio
from designs.attention import gold_scores
from designs.compare import compare
from designs.export import FORMATS, agreement_of, batch_report, conditions_summary, export_batch
from designs.items import read_items
from designs.loader import DesignError, check_report, load_file, schema_json
from designs.model_runs import Endpoint, ModelError, model_run, run_estimate
from designs.model_votes import model_votes_said, model_votes_start, model_votes_stop
from designs.models import DesignBatch, batch_design
from designs.potato import import_file
from designs.services import preview_context
from designs.stages import workflow_batches, workflow_report
from designs.suggestions import HOLDOUT, suggestions_start, suggestions_stop
from hits.models import Batch
from hits.services import describe_batch, worker_filters
from hits.templatetags.inline_static import inline_static
from projects.people import crowd_filters
from projects.services import design_project_create, potato_project_create

SCHEMA = Path(__file__).resolve().parents[3] / "designs" / "schema.json"


_LINKED = re.compile(r'<link rel="stylesheet" href="([^"]+)">|<script src="([^"]+)"></script>')


def standalone(page: str) -> str:
    """A rendered page with its own stylesheets and scripts written into it: one file that opens anywhere as the
    server would show it."""

    def inline(match: re.Match) -> str:
        # The static file the URL names (without the manifest's hash), as the MTurk question inlines it.
        name = (match.group(1) or match.group(2)).removeprefix(settings.STATIC_URL).split("?")[0]
        return inline_static(name if finders.find(name) else re.sub(r"\.[0-9a-f]{12}(\.\w+)$", r"\1", name))

    return _LINKED.sub(inline, page)


class Command(BaseCommand):
    help = ("Design files: check them, make a project from one and its items, show agreement per scheme, export, "
            "and write designs/schema.json from the model.")

    def add_arguments(self, parser):
        commands = parser.add_subparsers(dest="action", required=True)
        check = commands.add_parser("check", help="validate design files; nothing is written")
        check.add_argument("files", nargs="+")
        check.add_argument("--json", action="store_true")
        new = commands.add_parser("new", help="a project and a draft batch from a design file and its items")
        new.add_argument("file")
        new.add_argument("--items", required=True, help="JSON array, JSON Lines, CSV or TSV (or COPA or RTE XML)")
        new.add_argument("--name", help="the project's name (default: the design's title)")
        new.add_argument("--provider", choices=("inhouse", "mturk", "prolific"),
                         help="overrides the design's provider")
        new.add_argument("--stage", default="", help="the stage to make the batch for (multi-stage designs)")
        new.add_argument("--seed", type=int, default=0)
        new.add_argument("--organizer", metavar="USERNAME", help="the account that runs the project (default: none "
                                                                 "named, so every organizer of the site runs it)")
        report = commands.add_parser("report", help="agreement and aggregation per scheme of a design batch")
        report.add_argument("batch", type=int)
        report.add_argument("--json", action="store_true")
        report.add_argument("--crowd-only", action="store_true", help="leave out the answers given in another tool "
                                                                      "(a Label Studio project's annotations)")
        ask = commands.add_parser("ask-model", help="a language model answers a design batch's items as one more "
                                                    "annotator (any OpenAI-compatible chat-completions endpoint)")
        ask.add_argument("batch", type=int)
        ask.add_argument("--url", required=True, help="the API's root, e.g. http://127.0.0.1:8080/v1")
        ask.add_argument("--model", default="", help="the model's name there (default: the design's llm.model)")
        ask.add_argument("--key-env", default="", metavar="NAME",
                         help="the environment variable holding the endpoint's key (never stored)")
        ask.add_argument("--price-in", type=Decimal, default=Decimal(0), help="price per 1,000 tokens sent")
        ask.add_argument("--price-out", type=Decimal, default=Decimal(0), help="price per 1,000 tokens received")
        ask.add_argument("--budget", type=Decimal, help="refuse the run if it could cost more")
        ask.add_argument("--concurrency", type=int, default=4, help="requests at a time (default 4)")
        ask.add_argument("--limit", type=int, help="ask at most this many items")
        ask.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for one answer")
        ask.add_argument("--samples", type=int, default=1, help="ask each item this many times: the answer is the "
                                                                 "most given, its confidence the share that gave it")
        ask.add_argument("--position-check", action="store_true",
                         help="ask each item once more with the options reversed and count the answers that flip")
        ask.add_argument("--estimate", action="store_true", help="say what the run would ask and cost; ask nothing")
        ask.add_argument("--background", action="store_true",
                         help="run it as a job of the batch's project (a Celery worker when one is configured), "
                              "whose page shows its progress; the key is read where the job runs, from --key-env")
        ask.add_argument("--json", action="store_true")
        versus = commands.add_parser("compare", help="a model's answers against the crowd's labels")
        versus.add_argument("batch", type=int)
        versus.add_argument("--model", default="", help="the model as an annotator (default: the last to run)")
        versus.add_argument("--json", action="store_true")
        suggest = commands.add_parser("suggest", help="show a model's answers to people as suggestions, with a "
                                                      "randomized holdout of (annotator, item) pairs that see none")
        suggest.add_argument("batch", type=int)
        suggest.add_argument("--model", default="", help="the model as an annotator (default: the last to answer)")
        suggest.add_argument("--holdout", type=float, default=HOLDOUT,
                             help=f"the share of (annotator, item) pairs that see no suggestion (default {HOLDOUT})")
        suggest.add_argument("--off", action="store_true", help="stop showing them (the report keeps their window)")
        suggest.add_argument("--json", action="store_true")
        votes = commands.add_parser("model-votes", help="count a model as one more voter in an adaptive batch: an item "
                                                        "stops where the model and the first people settle it")
        votes.add_argument("batch", type=int)
        votes.add_argument("--model", default="", help="the model as an annotator (default: the last to answer)")
        votes.add_argument("--min-confidence", type=float, default=0.9,
                           help="its vote counts from this confidence (default 0.9); 0 counts every answer")
        votes.add_argument("--min-people", type=int, default=1, help="people an item needs first (default 1)")
        votes.add_argument("--off", action="store_true", help="stop counting it")
        export = commands.add_parser("export", help="answers (long form) and labels of a design batch")
        export.add_argument("batch", type=int)
        export.add_argument("--out", required=True)
        export.add_argument("--formats", help=f"comma-separated: {', '.join(FORMATS)} (default: the design's "
                                              f"export.formats)")
        potato = commands.add_parser("import-potato", help="Potato configs (and their data files) as projects")
        potato.add_argument("configs", nargs="+", metavar="CONFIG")
        potato.add_argument("--check", action="store_true", help="validate and convert; nothing is written")
        potato.add_argument("--json", action="store_true", help="one JSON line per config")
        potato.add_argument("--organizer", metavar="USERNAME", help="the account that runs the projects")
        potato.add_argument("--provider", choices=("inhouse", "mturk", "prolific"),
                            help="overrides what the config implies (default: in-house unless it has prolific/mturk)")
        studio = commands.add_parser("import-labelstudio", help="a Label Studio labeling config and its tasks as a "
                                                                "project")
        studio.add_argument("config", metavar="CONFIG.xml")
        studio.add_argument("--tasks", metavar="TASKS", help="the tasks: a JSON list of tasks (or of data dicts), "
                                                             "JSON Lines, CSV or TSV")
        studio.add_argument("--title", default="", help="the study's title (default: the config's file name)")
        studio.add_argument("--check", action="store_true", help="validate and convert; nothing is written")
        studio.add_argument("--json", action="store_true", help="one JSON line")
        studio.add_argument("--organizer", metavar="USERNAME", help="the account that runs the project")
        studio.add_argument("--provider", choices=("inhouse", "mturk", "prolific"), help="the crowd (default: "
                                                                                         "in-house)")
        preview = commands.add_parser("preview", help="the first HIT's task page, as an annotator sees it, as one "
                                                      "HTML file (its styles and scripts inside)")
        preview.add_argument("file", help="a design file, or a Potato config with --potato")
        preview.add_argument("--items", help="the items file of a design file (a Potato config names its own)")
        preview.add_argument("--potato", action="store_true", help="FILE is a Potato config")
        preview.add_argument("--html", required=True, metavar="OUT", help="where to write the page")
        schema = commands.add_parser("schema", help="write designs/schema.json (or --check that it is current)")
        schema.add_argument("--check", action="store_true")

    def handle(self, *args, **options):
        try:
            getattr(self, f"do_{options['action'].replace('-', '_')}")(options)
        except DesignError as error:
            for problem in error.problems:
                self.stderr.write(str(problem))
            raise CommandError(f"{len(error.problems)} problem{'s' if len(error.problems) > 1 else ''} in "
                               f"{error.problems[0].file}; nothing was written") from None
        except CrowdsetError as error:
            raise CommandError(str(error)) from None

    def do_check(self, options):
        report, ok = check_report(options["files"])
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2))
        else:
            for entry in report:
                if entry["valid"]:
                    self.stdout.write(f"{entry['file']}: valid ({entry['title']}: {len(entry['schemes'])} scheme"
                                      f"{'s' if len(entry['schemes']) != 1 else ''}: {', '.join(entry['schemes'])})")
                for problem in entry["problems"]:
                    where = f"{entry['file']}:{problem['line']}" if problem["line"] else entry["file"]
                    self.stdout.write(f"{where}: {problem['key'] + ': ' if problem['key'] else ''}{problem['message']}")
        if not ok:
            sys.exit(1)

    def do_new(self, options):
        path = Path(options["file"])
        design = load_file(path)
        data_path = Path(options["items"])
        try:
            data = data_path.read_bytes()
        except OSError as error:
            raise CommandError(f"{data_path}: cannot read it ({error.strerror})") from None
        records = read_items(data, name=data_path.name, design=design)
        project, batch = design_project_create(
            source=path.read_bytes().decode("utf-8-sig"), file_name=path.name, records=records, name=options["name"],
            stage=options["stage"], provider=options["provider"], seed=options["seed"],
            user=self._organizer(options))
        version = DesignBatch.objects.get(batch=batch).version
        schemes = counted(len(design.annotation_schemes), "scheme")
        self.stdout.write(f"project {project.slug!r}: design {version} ({schemes}), "
                          f"{counted(len(records), 'item')} from {data_path.name}")
        who = crowd_filters(project, batch.provider, worker_filters(provider=batch.provider,
                                                                    requirements=batch.requirements))
        self.stdout.write(f"batch {batch.pk}: {describe_batch(batch, who)}")
        later = [(stage, stage_batch) for stage, stage_batch in workflow_batches(batch).items() if stage_batch != batch]
        for stage, stage_batch in later:
            self.stdout.write(f"stage {stage!r}: batch {stage_batch.pk}, filled by the stage it reads as work comes in")
        self.stdout.write(f"next: python manage.py hits publish {batch.pk}")

    def _batch(self, number):
        batch = Batch.objects.filter(pk=number).first()
        if batch is None or not DesignBatch.objects.filter(batch=batch).exists():
            raise CommandError(f"no design batch {number}; `manage.py hits list` shows the batches")
        return batch

    def _endpoint(self, options):
        key = ""
        if options["key_env"]:
            key = os.environ.get(options["key_env"], "")
            if not key:
                raise CommandError(f"--key-env {options['key_env']}: that environment variable is not set")
        return Endpoint(url=options["url"], model=options["model"], key=key, price_in=options["price_in"],
                        price_out=options["price_out"], timeout=options["timeout"])

    def do_ask_model(self, options):
        batch = self._batch(options["batch"])
        endpoint = self._endpoint(options)
        if options["estimate"]:
            plan = run_estimate(batch, endpoint, limit=options["limit"], samples=options["samples"],
                                position_check=options["position_check"])
            plan.update(cost=str(plan["cost"]), most_cost=str(plan["most_cost"]))
            self.stdout.write(json.dumps(plan) if options["json"] else (
                f"{plan['annotator']}: {counted(plan['items'], 'item')} to ask ({plan['answered_before']} answered "
                f"before); about {plan['tokens_in']} tokens in (at most {plan['most_tokens_in']}), at most "
                f"{plan['most_tokens_out']} out; likely {plan['cost']}, at most {plan['most_cost']} at these prices"))
            return
        if options["background"]:
            self._model_job(batch, options)
            return
        try:
            run = model_run(batch=batch, endpoint=endpoint, budget=options["budget"],
                            concurrency=options["concurrency"], limit=options["limit"],
                            samples=options["samples"], position_check=options["position_check"],
                            progress=None if options["json"] else lambda done, total: self.stderr.write(
                                f"\r{done}/{total} items", ending=""))
        except ModelError as error:
            raise CommandError(f"{error}; answers stored before it stay, and a run again goes on from there") \
                from None
        found = {"run": run.pk, "annotator": run.annotator, "items": run.items, "answered": run.answered,
                 "refused": len(run.refused), "tokens_in": run.tokens_in, "tokens_out": run.tokens_out,
                 "cost": f"{run.cost:.6f}", "estimate": f"{run.estimate:.6f}", "seconds": round(run.seconds, 2)}
        if options["json"]:
            self.stdout.write(json.dumps(found))
            return
        self.stderr.write("")
        self.stdout.write(f"{run.annotator}: {run.answered} of {run.items} items answered, {len(run.refused)} "
                          f"refused; {run.tokens_in} tokens in, {run.tokens_out} out; cost {run.cost:.6f} (at most "
                          f"{run.estimate:.6f} was estimated)")
        for refused in run.refused[:10]:
            self.stdout.write(f"  refused item {refused['item']}: {refused['reason']}")

    def _model_job(self, batch, options):
        from jobs.services import job_start

        project = batch.projects.first()
        if project is None:
            raise CommandError(f"batch {batch.pk} belongs to no project, and a background run is a project's job; "
                               f"run it in the foreground (without --background)")
        job = job_start(kind="project-model", target=project.pk, options={
            "batch": batch.pk, "url": options["url"], "model": options["model"], "key_env": options["key_env"],
            "price_in": str(options["price_in"]), "price_out": str(options["price_out"]),
            "budget": str(options["budget"]) if options["budget"] is not None else "",
            "concurrency": options["concurrency"], "limit": options["limit"], "samples": options["samples"],
            "position_check": options["position_check"]})
        self.stdout.write(f"job {job.pk} asks the model ({job.state}); its progress is on "
                          f"{settings.SITE_URL.rstrip('/')}{reverse('projects:detail', args=[project.slug])}")

    def do_compare(self, options):
        batch = self._batch(options["batch"])
        try:
            found = compare(batch, options["model"] or None)
        except CrowdsetError as error:
            raise CommandError(str(error)) from None
        if options["json"]:
            self.stdout.write(json.dumps(found))
            return
        self.stdout.write(f"{found['model']} against the crowd on batch {batch.pk}: {found['items_answered']} items "
                          f"answered, {found['refused']} refused")
        for entry in found["schemes"]:
            accuracy, kappa = entry["accuracy"], entry["kappa"]
            self.stdout.write(
                f"  {entry['scheme']}: {entry['compared']} items; accuracy {_figure(accuracy)}, kappa "
                f"{_figure(kappa)}; crowd alpha {_number(entry['alpha_crowd'])}, with the model "
                f"{_number(entry['alpha_with_model'])}; on {entry['gold']['items']} known answers "
                f"{_number(entry['gold']['accuracy'])}")
            if entry["confidence"] is not None:
                self.stdout.write(f"    confidence: {entry['confidence']:.3f} on average")
            if entry["position"]["compared"]:
                self.stdout.write(f"    position check: {entry['position']['flipped']} of "
                                  f"{entry['position']['compared']} answers changed with the options reversed")
            for crowd, row in entry["confusion"].items():
                self.stdout.write(f"    crowd {crowd}: " + ", ".join(f"model {label} {count}"
                                                                   for label, count in row.items()))
        if found.get("suggestions"):
            shown = found["suggestions"]
            self.stdout.write(f"  suggestions shown to people ({shown['holdout']:.0%} of pairs held out):")
            for entry in shown["schemes"]:
                self.stdout.write(
                    f"    {entry['scheme']}: {entry['shown']['answers']} answers shown it, "
                    f"{entry['held_out']['answers']} held out; gave the model's answer "
                    f"{_figure(entry['shown']['follows'])} vs {_figure(entry['held_out']['follows'])} (difference "
                    f"{_figure(entry['difference']['follows'])}); right on known answers "
                    f"{_figure(entry['shown']['gold'])} vs {_figure(entry['held_out']['gold'])}; alpha "
                    f"{_figure(entry['shown']['alpha'])} vs {_figure(entry['held_out']['alpha'])}")
        cost = found["model_cost"]
        crowd = found["crowd_cost"]
        model = (f"{cost['total']} in all, {cost['per_item'] or '-'} an item, {cost['seconds_per_item'] or '-'} s an "
                 f"item" if cost["asked"] else "not asked here (its answers came with the project)")
        self.stdout.write(f"  model: {model}; crowd: {crowd['total']} paid, {crowd['per_item'] or '-'} an item")

    def do_model_votes(self, options):
        batch = self._batch(options["batch"])
        if options["off"]:
            model_votes_stop(batch=batch)
            self.stdout.write(f"batch {batch.pk}: no model's vote counts from now on")
            return
        found = model_votes_start(batch=batch, annotator=options["model"],
                                  min_confidence=options["min_confidence"] or None, min_people=options["min_people"])
        self.stdout.write(f"batch {batch.pk}: {model_votes_said(found)}")

    def do_suggest(self, options):
        batch = self._batch(options["batch"])
        if options["off"]:
            found = suggestions_stop(batch=batch)
        else:
            found = suggestions_start(batch=batch, annotator=options["model"], holdout=options["holdout"])
        if options["json"]:
            self.stdout.write(json.dumps({"batch": batch.pk, **found}))
        elif options["off"]:
            self.stdout.write(f"batch {batch.pk}: no more suggestions on work claimed from now on")
        else:
            self.stdout.write(f"batch {batch.pk}: {found['annotator']}'s answers are shown, pre-filled and marked, on "
                              f"work claimed from now on; {found['holdout']:.0%} of (annotator, item) pairs see none. "
                              f"`manage.py design compare {batch.pk}` gives the pull of the suggestion")

    def _conditions(self, summary):
        for cell in summary.get("cells", []):
            self.stdout.write(f"condition {', '.join(f'{factor}={level}' for factor, level in cell['levels'].items())}"
                              f": {cell['given']} given it, {cell['answered']} answered")
        for name, found in summary.get("estimates", {}).items():
            said = "not enough answers (two a group at least)" if found["estimate"] is None else (
                f"{found['estimate']:.3f} (standard error {found['standard_error']:.3f}, 95% "
                f"{found['interval'][0]:.3f} to {found['interval'][1]:.3f})")
            self.stdout.write(f"{name}: treated {found['treated']}, others {found['control']}; the sensitive "
                              f"statement's share, by the difference in mean counts: {said}")

    def do_report(self, options):
        batch = self._batch(options["batch"])
        # Read an item at a time (designs.export.batch_report): a batch of any size. Each item's label is in the
        # export, not here.
        report = batch_report(batch, outside=not options["crowd_only"])
        if options["json"]:
            found: dict[str, Any] = agreement_of(report.results)
            for name, result in report.results.items():
                found[name].update({"items": result.seen, "decided": result.decided})
            scores = gold_scores(batch)
            conditions = conditions_summary(batch, batch_design(batch.pk)[0])
            self.stdout.write(json.dumps({**found, **({"components": report.figures} if report.figures else {}),
                                          **({"known_answers": scores} if scores else {}),
                                          **({"conditions": conditions} if conditions else {})}))
            return
        self.stdout.write(f"{report.answers} answers")
        for name, result in report.results.items():
            alpha = "-" if result.alpha is None else f"{result.alpha:.3f}"
            # Free text and the like have no agreement level, and "none" keeps the answers as given: say so.
            agreement = f"alpha ({result.level}) {alpha}" if result.level else "no agreement measure"
            decided = (f"{result.method}: {result.decided} of {result.seen} items decided" if result.method != "none"
                       else f"kept as given on {result.seen} items")
            extra = f"; outcomes {result.outcomes}" if result.outcomes else ""
            extra += f"; top {next(iter(result.scores))}" if result.scores else ""
            self.stdout.write(f"{name} ({result.type}): {result.answers} answers, {agreement}, {decided}{extra}")
        for figure, value in report.figures.items():
            self.stdout.write(f"{figure}: {value}")
        self._conditions(conditions_summary(batch, batch_design(batch.pk)[0]))
        scores = gold_scores(batch)
        if scores:
            self.stdout.write("known-answer items right: " + "; ".join(
                f"{row['worker']} {row['right']} of {row['answered']} ({row['accuracy']:.0%})" for row in scores))
            expected = (batch.requirements or {}).get("gold_accuracy")
            if expected:
                under = [row["worker"] for row in scores if row["under"]]
                self.stdout.write(f"under the {expected['min_threshold']:.0%} asked (from "
                                  f"{expected['evaluation_count']} answered): " + (", ".join(under) or "nobody"))
        if len(workflow_batches(batch)) > 1:
            found = workflow_report(batch)
            for name, row in found["stages"].items():
                self.stdout.write(f"stage {name} (batch {row['batch']}): {counted(row['items'], 'item')}, "
                                  f"{counted(row['answers'], 'answer')}, {row['sent_back']} sent back"
                                  + (f"; waiting: {row['note']}" if row["note"] else ""))
            self.stdout.write(f"{counted(found['waiting'], 'chain')} used the rounds the design allows and "
                              f"wait{'s' if found['waiting'] == 1 else ''} for the organizer at "
                              f"/review/chains/{batch.pk}/")

    def do_export(self, options):
        batch = self._batch(options["batch"])
        if options["formats"]:
            formats = tuple(name.strip() for name in options["formats"].split(",") if name.strip())
        else:
            # The dataset formats (semeval) come from `manage.py dataset export`; this writes the design's others.
            formats = tuple(name for name in batch_design(batch.pk)[0].export.formats if name in FORMATS)
        try:
            written = export_batch(batch=batch, out=Path(options["out"]), formats=formats)
        except ValueError as error:
            raise CommandError(str(error)) from None
        for path in written:
            self.stdout.write(str(path))
            if path.name == "left-out.txt":  # what Label Studio will not ask is news, not only a file among many
                self.stdout.write("".join(f"  {line}\n" for line in path.read_text(encoding="utf-8").splitlines()),
                                  ending="")

    def _organizer(self, options):
        if not options.get("organizer"):
            return None
        user = User.objects.filter(username=options["organizer"]).first()
        if user is None:
            raise CommandError(f"--organizer {options['organizer']!r}: no such account; make it first "
                               f"(`manage.py createsuperuser`, or an invite)")
        return user

    def _imported(self, found, given, options):
        """An import's report line; unless --check, the project made of it (its id, page and draft batch added)."""
        line = found.as_json()
        if found.ok and not options["check"]:
            try:
                project, batch = potato_project_create(imported=found, provider=options["provider"],
                                                       user=self._organizer(options))
            except CrowdsetError as error:
                line["ok"], line["errors"] = False, [f"{given}: {error}"]
            else:
                line["project"] = project.pk
                line["url"] = settings.SITE_URL.rstrip("/") + reverse("projects:detail", args=[project.slug])
                line["batch"] = batch.pk
        return line

    def do_import_potato(self, options):
        failed = 0
        for given in options["configs"]:
            found = import_file(given)
            line = self._imported(found, given, options)
            failed += not line["ok"]
            self.stdout.write(json.dumps(line) if options["json"] else self._potato_text(line, found.notes))
        if failed:
            sys.exit(1)

    def do_import_labelstudio(self, options):
        found = labelstudio.import_files(options["config"], options["tasks"], options["title"])
        line = self._imported(found, options["config"], options)
        if options["json"]:
            self.stdout.write(json.dumps(line))
        else:
            self.stdout.write(self._potato_text({**line, "warnings": found.warnings}, found.notes)
                              .replace("Potato's own server and pages", "not carried over"))
        if not line["ok"]:
            sys.exit(1)

    def _potato_text(self, line, notes):
        schemes = ", ".join(f"{scheme['name']} ({scheme['type']}" + (f", from {scheme['from']})" if scheme.get("from")
                                                                    else ")") for scheme in line["schemes"])
        warnings = len(line["warnings"])
        state = "NOT OK" if not line["ok"] else "ok"
        if line["ok"] and warnings:
            state += f", with {warnings} warning{'s' * (warnings != 1)}"
        parts = [f"{line['config']}: {state}: {counted(line['items'], 'item')}; schemes: {schemes or '-'}"]
        if line.get("annotations"):
            parts.append(f"  answers: {counted(line['annotations'], 'annotation')} by "
                         f"{counted(line['annotators'], 'annotator')}"
                         + (f" from the project's saved work ({line['saved_work']})" if line.get("saved_work") else "")
                         + ", kept as their answers beside the crowd's (reports and exports read them; no one is "
                           "paid for them)")
        if line.get("predictions"):
            parts.append(f"  models: {counted(line['predictions'], 'prediction')} by {', '.join(line['models'])}, kept "
                         f"as those models' answers beside the crowd's (design compare measures them)")
        if line["ignored"]:
            parts.append(f"  ignored (Potato's own server and pages): {', '.join(line['ignored'])}")
        parts += [f"  warning: {warning}" for warning in line["warnings"]]
        parts += [f"  note: {note}" for note in notes]
        parts += [f"  error: {error}" for error in line["errors"]]
        if "project" in line:
            parts.append(f"  project {line['project']}: {line['url']} (draft batch {line['batch']}; next: python "
                         f"manage.py hits publish {line['batch']})")
        return "\n".join(parts)

    def do_preview(self, options):
        if options["potato"]:
            found = import_file(options["file"])
            if not found.ok or found.design is None:
                raise CommandError("\n".join(found.errors) + f"\n{options['file']}: not ok; nothing was written")
            design, records, items_name = found.design, found.records, "the config's data files"
            for warning in found.warnings:
                self.stderr.write(f"warning: {warning}")
        else:
            design = load_file(Path(options["file"]))
            if not options["items"]:
                raise CommandError("a design file's preview needs its items: add --items FILE (JSON, JSON Lines, CSV "
                                   "or TSV)")
            data_path = Path(options["items"])
            try:
                data = data_path.read_bytes()
            except OSError as error:
                raise CommandError(f"{data_path}: cannot read it ({error.strerror})") from None
            records, items_name = read_items(data, name=data_path.name, design=design), data_path.name
        context = preview_context(design, records, items_name)
        out = Path(options["html"])
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(standalone(render_to_string("projects/design_preview.html", context)), encoding="utf-8")
        schemes = ", ".join(f"{scheme.name} ({scheme.annotation_type})" for scheme in design.annotation_schemes)
        self.stdout.write(f"{out}: the first HIT, {counted(len(context['rows']), design.items.noun)} of "
                          f"{len(records)}; schemes: {schemes}")

    def do_schema(self, options):
        current = schema_json()
        if options["check"]:
            if not SCHEMA.exists() or SCHEMA.read_text() != current:
                raise CommandError(f"{SCHEMA.name} is not what the model generates; run `python manage.py design "
                                   f"schema` and commit it")
            self.stdout.write(f"{SCHEMA.name} is current")
            return
        SCHEMA.write_text(current)
        self.stdout.write(f"wrote {SCHEMA}")


def _number(value):
    return "-" if value is None else f"{value:.3f}"


def _figure(found):
    if found["value"] is None:
        return "-"
    return f"{found['value']:.3f} [{_number(found['low'])}, {_number(found['high'])}]"
