"""The end-to-end demo on embedded defaults. It grows with each pipeline stage;
stages not built yet are listed as such at the end."""

import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db.models import Count

from filtering.models import Document, Sentence
from filtering.patterns import DEFAULT_PROFILE, TABLE_5
from filtering.services import corpus_ingest, filter_run_prepare, filter_run_report
from filtering.tasks import filter_chunk

NOT_BUILT_YET = [
    "sample candidates", "qualification test", "Subtask-1 batch and crowd", "aggregate votes",
    "Subtask-2 spans and review", "export splits", "score baselines",
]


class Command(BaseCommand):
    help = "Run the pipeline end to end on the sample corpus (embedded defaults: SQLite, eager Celery)."

    def add_arguments(self, parser):
        parser.add_argument("--corpus-file", default=str(settings.SHARED_DIR / "corpora" / "news_sample.jsonl"))

    def handle(self, *args, **options):
        self.summary = []
        corpus = self.ingest(options["corpus_file"])
        self.filter(corpus)
        self.stdout.write("\nSummary")
        for stage, seconds, result in self.summary:
            self.stdout.write(f"  {stage:<28} {seconds:>6.1f}s  {result}")
        for stage in NOT_BUILT_YET:
            self.stdout.write(f"  {stage:<28} {'':>7}  not built yet")

    def stage(self, name, seconds, result):
        self.summary.append((name, seconds, result))

    def ingest(self, path):
        started = time.monotonic()
        try:
            report = corpus_ingest(path=path, corpus_name="news-sample")
        except FileNotFoundError as error:
            raise CommandError(f"{path}: {error.strerror}; pass --corpus-file") from None
        self.stdout.write(f"1. ingest {path}: stored {report.documents} documents, {report.sentences} sentences "
                          f"({report.skipped_existing} documents already stored, {len(report.errors)} errors)")
        for error in report.errors[:10]:
            self.stderr.write(f"   {error}")
        per_domain = (Document.objects.filter(corpus__name=report.corpus).values("domain")
                      .annotate(documents=Count("id", distinct=True), sentences=Count("sentences"))
                      .order_by("domain"))
        for row in per_domain:
            self.stdout.write(f"   {row['domain']:<11} {row['documents']:>5} documents {row['sentences']:>7} sentences")
        total = Sentence.objects.filter(document__corpus__name=report.corpus).count()
        self.stage("ingest", time.monotonic() - started, f"{total} sentences in corpus {report.corpus}")
        return report.corpus

    def filter(self, corpus_name):
        from filtering.models import Corpus

        started = time.monotonic()
        run = filter_run_prepare(profile=DEFAULT_PROFILE, corpus=Corpus.objects.get(name=corpus_name))
        for chunk_id in run.chunks.filter(done=False).values_list("id", flat=True):
            filter_chunk.delay(chunk_id)
        report = filter_run_report(run=run)
        rate = report.candidates / report.sentences if report.sentences else 0
        self.stdout.write(f"2. filter ({run.profile} profile): {report.candidates} candidates of "
                          f"{report.sentences} sentences ({rate:.2%})")
        for domain, (sentences, candidates) in sorted(report.by_domain.items()):
            self.stdout.write(f"   {domain:<11} {candidates:>5} / {sentences:>6} = {candidates / sentences:.2%}")
        self.stdout.write("   per row: " + ", ".join(f"{row.id}:{report.rows[row.id]}" for row in TABLE_5))
        self.stage("filter", time.monotonic() - started, f"{report.candidates} candidates ({rate:.2%})")
