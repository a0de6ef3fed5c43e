"""`manage.py demo`: the pipeline end to end on the embedded defaults (see demo.pipeline)."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core.errors import CrowdsetError
from demo.pipeline import DemoError, Pipeline


class Command(BaseCommand):
    help = "Run the pipeline end to end on the sample corpus (embedded defaults: SQLite, in-process Celery)."

    def add_arguments(self, parser):
        parser.add_argument("--corpus-file", default=str(settings.SHARED_DIR / "corpora" / "news_sample.jsonl"))
        parser.add_argument("--gold-file", default=str(settings.SHARED_DIR / "semeval2020t5" / "subtask1_train.csv"))
        parser.add_argument("--spans-file", default=str(settings.SHARED_DIR / "semeval2020t5" / "subtask2_train.csv"))
        parser.add_argument("--no-mturk", action="store_true", help="skip the run through the MTurk emulator")
        parser.add_argument("--no-prolific", action="store_true", help="skip the run through the Prolific emulator")
        parser.add_argument("--auto-accept", action="store_true",
                            help="accept the span annotations as submitted instead of the simulated organizer's review")
        parser.add_argument("--out", default=str(settings.BASE_DIR / "exports" / "demo"),
                            help="where the dataset export goes")

    def handle(self, *args, **options):
        pipeline = Pipeline(stdout=self.stdout, stderr=self.stderr, corpus_file=options["corpus_file"],
                            gold_file=options["gold_file"], spans_file=options["spans_file"],
                            no_mturk=options["no_mturk"], no_prolific=options["no_prolific"],
                            auto_accept=options["auto_accept"], out=options["out"])
        try:
            pipeline.run()
        except (DemoError, CrowdsetError) as error:
            raise CommandError(str(error)) from None
        self.stdout.write("\nOpen the workspace: `.venv/bin/python manage.py runserver`, then "
                          f"http://127.0.0.1:8000/ and {pipeline.workspace_note}. The dashboard is at /dashboard/, "
                          "projects at /projects/.")
