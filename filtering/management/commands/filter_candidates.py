import time

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from core.words import counted
from filtering.models import Corpus
from filtering.patterns import DEFAULT_PROFILE, PROFILES
from filtering.services import CHUNK_SIZE, filter_run_prepare, filter_run_report
from filtering.tasks import filter_chunk


class Command(BaseCommand):
    help = "Run the candidate filter over stored sentences, in chunks run as Celery tasks. Re-running resumes."

    def add_arguments(self, parser):
        parser.add_argument("--corpus", help="only this corpus (default: all)")
        parser.add_argument("--domain", help="only this domain (default: all)")
        parser.add_argument("--profile", default=DEFAULT_PROFILE, choices=sorted(PROFILES))
        parser.add_argument("--chunk-size", type=int, default=CHUNK_SIZE)
        parser.add_argument("--no-wait", action="store_true", help="queue the chunks and return (workers only)")
        parser.add_argument("--stall", type=int, default=600,
                            help="give up waiting when no chunk has finished for this many seconds")

    def handle(self, *args, **options):
        corpus = None
        if options["corpus"]:
            corpus = Corpus.objects.filter(name=options["corpus"]).first()
            if corpus is None:
                names = ", ".join(Corpus.objects.values_list("name", flat=True)) or "none yet: run ingest first"
                raise CommandError(f"no corpus {options['corpus']!r} (corpora: {names})")
        run = filter_run_prepare(profile=options["profile"], corpus=corpus, domain=options["domain"] or "",
                                 chunk_size=options["chunk_size"])
        pending = list(run.chunks.filter(done=False).values_list("id", flat=True))
        total = run.chunks.count()
        self.stdout.write(f"filter run {run}: {counted(total, 'chunk')}, {total - len(pending)} already done")
        with tqdm(total=total, initial=total - len(pending), unit=" chunks", disable=None, leave=False) as bar:
            for chunk_id in pending:
                filter_chunk.delay(chunk_id)
                if filter_chunk.app.conf.task_always_eager:
                    bar.update()
            if options["no_wait"]:
                self.stdout.write(f"queued {counted(len(pending), 'chunk')}; run this command again to see the result")
                return
            last_progress, seen = time.monotonic(), total - len(pending)
            while (done := run.chunks.filter(done=True).count()) < total:
                bar.update(done - bar.n)
                if done > seen:
                    last_progress, seen = time.monotonic(), done
                elif time.monotonic() - last_progress > options["stall"]:
                    missing = list(run.chunks.filter(done=False).values_list("id", flat=True)[:20])
                    raise CommandError(
                        f"no chunk finished in {options['stall']} s; {total - done} of {total} are not done (chunks "
                        f"{', '.join(map(str, missing))}{', ...' if total - done > 20 else ''}). Is a Celery worker "
                        f"running? A killed worker's chunks come back to the queue; running this command again "
                        f"queues the missing ones anew (a chunk is never done twice)")
                time.sleep(0.5)
        self._print_report(filter_run_report(run=run), run.profile)

    def _print_report(self, report, profile):
        rate = report.candidates / report.sentences if report.sentences else 0
        self.stdout.write(f"{report.candidates} candidates of {report.sentences} sentences ({rate:.2%})")
        for domain, (sentences, candidates) in sorted(report.by_domain.items()):
            self.stdout.write(f"  {domain:<11} {candidates:>7} / {sentences:>8} = {candidates / sentences:.2%}")
        self.stdout.write("candidates per Table 5 row: " + ", ".join(
            f"{row.id}: {report.rows[row.id]}" for row in PROFILES[profile].rows))
        self.stdout.write("POS forms on POS-gated candidates: " + (", ".join(
            f"{form}: {count}" for form, count in sorted(report.pos_forms.items())) or "none"))
