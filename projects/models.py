"""Projects: one dataset effort, from its corpus to its released versions.

A project groups what the apps below it made for it (corpora, filter runs, the
screening test, batches, aggregations, dataset versions) through links kept
here, so the apps themselves know nothing of projects. Its design (the SemEval
pipeline, or another registered in projects.designs) names its steps.
"""

from django.conf import settings
from django.db import models

from aggregation.models import AggregationRun
from filtering.models import Corpus, FilterRun
from hits.models import Batch
from qualification.models import QualificationTest
from releases.models import DatasetVersion


class Project(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    # A name registered in projects.designs.DESIGNS.
    design = models.CharField(max_length=40, default="semeval")
    description = models.TextField(blank=True)
    # What all the project's batches may spend together, fees included (hits.services.budget_check).
    budget = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    # The only domains its corpus files may name; empty: any (a corpus names its own).
    domains = models.JSONField(default=list, blank=True)
    # In-house work open to every annotator of the site, not only the project's own (projects.access).
    open_to_site = models.BooleanField(default=False, help_text="every annotator of the site may take this "
                                                                 "project's in-house work, not only its members")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created = models.DateTimeField(auto_now_add=True)
    corpora = models.ManyToManyField(Corpus, blank=True, related_name="projects")
    filter_runs = models.ManyToManyField(FilterRun, blank=True, related_name="projects")
    tests = models.ManyToManyField(QualificationTest, blank=True, related_name="projects")
    batches = models.ManyToManyField(Batch, blank=True, related_name="projects")
    aggregations = models.ManyToManyField(AggregationRun, blank=True, related_name="projects")
    versions = models.ManyToManyField(DatasetVersion, blank=True, related_name="projects")

    class Meta:
        ordering = ["-created", "-pk"]

    def __str__(self):
        return self.name


class Upload(models.Model):
    """A file an organizer uploaded, streamed to disk under UPLOAD_ROOT, and what it is for."""

    class Kind(models.TextChoices):
        CORPUS = "corpus", "news documents to ingest"
        RELEASED = "released", "a released Subtask-1 file (screening test and known answers)"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="uploads")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    name = models.CharField(max_length=255, help_text="the file's name on the organizer's computer")
    path = models.CharField(max_length=500, help_text="where it is stored, under UPLOAD_ROOT")
    # jsonl | csv | txt-dir (a zip of .txt files, unpacked)
    format = models.CharField(max_length=10)
    size = models.PositiveBigIntegerField()
    # For a CSV: its header, for the column picker.
    columns = models.JSONField(default=list, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created", "-pk"]

    def __str__(self):
        return f"{self.name} ({self.get_kind_display()})"


class Sample(models.Model):
    """Candidates of a filter run chosen for annotation, balanced across domains."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="samples")
    run = models.ForeignKey(FilterRun, on_delete=models.PROTECT, related_name="samples")
    size = models.PositiveIntegerField()
    seed = models.IntegerField(default=0)
    candidate_ids = models.JSONField()
    report = models.JSONField(default=dict)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created", "-pk"]

    def __str__(self):
        return f"{len(self.candidate_ids)} candidates of {self.run}"


class Role(models.TextChoices):
    """A person's role in a project (projects.access says what each may do)."""

    ORGANIZER = "organizer", "organizer: runs the project"
    REVIEWER = "reviewer", "reviewer: span review, spot checks, chains"
    ANNOTATOR = "annotator", "annotator: does the work"
    RESEARCHER = "researcher", "researcher: reads the labels and exports"


class Invite(models.Model):
    """A way into a project: a link for one person (used once) or a join link shared with many (up to `limit`
    people, until `expires`), each for one role (annotator unless said). Whoever follows it sets their own
    password and becomes a member of that project only."""

    class Kind(models.TextChoices):
        PERSON = "person"
        LINK = "link"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="invites")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    role = models.CharField(max_length=12, choices=Role.choices, default=Role.ANNOTATOR)
    token = models.CharField(max_length=64, unique=True)
    name = models.CharField(max_length=150, blank=True, help_text="who it is for (a person's invite)")
    email = models.EmailField(blank=True)
    limit = models.PositiveIntegerField(default=1, help_text="how many people may join with it")
    uses = models.PositiveIntegerField(default=0)
    expires = models.DateTimeField(null=True, blank=True)
    revoked = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created", "-pk"]
        constraints = [models.CheckConstraint(condition=models.Q(uses__lte=models.F("limit")),
                                              name="invite_uses_within_limit")]

    def __str__(self):
        return f"{self.project}: {self.kind} invite {self.name or self.email or self.pk}"


class Member(models.Model):
    """A person of a project, in one role. Pausing or removing an annotator stops new work; what they did stays.
    Removing someone of another role takes the project from them."""

    class State(models.TextChoices):
        ACTIVE = "active"
        PAUSED = "paused"
        REMOVED = "removed"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="memberships")
    role = models.CharField(max_length=12, choices=Role.choices, default=Role.ANNOTATOR)
    state = models.CharField(max_length=10, choices=State.choices, default=State.ACTIVE)
    invite = models.ForeignKey(Invite, null=True, blank=True, on_delete=models.SET_NULL, related_name="members")
    joined = models.DateTimeField(auto_now_add=True)
    changed = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["joined", "pk"]
        constraints = [models.UniqueConstraint(fields=["project", "user"], name="member_unique_user")]

    def __str__(self):
        return f"{self.user}, {self.role} of {self.project} ({self.state})"


class BatchFigures(models.Model):
    """A batch's numbers as a project design's report step shows them (agreement and labels so far, a paper's
    figures), computed by a job (projects.jobs `project-figures`) and read by the pages, which never compute them:
    `work_version` is the batch's Batch.work_version they were computed from, so a page knows in one read whether
    answers came in since."""

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="figures")
    design = models.CharField(max_length=40, help_text="the project design whose report step they are")
    text = models.TextField()
    work_version = models.PositiveIntegerField()
    seconds = models.FloatField(default=0.0)
    made = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["batch", "design"], name="batch_figures_once")]

    def __str__(self) -> str:
        return f"{self.design} figures of batch {self.batch_id}"
