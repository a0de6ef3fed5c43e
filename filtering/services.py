"""Workflows of the filtering app: ingest a corpus, run the candidate filter."""

from collections import Counter
from dataclasses import dataclass, field

from django.db import connection, transaction
from django.utils import timezone

from filtering import nlp, patterns
from filtering.models import Candidate, Corpus, Document, FilterChunk, FilterRun, Sentence
from filtering.readers import BadRecord, read_records

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
    errors: list = field(default_factory=list)
    by_domain: Counter = field(default_factory=Counter)

    @property
    def skipped(self):
        return self.skipped_existing + len(self.errors)


def corpus_ingest(*, path, corpus_name, fmt=None, domain=None, replace=False, text_column="text",
                  id_column="id", max_bytes=None, progress=None):
    """Stream documents from `path` into `corpus_name`, split into sentences.

    Documents are validated and split before anything is written; each flush
    writes whole documents with all their sentences in one transaction, so a
    bad document never leaves a part of itself behind. A document id already
    in the corpus is skipped, or replaced when `replace` is set.
    """
    corpus, _ = Corpus.objects.get_or_create(name=corpus_name)
    report = IngestReport(corpus=corpus.name)
    options = {"domain": domain, "text_column": text_column, "id_column": id_column}
    if max_bytes:
        options["max_bytes"] = max_bytes
    pending = {}
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
            _flush(corpus, pending, replace, report)
            pending, pending_sentences = {}, 0
    if pending:
        _flush(corpus, pending, replace, report)
    if report.documents:
        _analyze(Document, Sentence)
    return report


def _analyze(*models):
    """Refresh PostgreSQL's statistics after a bulk write.

    Autovacuum gets to it eventually; until then the planner believes the
    tables are as small as before and picks nested loops that make each filter
    chunk 20 times slower.
    """
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE " + ", ".join(connection.ops.quote_name(model._meta.db_table) for model in models))


@transaction.atomic
def _flush(corpus, pending, replace, report):
    existing = Document.objects.filter(corpus=corpus, external_id__in=list(pending))
    if replace:
        report.replaced += existing.count()
        existing.delete()
    else:
        for external_id in existing.values_list("external_id", flat=True):
            del pending[external_id]
            report.skipped_existing += 1
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
    report.documents += len(documents)
    report.sentences += len(sentences)
    for document, (_, _, spans) in zip(documents, pending.values(), strict=True):
        report.by_domain[document.domain, "documents"] += 1
        report.by_domain[document.domain, "sentences"] += len(spans)


# --- the candidate filter over stored sentences ---------------------------------

CHUNK_SIZE = 5_000


def filter_run_prepare(*, profile=patterns.DEFAULT_PROFILE, corpus=None, domain="", chunk_size=CHUNK_SIZE):
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


def filter_chunk_process(*, chunk_id):
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
        by_domain, rows, pos_forms = {}, Counter(), Counter()
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
    by_domain: dict = field(default_factory=dict)
    rows: Counter = field(default_factory=Counter)
    pos_forms: Counter = field(default_factory=Counter)


def filter_run_report(*, run):
    report = FilterReport()
    for chunk in run.chunks.all():
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
    return report
