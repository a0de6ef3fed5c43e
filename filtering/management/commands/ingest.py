from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from core.words import counted
from filtering.readers import DEFAULT_MAX_BYTES, FORMATS, CorpusFileError, domain_problem
from filtering.services import corpus_ingest

SHOWN_ERRORS = 50


class Command(BaseCommand):
    help = "Ingest news documents (JSONL, CSV or a folder of .txt files) and split them into sentences."

    def add_arguments(self, parser):
        parser.add_argument("path", help="a .jsonl or .csv file, or a folder of .txt files")
        parser.add_argument("--format", choices=FORMATS, help="default: from the path (.csv, folder, else jsonl)")
        parser.add_argument("--domain", help="domain for documents that do not name one (any word, e.g. finance)")
        parser.add_argument("--domains", help="comma-separated: the only domains to accept (default: any)")
        parser.add_argument("--corpus", help="corpus name (default: the file or folder name)")
        parser.add_argument("--replace", action="store_true", help="replace documents whose id is already stored")
        parser.add_argument("--force", action="store_true",
                            help="with --replace, also replace documents whose sentences are in use (candidates, "
                                 "batch items); their old sentences are kept for that work")
        parser.add_argument("--text-column", default="text", help="CSV column with the document text")
        parser.add_argument("--id-column", default="id", help="CSV column with the document id")
        parser.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES, help="longest document accepted")

    def handle(self, *args, **options):
        path = Path(options["path"])
        corpus = options["corpus"] or path.stem.replace("_", "-").replace(".", "-")
        domains = tuple(part.strip() for part in (options["domains"] or "").split(",") if part.strip())
        for domain in (options["domain"], *domains):
            problem = domain and domain_problem(domain)
            if problem:
                raise CommandError(problem)
        bar = tqdm(unit=" docs", desc=f"ingest {path.name}", disable=None, leave=False)
        try:
            report = corpus_ingest(path=path, corpus_name=corpus, fmt=options["format"], domain=options["domain"],
                                   replace=options["replace"], force=options["force"],
                                   text_column=options["text_column"],
                                   id_column=options["id_column"], max_bytes=options["max_bytes"],
                                   domains=domains, progress=lambda item: bar.update())
        except CorpusFileError as error:
            raise CommandError(str(error)) from None
        finally:
            bar.close()

        for error in report.errors[:SHOWN_ERRORS]:
            self.stderr.write(f"error: {error}")
        if len(report.errors) > SHOWN_ERRORS:
            self.stderr.write(f"... and {len(report.errors) - SHOWN_ERRORS} more errors")
        self.stdout.write(
            f"corpus {report.corpus}: stored {counted(report.documents, 'document')}, "
            f"{counted(report.sentences, 'sentence')}; replaced {report.replaced}; skipped "
            f"{report.skipped_existing} already stored, {len(report.errors)} with errors"
        )
        for domain in sorted({domain for domain, _ in report.by_domain}):
            documents = report.by_domain[domain, "documents"]
            if documents:
                sentences = report.by_domain[domain, "sentences"]
                self.stdout.write(f"  {domain:<11} {documents:>6} document{'s' if documents != 1 else ''} "
                                  f"{sentences:>8} sentence{'s' if sentences != 1 else ''}")
        if report.errors:
            raise CommandError(f"{counted(len(report.errors), 'document')} not stored because of the errors above; "
                               f"fix them and run the same command again (stored documents are skipped)")
