from django.db import models


class Corpus(models.Model):
    """A named collection of documents, usually one ingested source."""

    name = models.SlugField(max_length=100, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    # Kept by the ingest as it writes, so pages never count a million sentences to show the number.
    document_count = models.PositiveIntegerField(default=0)
    sentence_count = models.PositiveBigIntegerField(default=0)
    # Goes up when an ingest replaces documents: a filter run covers one revision of the corpus, so a run
    # after a replacement is a new pass over the current text and the old run keeps its own report.
    revision = models.PositiveIntegerField(default=1)

    class Meta:
        verbose_name_plural = "corpora"

    def __str__(self):
        return self.name


class Document(models.Model):
    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="documents")
    external_id = models.CharField(max_length=200)
    # Whatever the corpus says (filtering.readers.domain_problem checks it); the paper's were finance,
    # politics and healthcare.
    domain = models.CharField(max_length=40)
    title = models.TextField(blank=True)
    source = models.TextField(blank=True)
    # NFC-normalized once at ingest; Sentence offsets index this exact string.
    text = models.TextField()
    created = models.DateTimeField(auto_now_add=True)
    # Set when a newer document with the same id replaced this one while its sentences were in use:
    # it stays for the work that refers to it, and is out of the corpus for everything else.
    superseded = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["corpus", "external_id"], condition=models.Q(superseded=None),
                                               name="document_unique_id")]
        indexes = [models.Index(fields=["corpus", "domain"])]

    def __str__(self):
        return f"{self.corpus.name}/{self.external_id}"


class Sentence(models.Model):
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="sentences")
    index = models.PositiveIntegerField()
    text = models.TextField()
    # Python slice convention: document.text[start:end] == text.
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["document", "index"], name="sentence_unique_index"),
            models.CheckConstraint(condition=models.Q(start__lte=models.F("end")), name="sentence_start_before_end"),
        ]

    def __str__(self):
        return self.text[:80]


class FilterRun(models.Model):
    """One pass of the candidate filter over a scope of sentences.

    The run is split into chunks of sentence ids; each chunk is one Celery task
    and records its own result, so a run can be resumed and its progress read
    from the rows.
    """

    profile = models.CharField(max_length=40)
    corpus = models.ForeignKey(Corpus, null=True, blank=True, on_delete=models.CASCADE)
    domain = models.CharField(max_length=40, blank=True)
    # "corpus/domain" with "*" for either left open: one run per profile and scope.
    scope = models.CharField(max_length=140)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["profile", "scope"], name="filterrun_unique_scope")]

    def __str__(self):
        return f"{self.profile} over {self.scope}"

    @staticmethod
    def scope_key(corpus, domain):
        return f"{f'{corpus.name}@{corpus.revision}' if corpus else '*'}/{domain or '*'}"

    @property
    def is_complete(self):
        return not self.chunks.filter(done=False).exists()

    def sentences(self):
        scope = Sentence.objects.filter(document__superseded=None)
        if self.corpus_id:
            scope = scope.filter(document__corpus_id=self.corpus_id)
        if self.domain:
            scope = scope.filter(document__domain=self.domain)
        return scope


class FilterChunk(models.Model):
    run = models.ForeignKey(FilterRun, on_delete=models.CASCADE, related_name="chunks")
    # Sentence ids in [first_id, last_id]; ids only grow, so a chunk never changes.
    first_id = models.BigIntegerField()
    last_id = models.BigIntegerField()
    done = models.BooleanField(default=False)
    sentences = models.PositiveIntegerField(default=0)
    candidates = models.PositiveIntegerField(default=0)
    # {"by_domain": {domain: [sentences, candidates]}, "rows": {row: n}, "pos_forms": {form: n}}
    stats = models.JSONField(default=dict)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["first_id"]
        constraints = [models.UniqueConstraint(fields=["run", "first_id"], name="filterchunk_unique_start")]

    def __str__(self):
        return f"sentences {self.first_id}-{self.last_id} of {self.run}"


class Candidate(models.Model):
    """A sentence the filter picked, with the rows and POS forms that fired."""

    sentence = models.ForeignKey(Sentence, on_delete=models.CASCADE, related_name="candidates")
    run = models.ForeignKey(FilterRun, on_delete=models.CASCADE, related_name="candidates")
    rows = models.JSONField()
    pos_forms = models.JSONField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "sentence"], name="candidate_unique_sentence")]

    def __str__(self):
        return f"rows {', '.join(self.rows)}: {self.sentence}"
