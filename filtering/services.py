"""Workflows of the filtering app: ingest a corpus, run the candidate filter."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from os import PathLike
from typing import Any

from django.db import DatabaseError, connection, transaction
from django.db.models import F, Model
from django.utils import timezone

from filtering import nlp, patterns
from filtering.extensions import SENTENCE_USES
from filtering.models import Candidate, Corpus, Document, FilterChunk, FilterRun, Sentence
from filtering.readers import BadRecord, Record, read_records

FLUSH_DOCUMENTS = 500
FLUSH_SENTENCES = 20_000
SENTENCE_BATCH = 5_000


@dataclass
class IngestReport:
    corpus: str
    documents: int = 0
    sentences: int = 0
    replaced: int = 0
    skipped_existing: int = 0
    errors: list[BadRecord] = field(default_factory=list)
    by_domain: Counter[tuple[str, str]] = field(default_factory=Counter)

    @property
    def skipped(self) -> int:
        return self.skipped_existing + len(self.errors)


Pending = dict[str, tuple[Record, str, list[tuple[int, int]]]]


def corpus_ingest(*, path: str | PathLike[str], corpus_name: str, fmt: str | None = None, domain: str | None = None,
                  replace: bool = False, force: bool = False, text_column: str = "text", id_column: str = "id",
                  max_bytes: int | None = None, progress: Callable[[Any], None] | None = None,
                  domains: tuple[str, ...] = ()) -> IngestReport:
    """Stream documents from `path` into `corpus_name`, split into sentences.

    Documents are validated and split before anything is written; each flush
    writes whole documents with all their sentences in one transaction, so a
    bad document never leaves a part of itself behind, and if the database
    still refuses one, the others of its flush are written one by one. The
    corpus row is made with the first document stored, never for a file that
    holds none.

    A document id already in the corpus is skipped, or, with `replace`,
    replaced. A document whose sentences are in use (candidates, batch items)
    is replaced only with `force`, and then its old sentences are kept,
    superseded, so the work that refers to them stays valid.
    """
    report = IngestReport(corpus=corpus_name)
    options: dict[str, Any] = {"domain": domain, "text_column": text_column, "id_column": id_column,
                               "domains": domains}
    if max_bytes:
        options["max_bytes"] = max_bytes
    pending: Pending = {}
    pending_sentences = 0
    for item in read_records(path, fmt, **options):
        if progress:
            progress(item)
        if isinstance(item, BadRecord):
            report.errors.append(item)
            continue
        if item.external_id in pending:
            report.errors.append(BadRecord(item.file, item.line, f"document id {item.external_id!r} repeats "
                                           f"line {pending[item.external_id][0].line}; ids must be unique"))
            continue
        text = nlp.normalize(item.text)
        spans = list(nlp.split_sentences(text))
        pending[item.external_id] = (item, text, spans)
        pending_sentences += len(spans)
        if len(pending) >= FLUSH_DOCUMENTS or pending_sentences >= FLUSH_SENTENCES:
            _flush(corpus_name, pending, replace, force, report)
            pending, pending_sentences = {}, 0
    if pending:
        _flush(corpus_name, pending, replace, force, report)
    if report.documents:
        _analyze(Document, Sentence)
    return report


def _analyze(*models: type[Model]) -> None:
    """Refresh PostgreSQL's statistics after a bulk write.

    Autovacuum gets to it eventually; until then the planner believes the
    tables are as small as before and picks nested loops that make each filter
    chunk 20 times slower.
    """
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE " + ", ".join(connection.ops.quote_name(model._meta.db_table) for model in models))


def sentences_in_use(sentence_ids: list[int]) -> int:
    """How many rows of any app refer to these sentences: candidates here, and what others register."""
    used = Candidate.objects.filter(sentence_id__in=sentence_ids).count()
    return used + sum(count(sentence_ids) for _, count in SENTENCE_USES.items())


def _flush(corpus_name: str, pending: Pending, replace: bool, force: bool, report: IngestReport) -> None:
    try:
        with transaction.atomic():
            written = _write(corpus_name, pending, replace, force)
    except DatabaseError:
        # A document the checks let through and the database refused: the others are not lost with it.
        written = _Written()
        for external_id, entry in pending.items():
            try:
                with transaction.atomic():
                    written.add(_write(corpus_name, {external_id: entry}, replace, force))
            except DatabaseError as error:
                item = entry[0]
                written.errors.append(BadRecord(item.file, item.line, f"document {external_id!r}: the database "
                                                f"refused it ({str(error).strip().splitlines()[0]}); fix it and "
                                                f"ingest again"))
    written.report_into(report)


@dataclass
class _Written:
    documents: list[tuple[str, int]] = field(default_factory=list)  # (domain, sentences) of each stored document
    replaced: int = 0
    skipped_existing: int = 0
    errors: list[BadRecord] = field(default_factory=list)

    def add(self, other: _Written) -> None:
        self.documents += other.documents
        self.replaced += other.replaced
        self.skipped_existing += other.skipped_existing
        self.errors += other.errors

    def report_into(self, report: IngestReport) -> None:
        report.documents += len(self.documents)
        report.sentences += sum(count for _, count in self.documents)
        report.replaced += self.replaced
        report.skipped_existing += self.skipped_existing
        report.errors += self.errors
        for domain, count in self.documents:
            report.by_domain[domain, "documents"] += 1
            report.by_domain[domain, "sentences"] += count


def _write(corpus_name: str, pending: Pending, replace: bool, force: bool) -> _Written:
    """Write `pending` in the caller's transaction; returns what was written (reported after the commit)."""
    written = _Written()
    corpus, _ = Corpus.objects.get_or_create(name=corpus_name)
    pending = dict(pending)
    existing = {d.external_id: d for d in Document.objects.filter(corpus=corpus, external_id__in=list(pending),
                                                                  superseded=None)}
    removed_documents = removed_sentences = 0
    for external_id, document in existing.items():
        item = pending[external_id][0]
        if not replace:
            del pending[external_id]
            written.skipped_existing += 1
            continue
        sentence_ids = list(document.sentences.values_list("pk", flat=True))
        used = sentences_in_use(sentence_ids)
        if used and not force:
            del pending[external_id]
            written.errors.append(BadRecord(item.file, item.line, (
                f"document {external_id!r}: its sentences are in use ({used} candidates or batch items refer to "
                f"them), so it is not replaced; pass --force to store the new text beside the old, which stays "
                f"for the work that uses it")))
            continue
        removed_documents += 1
        removed_sentences += len(sentence_ids)
        written.replaced += 1
        if used:
            document.superseded = timezone.now()
            document.save(update_fields=["superseded"])
        else:
            document.delete()
    documents = Document.objects.bulk_create(
        Document(corpus=corpus, external_id=item.external_id, domain=item.domain, title=item.title,
                 source=item.source, text=text)
        for item, text, _ in pending.values()
    )
    sentences = [
        Sentence(document=document, index=index, text=text[start:end], start=start, end=end)
        for document, (item, text, spans) in zip(documents, pending.values(), strict=True)
        for index, (start, end) in enumerate(spans)
    ]
    Sentence.objects.bulk_create(sentences, batch_size=SENTENCE_BATCH)
    # A replaced document changes the corpus: later filter runs are a new pass over its current text.
    Corpus.objects.filter(pk=corpus.pk).update(
        document_count=F("document_count") + len(documents) - removed_documents,
        sentence_count=F("sentence_count") + len(sentences) - removed_sentences,
        revision=F("revision") + (1 if removed_documents else 0))
    written.documents = [(document.domain, len(spans)) for document, (_, _, spans)
                         in zip(documents, pending.values(), strict=True)]
    return written


# --- the candidate filter over stored sentences ---------------------------------

CHUNK_SIZE = 5_000


def filter_run_prepare(*, profile: str = patterns.DEFAULT_PROFILE, corpus: Corpus | None = None, domain: str = "",
                       chunk_size: int = CHUNK_SIZE) -> FilterRun:
    """Get or create the run for this profile and scope, and chunk new sentences.

    Chunks cover sentence ids already in the scope; sentences ingested since the
    last call get new chunks, and chunks already done are left as they are, so
    calling this again resumes a run instead of starting over.
    """
    patterns.CandidateFilter(profile)  # refuse an unknown profile before writing anything
    run, _ = FilterRun.objects.get_or_create(
        profile=profile, scope=FilterRun.scope_key(corpus, domain), defaults={"corpus": corpus, "domain": domain or ""}
    )
    last_id = run.chunks.order_by("-last_id").values_list("last_id", flat=True).first() or 0
    ids = run.sentences().filter(id__gt=last_id).order_by("id").values_list("id", flat=True)
    chunks, block = [], []
    for sentence_id in ids.iterator(chunk_size=chunk_size):
        block.append(sentence_id)
        if len(block) == chunk_size:
            chunks.append(FilterChunk(run=run, first_id=block[0], last_id=block[-1]))
            block = []
    if block:
        chunks.append(FilterChunk(run=run, first_id=block[0], last_id=block[-1]))
    FilterChunk.objects.bulk_create(chunks)
    return run


def filter_chunk_process(*, chunk_id: int) -> FilterChunk:
    """Run the filter over one chunk and store its candidates and counts.

    Safe to run twice or in two workers at once: the chunk row is locked and a
    chunk already done is not redone.
    """
    with transaction.atomic():
        chunk = FilterChunk.objects.select_for_update().select_related("run").get(id=chunk_id)
        if chunk.done:
            return chunk
        run = chunk.run
        engine = patterns.CandidateFilter(run.profile)
        sentences = run.sentences().filter(id__gte=chunk.first_id, id__lte=chunk.last_id)
        by_domain: dict[str, list[int]] = {}
        rows: Counter[str] = Counter()
        pos_forms: Counter[str] = Counter()
        candidates = []
        for sentence_id, text, domain in sentences.values_list("id", "text", "document__domain").iterator():
            match = engine.match(text)
            counts = by_domain.setdefault(domain, [0, 0])
            counts[0] += 1
            if match.candidate:
                counts[1] += 1
                rows.update(match.rows)
                pos_forms.update(match.pos_forms)
                candidates.append(Candidate(sentence_id=sentence_id, run=run, rows=list(match.rows),
                                            pos_forms=list(match.pos_forms)))
        Candidate.objects.bulk_create(candidates, batch_size=SENTENCE_BATCH)
        chunk.done = True
        chunk.sentences = sum(counts[0] for counts in by_domain.values())
        chunk.candidates = len(candidates)
        chunk.stats = {"by_domain": by_domain, "rows": dict(rows), "pos_forms": dict(pos_forms)}
        chunk.finished = timezone.now()
        chunk.save()
    return chunk


@dataclass
class FilterReport:
    chunks: int = 0
    chunks_done: int = 0
    sentences: int = 0
    candidates: int = 0
    by_domain: dict[str, list[int]] = field(default_factory=dict)
    rows: Counter[str] = field(default_factory=Counter)
    pos_forms: Counter[str] = field(default_factory=Counter)


def filter_run_report(*, run: FilterRun) -> FilterReport:
    return filter_run_reports(runs=[run])[run.pk]


def filter_run_reports(*, runs: Sequence[FilterRun]) -> dict[int, FilterReport]:
    """Each run's counts summed from its chunks, in one query for all the runs."""
    reports = {run.pk: FilterReport() for run in runs}
    for chunk in FilterChunk.objects.filter(run__in=reports).order_by("first_id"):
        report = reports[chunk.run_id]
        report.chunks += 1
        if not chunk.done:
            continue
        report.chunks_done += 1
        report.sentences += chunk.sentences
        report.candidates += chunk.candidates
        for domain, (sentences, candidates) in chunk.stats["by_domain"].items():
            counts = report.by_domain.setdefault(domain, [0, 0])
            counts[0] += sentences
            counts[1] += candidates
        report.rows.update(chunk.stats["rows"])
        report.pos_forms.update(chunk.stats["pos_forms"])
    return reports
