"""The organizer's forms: each validates its fields with a message on the field, before any job starts."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.core.validators import MaxValueValidator, MinValueValidator
from django.utils.text import slugify

from core.words import counted
from designs.semeval import subtask1_votes_required
from filtering.patterns import DEFAULT_PROFILE, PROFILES
from filtering.readers import KNOWN_DOMAINS, domain_problem
from hits.models import Batch
from hits.providers import PROVIDERS
from hits.providers.prolific import CATEGORIES as REJECTION_CATEGORIES
from hits.providers.prolific import MIN_REJECTION
from hits.services import cost_estimate, hit_count, worker_filters
from hits.services.adaptive import adaptive_refusal
from projects.designs import DESIGNS
from projects.models import Project, Upload
from releases.models import DatasetVersion

PROVIDER_CHOICES = [(name, {"inhouse": "In-house annotators (this site)", "mturk": "Amazon Mechanical Turk",
                            "prolific": "Prolific"}.get(name, name)) for name in PROVIDERS]
SHARE = [MinValueValidator(0.0), MaxValueValidator(1.0)]


class ProjectForm(forms.Form):
    name = forms.CharField(max_length=200)
    slug = forms.SlugField(max_length=100, required=False, help_text="its address; made from the name if empty")
    design = forms.ChoiceField(choices=(), initial="semeval")
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)
    budget = forms.DecimalField(min_value=Decimal("0"), max_digits=12, decimal_places=2, required=False,
                                help_text="what all its batches may spend together, rewards, bonuses and provider "
                                          "fees included; empty for no limit")

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["design"].choices = [(name, design.title) for name, design in DESIGNS.items()]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        slug = data.get("slug") or slugify(data.get("name", ""))[:100]
        if not slug:
            self.add_error("name", "give the project a name with letters or digits")
        elif Project.objects.filter(slug=slug).exists():
            self.add_error("slug" if data.get("slug") else "name", f"a project called {slug!r} exists")
        data["slug"] = slug
        return data


class UploadForm(forms.Form):
    file = forms.FileField(help_text="JSONL (id, domain, text per line), CSV with a header line, or a .zip of .txt "
                                     "files; streamed to disk, however large")
    format = forms.ChoiceField(required=False, choices=[("", "from the file name"), ("jsonl", "JSONL"),
                                                        ("csv", "CSV"), ("txt-dir", "zip of .txt files")])
    corpus = forms.SlugField(max_length=100, required=False, help_text="the corpus name; from the file name if empty")
    domain = forms.CharField(required=False, max_length=40,
                             help_text="for documents that do not name their domain (every .txt file, a CSV without "
                                       "a domain column); any word, e.g. finance, technology")
    domains = forms.CharField(required=False, label="Domains this project takes", max_length=500,
                              help_text="comma-separated; documents naming another domain are refused and listed. "
                                        "Empty: any domain the file names")

    def __init__(self, *args: Any, project: Project, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["domains"].initial = ", ".join(project.domains)
        known = list(dict.fromkeys([*project.domains, *KNOWN_DOMAINS]))
        self.fields["domain"].widget.attrs.update({"list": "known-domains"})
        self.known_domains = known

    def clean_domains(self) -> list[str]:
        domains = list(dict.fromkeys(part.strip() for part in self.cleaned_data["domains"].split(",")
                                     if part.strip()))
        for domain in domains:
            problem = domain_problem(domain)
            if problem:
                raise forms.ValidationError(problem)
        return domains

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        domain = (data.get("domain") or "").strip()
        problem = domain and domain_problem(domain, tuple(data.get("domains") or ()))
        if problem:
            self.add_error("domain", problem)
        data["domain"] = domain
        return data


class CsvColumnsForm(forms.Form):
    """Which columns of an uploaded CSV hold the text and the id."""

    text_column = forms.ChoiceField()
    id_column = forms.ChoiceField(required=False)

    def __init__(self, *args: Any, upload: Upload, **kwargs: Any):
        super().__init__(*args, **kwargs)
        columns = [(c, c) for c in upload.columns]
        self.fields["text_column"].choices = columns
        self.fields["id_column"].choices = [("", "none: number the rows"), *columns]
        self.fields["text_column"].initial = next((c for c in upload.columns if c.lower() in ("text", "body",
                                                                                             "sentence")), None)
        self.fields["id_column"].initial = next((c for c in upload.columns if c.lower() in ("id", "sentenceid")), "")


class FilterForm(forms.Form):
    corpus = forms.ChoiceField()
    profile = forms.ChoiceField(choices=[(name, f"{name}: {profile.description}") for name, profile
                                         in PROFILES.items()], initial=DEFAULT_PROFILE, widget=forms.RadioSelect,
                                help_text="which token patterns pick a sentence, and which of them also need an "
                                          "Appendix B part-of-speech form")

    def __init__(self, *args: Any, corpora: list[Any], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["corpus"].choices = [(c.pk, c.name) for c in corpora]


class SampleForm(forms.Form):
    run = forms.ChoiceField(label="Filter run")
    size = forms.IntegerField(min_value=1, max_value=1_000_000, initial=300,
                              help_text="the paper annotated 20,000 of 60,000 candidates, a third from each domain")
    seed = forms.IntegerField(initial=0)

    def __init__(self, *args: Any, runs: list[Any], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["run"].choices = [(run.pk, f"{run.pk}: {run}") for run in runs]


class QualificationForm(forms.Form):
    source = forms.FileField(required=False, label="Released Subtask-1 file",
                             help_text="a CSV with sentenceID,gold_label,sentence (the released training file)")
    upload = forms.ChoiceField(required=False, label="or one uploaded before")
    threshold = forms.IntegerField(min_value=1, max_value=100, initial=80, help_text="percent right to pass")
    seed = forms.IntegerField(initial=0)
    duration = forms.IntegerField(min_value=5, max_value=24 * 60, initial=45, help_text="minutes for an attempt")
    retake_delay = forms.IntegerField(min_value=0, max_value=24 * 30, initial=24, help_text="hours before a retake")

    def __init__(self, *args: Any, uploads: list[Upload], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["upload"].choices = [("", "none")] + [(u.pk, u.name) for u in uploads]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not data.get("source") and not data.get("upload"):
            self.add_error("source", "upload the released file, or pick one uploaded before")
        return data


class TestItemForm(forms.Form):
    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}))
    answer = forms.TypedChoiceField(coerce=int, choices=[(1, "counterfactual"), (0, "not counterfactual")])
    why = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False, label="Explanation",
                          help_text="Shown to every worker after grading, with their answer and the right one.")


class BatchForm(forms.Form):
    """A crowd batch: the numbers of the paper by default (25 sentences a HIT, five workers)."""

    name = forms.CharField(max_length=200)
    items_per_hit = forms.IntegerField(min_value=1, max_value=100, initial=25, label="Sentences a HIT")
    assignments_per_hit = forms.IntegerField(min_value=1, max_value=100, initial=5, label="Workers a HIT")
    reward = forms.DecimalField(min_value=Decimal("0"), max_digits=8, decimal_places=2, initial=Decimal("0.50"),
                                label="Reward a HIT", help_text="what each worker gets for one HIT")
    budget = forms.DecimalField(min_value=Decimal("0"), max_digits=10, decimal_places=2, required=False,
                                help_text="publishing refuses to go over it, provider fees included")
    provider = forms.ChoiceField(choices=PROVIDER_CHOICES, initial="inhouse")
    qualification = forms.ChoiceField(required=False, label="Required test")
    min_approval_rate = forms.IntegerField(min_value=0, max_value=100, required=False, label="Minimum approval rate",
                                           help_text="percent of a worker's past work approved (MTurk, Prolific); "
                                                     "empty: the site's default")
    min_approved_hits = forms.IntegerField(min_value=0, max_value=10_000_000, required=False,
                                           label="Minimum approved HITs",
                                           help_text="MTurk's approved HITs, Prolific's approved submissions "
                                                     "(B-COPA asked for 10,000)")
    masters = forms.BooleanField(required=False, label="Masters only",
                                 help_text="MTurk's Masters qualification; MTurk charges 5% more for it")
    seed = forms.IntegerField(initial=0)

    def __init__(self, *args: Any, tests: list[Any], items: int, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.items = items
        self.fields["qualification"].choices = [("", "none")] + [(t.name, str(t)) for t in tests]
        if tests:
            self.fields["qualification"].initial = tests[0].name

    def gold(self) -> tuple[int, float]:
        return 0, 0.0

    def estimate(self) -> Any:
        data = self.cleaned_data
        gold_count, gold_rate = self.gold()
        hits = hit_count(items=self.items, items_per_hit=data["items_per_hit"], gold_items=gold_count,
                         gold_rate=gold_rate)
        return cost_estimate(provider=data["provider"], hits=hits, assignments_per_hit=data["assignments_per_hit"],
                             reward=data["reward"], masters=bool(data.get("masters")))

    def requirements(self) -> dict[str, Any]:
        """The batch's worker filters from the form (the job stores them on the batch)."""
        data = self.cleaned_data
        found = {name: data[name] for name in ("min_approval_rate", "min_approved_hits")
                 if data.get(name) is not None}
        if data.get("masters"):
            found["masters"] = True
        if data.get("qualification"):
            found["qualification"] = data["qualification"]
        return found

    def filters(self) -> list[str]:
        return worker_filters(provider=self.cleaned_data["provider"], requirements=self.requirements())

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        estimate = self.estimate()
        if data.get("budget") is not None and estimate.total > data["budget"]:
            self.add_error("budget", f"the batch would cost {estimate.total} ({estimate.rewards} in rewards and "
                                     f"{estimate.fees} in fees for {estimate.assignments} assignments); raise the "
                                     f"budget or lower the reward, the workers a HIT or the sample")
        return data


class LabelingBatchForm(BatchForm):
    gold_upload = forms.ChoiceField(required=False, label="Known answers from",
                                    help_text="a released Subtask-1 file uploaded with the screening test")
    gold_count = forms.IntegerField(min_value=0, max_value=5000, initial=0, label="Known-answer items")
    gold_rate = forms.FloatField(validators=SHARE, initial=0.0, label="Share of each HIT that is known",
                                 help_text="0.1 puts a tenth of known-answer items in every HIT")
    adaptive = forms.ChoiceField(
        required=False, label="Adaptive redundancy", choices=Batch.Adaptive.choices,
        help_text="stop buying votes that can no longer change what must be decided (the paper's outcomes: 2 yes "
                  "and 1 no is discarded whatever comes; positive or not: one no settles it) and re-pack the "
                  "sentences still open into new HITs; the batch page shows the votes and money saved. In-house "
                  "and MTurk")

    fewer_workers = forms.BooleanField(
        required=False, widget=forms.HiddenInput, label="Fewer workers than the paper's rules need: I will aggregate "
        "with majority vote or Dawid-Skene")

    def __init__(self, *args: Any, uploads: list[Upload], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["gold_upload"].choices = [("", "none")] + [(u.pk, u.name) for u in uploads]

    def gold(self) -> tuple[int, float]:
        data = self.cleaned_data
        return (data.get("gold_count") or 0, data.get("gold_rate") or 0.0) if data.get("gold_upload") else (0, 0.0)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        needed = subtask1_votes_required()
        workers = data.get("assignments_per_hit")
        if workers is not None and workers < needed and not data.get("fewer_workers"):
            self.add_error("assignments_per_hit", f"the paper's rules need {needed} votes a sentence: with "
                                                  f"{counted(workers, 'worker')} a HIT every sentence stays "
                                                  f"pending under them. Give {needed}, or tick the box below to "
                                                  f"aggregate with majority vote or Dawid-Skene instead")
            self.fields["fewer_workers"].widget = forms.CheckboxInput()
        refusal = adaptive_refusal(provider=data.get("provider", ""), task_type="design",
                                   mode=data["adaptive"]) if data.get("adaptive") else None
        if refusal:
            self.add_error("adaptive", refusal)
        if (data.get("gold_count") or data.get("gold_rate")) and not data.get("gold_upload"):
            self.add_error("gold_upload", "known-answer items need a released file to come from")
        if data.get("gold_upload") and data.get("gold_count") and not data.get("gold_rate"):
            self.add_error("gold_rate", "say what share of each HIT is known-answer items, e.g. 0.1")
        return data


class BonusForm(forms.Form):
    assignment = forms.IntegerField(min_value=1, max_value=2**63 - 1, help_text="the assignment's number, as in "
                                                                             "the review table")
    amount = forms.DecimalField(min_value=Decimal("0.01"), max_value=Decimal("999999.99"), max_digits=8,
                                decimal_places=2)
    reason = forms.CharField(max_length=500, help_text="the worker reads it")


class PublishForm(forms.Form):
    confirm = forms.BooleanField(label="I confirm this cost", error_messages={
        "required": "tick \"I confirm this cost\" to publish: publishing spends the total above"},
        help_text="publishing starts spending: tick the box to say the total above is what you mean to spend")
    total = forms.DecimalField(widget=forms.HiddenInput)


class ReviewForm(forms.Form):
    assignments = forms.MultipleChoiceField(widget=forms.CheckboxSelectMultiple, required=True,
                                            error_messages={"required": "tick the assignments to review"})
    decision = forms.ChoiceField(choices=[("approve", "Approve"), ("reject", "Reject")])
    feedback = forms.CharField(required=False, max_length=1024, widget=forms.Textarea(attrs={"rows": 2}),
                               help_text="the workers read it; a rejection needs one")

    # Prolific asks a rejection for a category and a message of 100 characters or more.
    category = forms.ChoiceField(required=False, label="Rejection category (Prolific)",
                                 choices=[("", "—")] + [(c, c.replace("_", " ").lower()) for c in REJECTION_CATEGORIES])

    def __init__(self, *args: Any, choices: list[tuple[int, str]], provider: str = "inhouse", **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.provider = provider
        self.fields["assignments"].choices = [(str(pk), label) for pk, label in choices]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        feedback = (data.get("feedback") or "").strip()
        if data.get("decision") == "reject" and not feedback:
            self.add_error("feedback", "say why the work is rejected: the workers read it")
        elif data.get("decision") == "reject" and self.provider == "prolific":
            if len(feedback) < MIN_REJECTION:
                self.add_error("feedback", f"Prolific needs at least {MIN_REJECTION} characters here (this has "
                                           f"{len(feedback)}): say what was wrong and how it was checked")
            if not data.get("category"):
                self.add_error("category", "Prolific needs a rejection category")
        return data


class SpotCheckForm(forms.Form):
    rate = forms.FloatField(validators=[MinValueValidator(0.01), MaxValueValidator(1.0)], initial=0.1,
                            help_text="share of each worker's submitted HITs to check")
    by_skill = forms.BooleanField(required=False, label="More from the least trusted workers",
                                  help_text="up to twice the share for a worker with a low skill (or low agreement) "
                                            "in the latest aggregation")
    seed = forms.IntegerField(initial=0)


class AggregateForm(forms.Form):
    method = forms.ChoiceField(choices=[("paper", "the paper's rules (5/5 positive; 5/5 and 4/5 negative)"),
                                        ("majority", "majority vote"),
                                        ("gold-majority", "majority weighted by accuracy on known answers"),
                                        ("dawid-skene", "Dawid-Skene, known answers clamped"),
                                        ("mace", "MACE")],
                               initial="paper", required=False,
                               help_text="the models label every voted sentence and weigh each worker by skill "
                                         "(crowd-kit)")
    keep_partial_negatives = forms.FloatField(validators=SHARE, initial=1.0, label="4/5 negatives kept",
                                              help_text="the paper kept 'some' of them; 1.0 keeps all")
    seed = forms.IntegerField(initial=0)
    samples = forms.IntegerField(min_value=100, max_value=10_000, initial=1000, label="Bootstrap samples")

    def __init__(self, *args: Any, models: Sequence[str] = (), **kwargs: Any):
        super().__init__(*args, **kwargs)
        if models:
            self.fields["with_model"] = forms.ChoiceField(
                choices=[("", "none"), *((name, name) for name in models)], required=False,
                label="A language model beside the people",
                help_text="a method reads its answers as one more annotator's on every sentence people voted on, "
                          "weighs it by the skill it estimates for it, and says how many labels it changes")

    def clean_method(self) -> str:
        return self.cleaned_data.get("method") or "paper"  # a form from before methods existed: the rules

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("with_model") and data.get("method") == "paper":
            self.add_error("with_model", "the paper's rules count no model beside the people: pick a method "
                                         "(majority, Dawid-Skene, MACE) to read its answers")
        return data


class SpanBatchForm(BatchForm):
    """One annotator a sentence, as in the paper; two or more give span agreement and a majority to start the
    review from."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["items_per_hit"].initial = 10
        annotators = self.fields["assignments_per_hit"]
        annotators.initial, annotators.max_value, annotators.label = 1, 5, "Annotators a sentence"
        annotators.validators = [MinValueValidator(1), MaxValueValidator(5)]
        annotators.widget.attrs["max"] = 5
        annotators.help_text = ("1 as in the paper; 2 or more measure span agreement, and the review starts "
                                "from their majority")
        self.fields["reward"].initial = Decimal("0.80")


class VersionForm(forms.Form):
    name = forms.SlugField(max_length=100)
    test_share = forms.FloatField(validators=[MinValueValidator(0.05), MaxValueValidator(0.95)], initial=0.35)
    seed = forms.IntegerField(initial=0)
    stratify = forms.ChoiceField(choices=[("label", "label"), ("label,domain", "label and domain")], initial="label")
    group_by_document = forms.BooleanField(required=False, help_text="keep each article on one side")
    without_unreviewed = forms.BooleanField(required=False, widget=forms.HiddenInput,
                                            label="Build it without the spans not reviewed yet")

    def __init__(self, *args: Any, unreviewed: int = 0, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.unreviewed = unreviewed
        if unreviewed:
            self.fields["without_unreviewed"].widget = forms.CheckboxInput()

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.unreviewed and not data.get("without_unreviewed"):
            many = self.unreviewed != 1
            self.add_error("without_unreviewed", f"{counted(self.unreviewed, 'span annotation')} "
                                                 f"{'are' if many else 'is'} not reviewed: the version leaves "
                                                 f"{'their' if many else 'its'} spans out. Review them first, or "
                                                 f"tick the box to build without them")
        return data

    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        if DatasetVersion.objects.filter(name=name).exists():
            raise forms.ValidationError(f"a dataset version named {name!r} exists; versions are frozen")
        return name


class JoinForm(UserCreationForm):
    """A new annotator's account: a username of their choice and a password they set themselves."""

    class Meta(UserCreationForm.Meta):
        model = UserCreationForm.Meta.model
        fields = ("username",)


class ModelRunForm(forms.Form):
    """A language model asked a design batch's items (designs.model_runs), as `manage.py design ask-model` asks it:
    where it runs, what it costs, and how it is asked. The key is never typed here: the form names the environment
    variable that holds it where the job runs."""

    url = forms.CharField(max_length=500, label="Endpoint URL",
                          help_text="the root of an OpenAI-compatible API, e.g. http://gpu-box:8000/v1")
    model = forms.CharField(max_length=200, required=False,
                            help_text="its name there (default: the design's llm.model)")
    key_env = forms.RegexField(regex=r"^[A-Za-z_][A-Za-z0-9_]*$", max_length=100, required=False,
                               label="Key's environment variable",
                               help_text="the variable holding the API key where the job runs; the key itself is "
                                         "never stored")
    price_in = forms.DecimalField(min_value=0, max_digits=12, decimal_places=6, initial=0,
                                  label="Price per 1,000 tokens in")
    price_out = forms.DecimalField(min_value=0, max_digits=12, decimal_places=6, initial=0,
                                   label="Price per 1,000 tokens out")
    budget = forms.DecimalField(min_value=0, max_digits=12, decimal_places=4, required=False,
                                help_text="refused before anything is asked when it could cost more")
    limit = forms.IntegerField(min_value=1, required=False, help_text="ask at most this many items")
    samples = forms.IntegerField(min_value=1, max_value=20, initial=1,
                                 help_text="above 1: asked that many times, confidence by agreement")
    position_check = forms.BooleanField(required=False, label="Position check",
                                        help_text="ask again with the options reversed and count the flips")

    def clean_url(self) -> str:
        url = self.cleaned_data["url"].strip()
        if not url.startswith(("http://", "https://")):
            raise forms.ValidationError("give the API's URL, starting with http:// or https://")
        return url


class _ModelForm(forms.Form):
    """A form about one of the models that answered the batch (OutsideAnswer.model_names)."""

    model = forms.ChoiceField(label="Whose answers")

    def __init__(self, *args: Any, models: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["model"].choices = [(name, name) for name in models]


class SuggestForm(_ModelForm):
    """A model's answers shown to people as suggestions (designs.suggestions)."""

    holdout = forms.FloatField(min_value=0, max_value=0.99, initial=0.2, label="Held out",
                               help_text="the share of (annotator, item) pairs that see no suggestion")


class ModelVotesForm(_ModelForm):
    """A model counted as one more voter in the batch's adaptive redundancy (designs.model_votes)."""

    min_confidence = forms.FloatField(min_value=0.01, max_value=1, initial=0.9, required=False,
                                      label="Least confidence",
                                      help_text="its vote counts only where its answer is this sure (empty: "
                                                "whatever its confidence)")
    min_people = forms.IntegerField(min_value=1, initial=1, label="People first",
                                    help_text="how many people answer an item before its vote counts")
