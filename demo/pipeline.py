"""The end-to-end demo as stages: news text to exported splits on the embedded
defaults, with simulated crowds doing the work through the same HTTP paths
people and MTurk use. Each stage finds what an earlier run made and only
reports it, so a second run changes nothing."""

import json
import os
import secrets
import time
from collections import Counter
from decimal import Decimal
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.db.models import Count

from accounts import roles
from aggregation.models import SpotCheck
from aggregation.report import span_agreement_text, write_report
from aggregation.services import (
    batch_aggregate,
    span_batch_agreement,
    spotcheck_decide,
    spotcheck_draw,
    workers_below,
)
from annotation.models import SpanAnnotation, SpanAnswer
from core import copa, cues
from core.semeval import read_subtask1_rows, read_subtask2_gold
from core.stories import read_stories
from demo.crowd import (
    ChoiceWorker,
    Rater,
    SpanAnnotator,
    StoryWorker,
    Writer,
    choice_crowd,
    crowd,
    review_spans,
    run_choices,
    run_inhouse,
    run_mturk,
    run_prolific,
    run_raters,
    run_spans,
    run_story_workers,
    run_writers,
    take_test_inhouse,
    take_test_mturk,
    take_test_prolific,
)
from designs.compare import compare
from designs.export import batch_aggregate as design_aggregate
from designs.export import export_batch as export_design
from designs.model_runs import Endpoint, ModelError, model_run
from designs.semeval import labeling_batch_create, semeval_items, span_batch_create, subtask1_batch_create
from designs.stages import workflow_batches
from designs.task_type import design_of
from emulators.mturk import MTurkEmulator
from emulators.prolific import ProlificEmulator
from emulators.prolific.participant import EmulatedParticipant
from filtering.models import Candidate, Corpus, Document, Sentence
from filtering.patterns import DEFAULT_PROFILE, PROFILES
from filtering.services import corpus_ingest, filter_run_prepare, filter_run_report
from filtering.tasks import filter_run_queue
from hits.models import Assignment, Batch, Worker
from hits.providers import use_provider
from hits.providers.mturk import MTurkProvider
from hits.providers.prolific import ProlificProvider
from hits.reconcile import batch_reconcile
from hits.services import (
    assignment_approve,
    assignment_reject,
    batch_estimate_cost,
    batch_publish,
    batch_sync,
    cost_estimate,
    describe_batch,
    worker_bonus,
    worker_filters,
    worker_sanction,
)
from hits.services.adaptive import adaptive_savings
from projects.forms import JoinForm
from projects.models import Project, Sample
from projects.people import invite_accept, invites_create
from projects.services import project_create
from qualification import mturk as qualification_mturk
from qualification.models import Grant, QualificationTest
from qualification.prolific import screening_study_create
from qualification.services import current_test, qualification_test_create, reserved_sentence_ids
from releases import services as dataset_services
from releases.models import DatasetVersion
from releases.sampling import balanced_sample
from reproductions.copa import choice_batch_create, choice_report, copa_sample, report_table
from reproductions.facts import draw_items, export_pairs, fact_batch_create, tables_text
from reproductions.facts import tables as fact_tables
from reproductions.rte import read_rte
from reproductions.stories import export as export_stories
from reproductions.stories import statistics_text, workflow_start
from reproductions.story_evaluation import likert_batch_create, likert_report, pairwise_batch_create, pairwise_report
from reproductions.story_evaluation import report_text as evaluation_text

TEST_NAME = "counterfactual-screening"
DEMO_ORGANIZER = "organizer"
DEMO_ANNOTATOR = "annotator"
DEMO_PROJECT = "semeval-demo"
DESIGN_BATCH = "Balanced COPA from designs/bcopa.yaml"
SAMPLE_SIZE = 300
SPOT_CHECK_PASS = 0.7
SPAN_ANNOTATORS = 3  # the paper had one; three give span agreement and a majority to review from
COPA_BATCH = "B-COPA validation"
FACTS_BATCH = "Cheap Facts writing"
STORIES_WORKFLOW = "TimeTravel stories"


class _Indented:
    """Writes every line three spaces in, under the demo's numbered stages."""

    def __init__(self, out):
        self.out = out

    def write(self, text):
        self.out.write("   " + text)


class DemoError(Exception):
    """The demo cannot go on; the message says what to pass or fix."""


class Pipeline:
    """The demo's stages in order; `run()` runs them all and prints a summary."""

    def __init__(self, *, stdout, stderr, corpus_file, gold_file, spans_file, no_mturk=False, no_prolific=False,
                 auto_accept=False, out, copa_file=None):
        self.stdout, self.stderr = stdout, stderr
        self.copa_file = copa_file or settings.SHARED_DIR / "corpora" / "balanced-copa" / "balacopa-dev-all.xml"
        self.rte_file = settings.SHARED_DIR / "corpora" / "rte" / "rte1_dev.xml"
        self.stories_file = settings.BASE_DIR / "demo" / "data" / "stories.jsonl"
        self.corpus_file, self.gold_file, self.spans_file = corpus_file, gold_file, spans_file
        self.no_mturk, self.no_prolific, self.auto_accept, self.out = no_mturk, no_prolific, auto_accept, out
        self.summary = []

    def run(self):
        corpus = self.ingest(self.corpus_file)
        self.ingest_labeled(self.gold_file)
        filter_run = run = self.filter(corpus, self.gold_file)
        sample = self.sample(run)
        self.qualification(self.gold_file)
        self.crowd(run, sample, "inhouse", self.gold_file)
        if not self.no_mturk:
            self.crowd(run, sample, "mturk", self.gold_file)
        if not self.no_prolific:
            self.crowd(run, sample, "prolific", self.gold_file)
        run = self.aggregate(self.gold_file)
        self.adaptive(self.gold_file, run)
        released = {text: found for text, found in read_subtask2_gold(self.spans_file).values()}
        batch = self.spans(run, released)
        self.review(batch, released, self.auto_accept)
        self.export(run, self.out)
        self.baselines()
        self.project(filter_run, sample, run)
        self.balanced_copa(self.copa_file)
        self.cheap_facts(self.rte_file)
        self.counterfactual_stories(self.stories_file)
        self.design_file(self.copa_file)
        self.workspace()
        self.stdout.write("\nSummary")
        for stage, seconds, result in self.summary:
            self.stdout.write(f"  {stage:<28} {seconds:>6.1f}s  {result}")

    def stage(self, name, seconds, result):
        self.summary.append((name, seconds, result))

    def ingest(self, path):
        started = time.monotonic()
        try:
            report = corpus_ingest(path=path, corpus_name="news-sample")
        except FileNotFoundError as error:
            raise DemoError(f"{path}: {error.strerror}; pass --corpus-file") from None
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

    def ingest_labeled(self, path):
        """The released Subtask-1 sentences as a corpus of their own: the filter's recall is measured on them."""
        started = time.monotonic()
        report = corpus_ingest(path=path, corpus_name="semeval-train", domain="mixed", text_column="sentence",
                               id_column="sentenceID")
        total = Sentence.objects.filter(document__corpus__name="semeval-train").count()
        documents = Document.objects.filter(corpus__name="semeval-train").count()
        self.stdout.write(f"   ingest {path}: {documents} released sentences stored as {total} sentences "
                          f"({report.skipped_existing} already stored, {len(report.errors)} errors)")
        self.stage("ingest (SemEval)", time.monotonic() - started, f"{documents} released sentences")

    def filter(self, corpus_name, gold_file):
        started = time.monotonic()
        run = filter_run_prepare(profile=DEFAULT_PROFILE, corpus=Corpus.objects.get(name=corpus_name))
        filter_run_queue(run)
        report = filter_run_report(run=run)
        rate = report.candidates / report.sentences if report.sentences else 0
        self.stdout.write(f"2. filter ({run.profile} profile): {report.candidates} candidates of "
                          f"{report.sentences} sentences ({rate:.2%})")
        for domain, (sentences, candidates) in sorted(report.by_domain.items()):
            self.stdout.write(f"   {domain:<11} {candidates:>5} / {sentences:>6} = {candidates / sentences:.2%}")
        self.stdout.write("   per row: " + ", ".join(f"{row.id}:{report.rows[row.id]}"
                                               for row in PROFILES[run.profile].rows))
        recall = self._filter_recall(gold_file)
        self.stage("filter", time.monotonic() - started, f"{report.candidates} candidates ({rate:.2%}); keeps "
                                                         f"{recall:.1%} of the released positives")
        return run

    def _filter_recall(self, gold_file):
        """Share of the released counterfactual sentences the filter passes (one of their sentences, at least)."""
        corpus = Corpus.objects.get(name="semeval-train")
        run = filter_run_prepare(profile=DEFAULT_PROFILE, corpus=corpus)
        filter_run_queue(run)
        positives = {key for key, label, _ in read_subtask1_rows(gold_file) if label == 1}
        passed = set(Candidate.objects.filter(run=run, sentence__document__external_id__in=positives)
                     .values_list("sentence__document__external_id", flat=True))
        recall = len(passed) / len(positives)
        self.stdout.write(f"   on the released sentences: passes {len(passed)} of {len(positives)} "
                          f"counterfactuals ({recall:.1%})")
        return recall

    def sample(self, run):
        started = time.monotonic()
        pairs = Candidate.objects.filter(run=run).values_list("pk", "sentence__document__domain")
        chosen, report = balanced_sample(list(pairs), SAMPLE_SIZE, seed=7)
        self.stdout.write(f"   sample: {report['chosen']} of {sum(report['available'].values())} candidates, "
                          f"balanced across domains: {report['per_group']} (available {report['available']})")
        self.stage("sample", time.monotonic() - started, f"{report['chosen']} candidates {report['per_group']}")
        return chosen

    def qualification(self, gold_file):
        """The 40-item screening test: drawn once, taken by the in-house crowd over HTTP."""
        started = time.monotonic()
        test = current_test(TEST_NAME) or qualification_test_create(name=TEST_NAME, path=gold_file, seed=7)
        workers = crowd(size=14, spammers=1, seed=7)
        take_test_inhouse(test, workers, seed=7)
        self._pool(test, "inhouse")
        self.stage("qualification", time.monotonic() - started,
                   f"{Grant.objects.filter(test=test, worker__provider='inhouse').count()} of {len(workers)} "
                   f"in-house annotators passed")

    def _pool(self, test, provider):
        grants = {g.worker_id: g for g in Grant.objects.filter(test=test)}
        workers = Worker.objects.filter(provider=provider, qualification_attempts__test=test).distinct()
        rows = []
        for worker in workers.select_related("user"):
            best = worker.qualification_attempts.filter(test=test).order_by("-score").first()
            rows.append((str(worker), best.score if best else None, worker.pk in grants))
        rows.sort(key=lambda row: -(row[1] or 0))
        passed = sum(1 for row in rows if row[2])
        self.stdout.write(f"   qualification pool ({provider}): {passed} of {len(rows)} passed {test} "
                          f"(needs {test.pass_threshold}%): " + ", ".join(
                              f"{name.split(':', 1)[1]} {score}%{'' if ok else ' (refused)'}"
                              for name, score, ok in rows))

    def crowd(self, run, sample, provider, gold_file):
        """A Subtask-1 batch of the candidates, done by a simulated crowd through the provider's own paths."""
        started = time.monotonic()
        name = f"demo subtask-1 ({provider})"
        batch = Batch.objects.filter(name=name).first()
        step = {"inhouse": "3.", "mturk": "4.", "prolific": "4b."}[provider]
        if batch is None:
            test = current_test(TEST_NAME)
            options = {"run": run, "name": name, "provider": provider, "gold_path": gold_file, "gold_count": 60,
                       "gold_rate": 0.1, "seed": 7, "reward": Decimal("0.60"), "budget": Decimal("200"),
                       "candidate_ids": sample, "exclude_gold": reserved_sentence_ids()}
            if provider == "mturk":
                with MTurkEmulator(seed=7) as emulator:
                    mturk_provider = MTurkProvider(emulator.client())
                    previous = use_provider("mturk", mturk_provider)
                    try:
                        test.mturk_qualification_type_id = ""
                        type_id = qualification_mturk.qualification_type_create(test=test, provider=mturk_provider)
                        workers = crowd(size=14, spammers=1, seed=7)
                        workers[5].locale = "FR"  # outside the English-speaking countries: refused by MTurk
                        take_test_mturk(test, emulator.url, workers, seed=8)
                        qualification_mturk.qualification_sync(test=test, provider=mturk_provider)
                        self._pool(test, "mturk")
                        batch = subtask1_batch_create(**options, requirements={
                            "qualification_type_id": type_id, "min_score": test.pass_threshold})
                        batch_publish(batch=batch)
                        submitted, refused = run_mturk(batch, emulator.url, workers, seed=7)
                        self._settle(batch)
                    finally:
                        use_provider("mturk", previous)
                self.stdout.write(f"{step} MTurk emulator: {submitted} assignments submitted by simulated workers; "
                                  f"{refused} accept attempts refused for qualification (test score, locale)")
            elif provider == "prolific":
                batch = self._prolific(test, options)
            else:
                batch = subtask1_batch_create(**options, requirements={"qualification": TEST_NAME})
                batch_publish(batch=batch)
                submitted = run_inhouse(batch, crowd(size=14, spammers=1, seed=7), seed=7)
                self._settle(batch)
                self.stdout.write(f"{step} in-house: {submitted} assignments submitted over HTTP "
                                  f"by simulated annotators")
        else:
            self.stdout.write(f"{step} {name}: already done, reporting")
        batch.refresh_from_db()
        states = dict(Assignment.objects.filter(hit__batch=batch).values_list("state").annotate(n=Count("pk")))
        workers = Assignment.objects.filter(hit__batch=batch).values("worker").distinct().count()
        items = batch.items.count()
        self.stdout.write(f"   batch {batch.pk} {batch.state}: {batch.hits.count()} HITs of {batch.items_per_hit} "
                          f"({items} items, {batch.items.filter(is_gold=True).count()} gold), "
                          f"{sum(states.values())} assignments {states}, {workers} workers")
        self.stdout.write(f"   cost: estimate {batch_estimate_cost(batch=batch)}, spent {batch.spent()} "
                          f"(reward {batch.reward} x {batch.assignments_per_hit} a HIT, with {provider} fees), "
                          f"budget {batch.budget}")
        self.stage(f"crowd ({provider})", time.monotonic() - started,
                   f"{batch.hits.count()} HITs, {sum(states.values())} assignments, spent {batch.spent()}")

    def _prolific(self, test, options):
        """On the Prolific emulator: the screening study, one batch open to those who passed it (one place
        each, as Prolific allows), review, a bonus and a reconcile."""
        with ProlificEmulator(seed=7) as emulator:
            provider = ProlificProvider(emulator.api_url, emulator.token, external_url="http://demo.invalid",
                                        complete_url=f"{emulator.url}/submissions/complete", backoff=0.1)
            previous = use_provider("prolific", provider)
            try:
                test.provider_state = {}
                screening_study_create(test=test, provider=provider, places=20)
                workers = crowd(size=14, spammers=1, seed=9, prefix="prolific-")
                passed = take_test_prolific(test, emulator.url, workers, seed=9)
                self.stdout.write(f"   screening study: {sum(passed.values())} of {len(passed)} participants passed "
                                  f"and joined the participant group")
                # One HIT of five places: a participant takes one place of a study, and more passed the
                # screening than there are places (those who come late find the study full).
                options = {**options, "candidate_ids": options["candidate_ids"][:25], "gold_count": 0,
                           "gold_path": None, "gold_rate": 0.0, "items_per_hit": 25, "reward": Decimal("1.40")}
                batch = subtask1_batch_create(**options, requirements={"qualification": TEST_NAME})
                batch_publish(batch=batch)
                submitted, refused = run_prolific(batch, emulator.url, workers, seed=9)
                # One participant thinks better of it after submitting ("return and cancel reward" on Prolific):
                # the sync withdraws the work, and the place goes to the next participant who passed the screening.
                first = (Assignment.objects.filter(hit__batch=batch, state=Assignment.State.SUBMITTED)
                         .select_related("worker").order_by("pk").first())
                EmulatedParticipant(emulator.url, first.worker.external_id).give_back(batch.provider_state["study_id"])
                withdrawn = batch_sync(batch=batch).withdrawn
                late, _ = run_prolific(batch, emulator.url, workers, seed=10)
                self._settle(batch)
                approved = Assignment.objects.filter(hit__batch=batch, state=Assignment.State.APPROVED)
                first = approved.select_related("worker").first()
                if first is not None:
                    worker_bonus(worker=first.worker, assignment=first, amount="0.25", reason="demo: careful work")
                report = batch_reconcile(batch=batch)
                balance = provider.available_balance()
            finally:
                use_provider("prolific", previous)
        self.stdout.write(f"4b. Prolific emulator: {submitted} places submitted by simulated participants, {refused} "
                          f"refused by the study's filters (failed the screening, or no place left); {withdrawn} "
                          f"returned after submitting (withdrawn: its answers left out, nothing paid) and its place "
                          f"went to {late} more; one bonus; reconcile "
                          f"{'clean' if report.clean else report.differences} ({len(report.notes)} withdrawn noted); "
                          f"workspace balance now {balance} {provider.currency}")
        return batch

    def aggregate(self, gold_file):
        """Simulated annotators label released training sentences; the votes are aggregated and
        measured against the known labels, and spot checks weed out the spammers."""
        started = time.monotonic()
        name = "demo subtask-1 (released training sentences)"
        batch = Batch.objects.filter(name=name).first()
        if batch is None:
            batch = labeling_batch_create(name=name, items=semeval_items(path=gold_file, count=500, seed=11,
                                                                          exclude=reserved_sentence_ids()),
                                          seed=11, reward=Decimal("0.60"))
            batch_publish(batch=batch)
            run_inhouse(batch, crowd(size=12, spammers=2, seed=11, prefix="agg-"), seed=11)
            batch_sync(batch=batch)
            run = batch_aggregate(batch=batch, seed=11)
            for check in spotcheck_draw(batch=batch, rate=0.2, seed=11):
                # The simulated organizer accepts a HIT whose answers mostly agree with gold and consensus.
                accept = (check.accuracy or 0) >= SPOT_CHECK_PASS
                spotcheck_decide(spot_check=check, accept=accept, user=None,
                                 feedback="" if accept else "Most answers were wrong on sentences we know.")
            for worker, _ in workers_below(batch=batch, threshold=SPOT_CHECK_PASS):
                worker_sanction(worker=worker, reason=f"spot-checked accuracy below {SPOT_CHECK_PASS:.0%}")
            for assignment in Assignment.objects.filter(hit__batch=batch, state=Assignment.State.SUBMITTED):
                assignment_approve(assignment=assignment)
            first = run
            # The rejected HITs made the first run stale: the version is built from a run that saw every review.
            run = batch_aggregate(batch=batch, seed=11)
            self.stdout.write("5. aggregate: 500 released training sentences, 12 simulated annotators (2 spammers)")
            self.stdout.write(f"   aggregated again after the spot checks: {first.votes} votes before, {run.votes} "
                              f"after the rejected HITs left")
        else:
            run = batch.aggregations.order_by("-created").first()
            self.stdout.write(f"5. {name}: already done, reporting")
        write_report(_Indented(self.stdout), run)
        checks = SpotCheck.objects.filter(assignment__hit__batch=batch)
        blocked = sorted(str(w.user.username if w.user else w) for w in
                         {c.assignment.worker for c in checks.select_related("assignment__worker__user")} if w.blocked)
        self.stdout.write(f"   spot checks: {checks.count()} HITs drawn, {checks.filter(decision='accepted').count()} "
                          f"accepted, {checks.filter(decision='rejected').count()} rejected (sent to the provider); "
                          f"blocked below {SPOT_CHECK_PASS:.0%}: {', '.join(blocked) or 'nobody'}")
        gold = run.summary["gold"]
        self.stage("aggregate", time.monotonic() - started,
                   f"alpha {run.alpha:.3f} [{run.alpha_low:.3f}, {run.alpha_high:.3f}], labels {gold['accuracy']:.1%} "
                   f"right, {len(blocked)} blocked")
        return run

    def adaptive(self, gold_file, fixed):
        """The same 500 released sentences again in an adaptive batch that needs only its positives (as a span
        batch does): votes after a sentence can no longer be positive are not bought, and the open sentences
        are re-packed into new HITs. (Under the paper's full outcomes little is saved: see the README.)"""
        started = time.monotonic()
        name = "demo subtask-1, adaptive (released training sentences)"
        batch = Batch.objects.filter(name=name).first()
        if batch is None:
            batch = batch_publish(batch=labeling_batch_create(
                name=name, items=semeval_items(path=gold_file, count=500, seed=11, exclude=reserved_sentence_ids()),
                seed=11, reward=Decimal("0.60"), adaptive="positives"))
            run_inhouse(batch, crowd(size=20, spammers=0, seed=12, prefix="ada-"), seed=12)
            self.stdout.write("5b. adaptive redundancy: the same 500 sentences, 20 simulated annotators, votes "
                              "bought only while the sentence can still be positive")
        else:
            self.stdout.write(f"5b. {name}: already done, reporting")
        batch.refresh_from_db()
        run = batch.aggregations.order_by("-created").first() or batch_aggregate(batch=batch, seed=11)
        saved = adaptive_savings(batch)
        self.stdout.write(f"   {saved['saved_votes']} of {saved['fixed_votes']} votes not bought ({saved['settled']} "
                          f"sentences settled early: one no and a sentence can no longer be positive); "
                          f"{saved['retired']} HITs retired, {saved['repacked']} re-packed; {saved['saved_places']} "
                          f"places and {saved['saved_money']} saved against five votes a sentence")
        outcomes = run.summary["outcomes"]
        released = batch.items.filter(is_gold=False, gold_answer=1).count()
        found = run.outcomes.filter(outcome="positive")
        self.stdout.write(f"   outcomes: {', '.join(f'{k} {v}' for k, v in outcomes.items())}; "
                          f"{found.filter(item__gold_answer=1).count()} of the {found.count()} positives are released "
                          f"positives ({released} among the 500); stage 5, every vote bought: "
                          f"{fixed.outcomes.filter(outcome='positive').count()} positives")
        self.stage("adaptive", time.monotonic() - started,
                   f"{saved['saved_votes']} of {saved['fixed_votes']} votes and {saved['saved_money']} saved")

    def spans(self, run, released):
        """The aggregation's positives go to three qualified annotators each for spans (Subtask 2; the paper had
        one): their agreement is measured and the review starts from their majority."""
        started = time.monotonic()
        name = "demo subtask-2 (spans)"
        batch = Batch.objects.filter(name=name).first()
        if batch is None:
            batch = batch_publish(batch=span_batch_create(
                run=run, name=name, items_per_hit=10, annotators=SPAN_ANNOTATORS, seed=11, reward=Decimal("0.80"),
                requirements={"qualification": TEST_NAME}))
            # The in-house crowd of the qualification stage; those who failed the test are refused.
            annotators = [SpanAnnotator(worker.name, worker.accuracy) for worker in crowd(size=14, spammers=1, seed=7)]
            submitted = run_spans(batch, annotators, released, seed=11)
            self._settle(batch)
            self.stdout.write(f"6. spans: {submitted} HITs submitted over HTTP by simulated span annotators")
        else:
            self.stdout.write(f"6. {name}: already done, reporting")
        annotations = SpanAnnotation.objects.filter(item__batch=batch)
        flagged = annotations.filter(flagged=True).count()
        annotators = SpanAnswer.objects.filter(item__batch=batch).values("worker").distinct().count()
        self.stdout.write(f"   {annotations.count()} sentences, each marked by {batch.assignments_per_hit} annotators "
                          f"({annotators} in all); {flagged} flagged (one or more say not counterfactual, or no "
                          f"majority antecedent). The majority's spans, which the review starts from, for a few:")
        for annotation in annotations.filter(flagged=False).order_by("pk")[:4]:
            self.stdout.write(f"   - {self._bracketed(annotation)}")
        agreement = span_batch_agreement(batch=batch)
        self.stdout.write(f"   span agreement: {span_agreement_text(agreement)} "
                          f"(`manage.py span_agreement {batch.pk}`; per domain there and on the dashboard)")
        self.stage("spans", time.monotonic() - started,
                   f"{annotations.count()} sentences by {annotators} annotators, {flagged} flagged, token F1 "
                   f"{agreement['f1']['all']:.2f}")
        return batch

    @staticmethod
    def _bracketed(annotation):
        """The sentence with [antecedent] and {consequent} marked."""
        marks = {annotation.antecedent_start: "[", annotation.antecedent_end + 1: "]"}
        if annotation.consequent_start >= 0:
            marks.update({annotation.consequent_start: "{", annotation.consequent_end + 1: "}"})
        text = annotation.text
        return "".join(marks.get(i, "") + char for i, char in enumerate(text)) + marks.get(len(text), "")

    def review(self, batch, released, auto_accept):
        started = time.monotonic()
        annotations = SpanAnnotation.objects.filter(item__batch=batch)
        if annotations.filter(state="unreviewed").exists():
            review_spans(batch, released, auto_accept=auto_accept)
            how = "accepted as submitted (--auto-accept)" if auto_accept else "reviewed by the simulated organizer"
            self.stdout.write(f"7. review: {how}, over HTTP")
        else:
            self.stdout.write("7. review: already done, reporting")
        states = dict(annotations.values_list("state").annotate(n=Count("pk")))
        adjusted = annotations.filter(changes__action="adjusted").distinct().count()
        self.stdout.write(f"   {states.get('accepted', 0)} accepted ({adjusted} with spans moved), "
                          f"{states.get('removed', 0)} removed as not counterfactual (also from the Subtask-1 "
                          f"positives); every change is in the review history at /review/spans/?show=all")
        self.stage("review", time.monotonic() - started, f"{states.get('accepted', 0)} accepted, {adjusted} adjusted, "
                                                         f"{states.get('removed', 0)} removed")

    def export(self, run, out):
        started = time.monotonic()
        version = DatasetVersion.objects.filter(name="demo-crowd").first() or \
            dataset_services.dataset_from_aggregation(run=run, name="demo-crowd", seed=11)
        written = dataset_services.dataset_export(version=version, folder=out)
        self.stdout.write(f"8. export: dataset version {version.name}, {version.sentences.count()} sentences "
                          f"({version.split_report['train']} train / {version.split_report['test']} test) -> {out}")
        self.stdout.write("   " + ", ".join(written))
        tables = (("Table 1", dataset_services.table1(version)), ("Table 2", dataset_services.table2(version)))
        for title, table in tables:
            self.stdout.write("   " + dataset_services.format_table(title, table).replace("\n", "\n   "))
        self.stage("export", time.monotonic() - started, f"{version.sentences.count()} sentences, "
                                                          f"{version.spans.count()} with spans, {len(written)} files")

    def baselines(self):
        """The paper's baselines on a 65/35 split of the released training files, scored with our scorer."""
        started = time.monotonic()
        version = DatasetVersion.objects.filter(name="semeval-released").first()
        if version is None:
            version = dataset_services.dataset_import_released(
                name="semeval-released", subtask1_path=settings.SHARED_DIR / "semeval2020t5" / "subtask1_train.csv",
                subtask2_path=settings.SHARED_DIR / "semeval2020t5" / "subtask2_train.csv")
        self.stdout.write("9. baselines on a 65/35 split of the released training files:")
        if "baselines" not in version.results:
            dataset_services.dataset_baselines(version=version)
        else:
            self.stdout.write("   (computed before; `manage.py dataset baselines semeval-released` recomputes)")
        results = version.results["baselines"]
        svm, crf = results["subtask1_svm"], results["subtask2_crf"]
        self.stdout.write(f"   Subtask 1 SVM F1 {svm['f1']:.1%} (P {svm['precision']:.1%}, R {svm['recall']:.1%}); "
                          f"Subtask 2 CRF F1 {crf['f1']:.1%}, EM {crf['exact_match']:.1%}")
        self.stage("baselines", time.monotonic() - started,
                   f"SVM F1 {svm['f1']:.1%}, CRF F1 {crf['f1']:.1%} EM {crf['exact_match']:.1%}")

    def _settle(self, batch):
        batch_sync(batch=batch)
        for assignment in Assignment.objects.filter(hit__batch=batch, state=Assignment.State.SUBMITTED):
            assignment_approve(assignment=assignment)

    def project(self, filter_run, sample, run):
        """Everything the demo made, as a project of the workspace, so its steps show there."""
        project = Project.objects.filter(slug=DEMO_PROJECT).first()
        if project is None:
            project = project_create(name="SemEval demo", slug=DEMO_PROJECT, description=(
                "What `make demo` made: the news sample, its candidates, the screening test, the labeling batches "
                "(in-house, MTurk emulator, and the released sentences the aggregation used), spans and versions."))
            _, report = balanced_sample(list(Candidate.objects.filter(run=filter_run).values_list(
                "pk", "sentence__document__domain")), SAMPLE_SIZE, seed=7)
            Sample.objects.create(project=project, run=filter_run, size=SAMPLE_SIZE, seed=7, candidate_ids=sample,
                                  report=report)
        project.corpora.add(filter_run.corpus)
        project.filter_runs.add(filter_run)
        project.tests.add(*QualificationTest.objects.filter(name=TEST_NAME))
        project.batches.add(*Batch.objects.filter(name__startswith="demo ").order_by("pk"))
        project.aggregations.add(run)
        project.versions.add(*DatasetVersion.objects.filter(name="demo-crowd"))
        self.stdout.write(f"10. project: the workspace shows these steps at /projects/{DEMO_PROJECT}/")

    def balanced_copa(self, path):
        """Balanced COPA's design: 100 original and 100 mirrored items validated by 3 workers each (one of
        them careless), the paper's accuracy and Fleiss' kappa by subset, the cue report and the export."""
        started = time.monotonic()
        items = copa.read_copa(path)
        self.stdout.write(f"11. Balanced COPA: {len(items)} items in {len(copa.pairs(items))} pairs from {path}")
        batch = Batch.objects.filter(name=COPA_BATCH).first()
        if batch is None:
            batch = batch_publish(batch=choice_batch_create(
                items=copa_sample(items, per_subset=100, seed=3), name=COPA_BATCH, provider="inhouse", seed=3))
            run_choices(batch, choice_crowd(seed=4), seed=5)
        mturk = cost_estimate(provider="mturk", hits=batch.hits.count(), assignments_per_hit=3,
                              reward=batch.reward, masters=True)
        self.stdout.write("   " + describe_batch(batch).replace("\n", "\n   "))
        self.stdout.write(f"   on MTurk the same batch would cost {mturk.total} ({mturk.fees} in fees with Masters); "
                          "who may work there: " + "; ".join(worker_filters(provider="mturk",
                                                                             requirements=batch.requirements)))
        found = choice_report(batch, samples=1000)
        self.stdout.write("   validation (paper: accuracy 100% original, 97% mirrored; Fleiss' kappa 0.973, 0.798):")
        self.stdout.write("   " + report_table(found).replace("\n", "\n   "))
        # The organizer's review: the careless worker's HITs rejected with the reason, the rest approved.
        careless = set(found["trusted"]["left_out"])
        reviewed = Counter()
        for assignment in Assignment.objects.filter(hit__batch=batch, state=Assignment.State.SUBMITTED).select_related(
                "worker__user"):
            name = assignment.worker.user.username if assignment.worker.user else assignment.worker.external_id
            if name in careless:
                assignment_reject(assignment=assignment, feedback="Most of your answers disagree with the intended "
                                                                  "ones; they look like random clicks.")
                reviewed["rejected"] += 1
            else:
                assignment_approve(assignment=assignment)
                reviewed["approved"] += 1
        if reviewed:
            self.stdout.write(f"   review: {reviewed['approved']} HITs approved, {reviewed['rejected']} rejected "
                              f"({', '.join(sorted(careless)) or 'nobody'} under 80% against the intended answers)")
        original = cues.choice_cues(copa.right_and_wrong([item for item in items if not item.mirrored]))
        balanced = cues.choice_cues(copa.right_and_wrong(items))
        token = original.find("a")
        self.stdout.write(f"   superficial cues: original half imbalance {original.imbalance:.3f}, balanced file "
                          f"{balanced.imbalance:.3f}; 'a' applies to {token.coverage:.1%} of the originals with "
                          f"productivity {token.productivity:.1%} (paper: 21.2%, 57.5%)" if token else "")
        self.stdout.write("   " + original.table(5).replace("\n", "\n   "))
        out = Path(self.out).parent / "balanced-copa"
        sides = copa.split_pairs(items, dev_share=0.1, seed=0)
        copa.write_sides(sides, out)
        self.stdout.write(f"   export: {len(sides['train'])} train / {len(sides['dev'])} dev items, every pair on one "
                          f"side -> {out}")
        self._design_project("balanced-copa", "Balanced COPA demo", batch, 11)
        self.stage("balanced COPA", time.monotonic() - started,
                   f"accuracy {found['original']['accuracy']:.0%} original / {found['mirrored']['accuracy']:.0%} "
                   f"mirrored, kappa {found['all']['fleiss']['value']:.3f}")

    def cheap_facts(self, path):
        """The Cheap Facts design: 10 RTE paragraphs for facts and 10 for counter-facts, an entity each shared by
        text and hypothesis, 5 paragraphs a HIT, 3 writers a paragraph (one careless, one who pastes the text);
        the server refuses what breaks the rules, and the paper's Tables 1 and 2 are computed on the rest."""
        started = time.monotonic()
        batch = Batch.objects.filter(name=FACTS_BATCH).first()
        refusals = None
        if batch is None:
            items = draw_items(read_rte(path), texts=20, instruction="both", seed=2)
            batch = batch_publish(batch=fact_batch_create(items=items, name=FACTS_BATCH, items_per_hit=5,
                                                          assignments_per_hit=3, reward=Decimal("0.05"), seed=2))
            writers = [Writer(f"facts-writer{n + 1}") for n in range(3)]
            writers += [Writer("facts-careless1", "careless"), Writer("facts-copier1", "copier")]
            _, refusals = run_writers(batch, writers, seed=6)
        self.stdout.write(f"12. Cheap Facts: {batch.items.count()} RTE paragraphs from {path}, each with an entity its "
                          f"text and hypothesis share, {batch.hits.count()} HITs of 5, 3 writers a paragraph")
        if refusals is not None:
            self.stdout.write("   refused on the server, then written again: " + (", ".join(
                f"{count} for {rule}" for rule, count in sorted(refusals.items())) or "none"))
        found = fact_tables(batch)
        self.stdout.write("   (paper, Table 2: facts 9.8 words, BoW 0.68, head 68%; counter-facts 12.3, 0.75, 59%)")
        self.stdout.write("   " + tables_text(found).replace("\n", "\n   "))
        for assignment in Assignment.objects.filter(hit__batch=batch, state=Assignment.State.SUBMITTED):
            assignment_approve(assignment=assignment)  # what broke a rule never got in: the rest is paid
        out = Path(self.out).parent / "cheap-facts"
        export_pairs(batch, out)
        facts = found["table1"].get("facts", {}).get("statements", 0)
        counter = found["table1"].get("counterfacts", {}).get("statements", 0)
        self.stdout.write(f"   export: {facts + counter} T-H pairs (entailment and contradiction) -> {out}")
        self._design_project("cheap-facts", "Cheap Facts demo", batch, 12)
        self.stage("cheap facts", time.monotonic() - started, f"{facts} facts, {counter} counter-facts")

    def counterfactual_stories(self, path):
        """designs/timetravel.yaml on our own 34 five-sentence stories: one worker writes a counterfactual second
        sentence; two others each check it (sending it back, rewritten, to yet another worker when it fails)
        and edit the ending within the edit bound; two raters judge the endings on a 3-point scale and three
        compare them with the unchanged original. Two simulated workers break the conditions, one rewrites
        whole endings (refused on the server)."""
        started = time.monotonic()
        first = Batch.objects.filter(name=STORIES_WORKFLOW, task_type="design").first()
        run = None
        if first is None:
            first = workflow_start(read_stories(path), name=STORIES_WORKFLOW)
            workers = [StoryWorker(f"story-careful{n}") for n in range(1, 5)]
            workers += [StoryWorker("story-breaker1", "breaker"), StoryWorker("story-breaker2", "breaker"),
                        StoryWorker("story-rewriter1", "rewriter")]
            known = {row["story_id"]: row for row in map(json.loads, Path(path).read_text("utf-8").splitlines())}
            run = run_story_workers(workflow_batches(first), workers, known, seed=4)
        stages = workflow_batches(first)
        check = next(stage for stage in design_of(first).stages if stage.gate is not None)
        self.stdout.write(f"13. Counterfactual story rewriting (TimeTravel, designs/timetravel.yaml): "
                          f"{first.items.count()} stories of our own from {path}; write -> check (send back, rewrite) "
                          f"-> edit, {stages[check.name].assignments_per_hit} editors a counterfactual, a chain waits "
                          f"for the organizer after {check.max_rounds + 1} failed checks")
        if run is not None:
            submitted, refusals = run
            self.stdout.write(f"   HITs submitted: {submitted.get('write', 0)} write, {submitted.get('check', 0)} "
                              f"check-and-edit; refused on the server, then edited again: "
                              + (", ".join(f"{count} {reason}" for reason, count in sorted(refusals.items()))
                                 or "none"))
        for batch in stages.values():
            for assignment in Assignment.objects.filter(hit__batch=batch, state=Assignment.State.SUBMITTED):
                assignment_approve(assignment=assignment)
        out = Path(self.out).parent / "timetravel"
        found = export_stories(first, out, seed=1)
        self.stdout.write("   " + statistics_text(found).replace("\n", "\n   "))
        self.stdout.write(f"   export: train/dev/test JSONL in the released format -> {out}; "
                          f"{found['chains'].get('review', 0)} chain(s) wait for the organizer at "
                          f"/review/chains/{first.pk}/")
        likert = Batch.objects.filter(name=f"{STORIES_WORKFLOW}: ratings").first()
        pairs = Batch.objects.filter(name=f"{STORIES_WORKFLOW}: comparisons").first()
        if likert is None:
            likert = batch_publish(batch=likert_batch_create(first, name=f"{STORIES_WORKFLOW}: ratings"))
            pairs = batch_publish(batch=pairwise_batch_create(first, name=f"{STORIES_WORKFLOW}: comparisons", seed=1))
            run_raters(likert, [Rater(f"story-rater{n}") for n in range(1, 3)], seed=5)
            run_raters(pairs, [Rater(f"story-rater{n}") for n in range(1, 4)], seed=6)
        self.stdout.write("   human evaluation (paper: 2 raters, 3-point scale, alpha 0.42):")
        self.stdout.write("   " + evaluation_text(likert_report(likert), pairwise_report(pairs)).replace("\n", "\n   "))
        for batch in (*stages.values(), likert, pairs):
            self._design_project("timetravel", "TimeTravel demo", batch, 13, say=batch is pairs)
        self.stage("story rewriting", time.monotonic() - started,
                   f"{sum(row['edited_endings'] for row in found['splits'].values())} edited endings")

    def design_file(self, path):
        """A seed design as a design file: designs/bcopa.yaml on 40 of the COPA items, run through the generic
        task page's reader by three simulated annotators (one careless), then the per-scheme report and the
        export, as `manage.py design new|report|export` would."""
        started = time.monotonic()
        source = settings.BASE_DIR / "designs" / "bcopa.yaml"
        batch = Batch.objects.filter(name=DESIGN_BATCH).first()
        if batch is None:
            batch = batch_publish(batch=choice_batch_create(
                items=copa_sample(copa.read_copa(path), per_subset=20, seed=7), name=DESIGN_BATCH,
                provider="inhouse", seed=7))
            run_choices(batch, [ChoiceWorker(name, accuracy, mirrored_penalty=0) for name, accuracy in
                                (("design-careful1", 0.97), ("design-careful2", 0.93), ("design-careless1", 0.5))],
                        seed=8, draw_per_button=False)
        results, rows = design_aggregate(batch, outside=False)  # the people's: a model may answer it next (stage 15)
        choice = results["choice"]
        known = {item.content.record_id: item.gold_answer for item in batch.items.all()}
        right = sum(choice.items.get(record) == answer for record, answer in known.items())
        self.stdout.write(f"14. A design file: {source.name} ({len(known)} COPA items, 3 annotators, the generic "
                          f"task page's reader)")
        self.stdout.write(f"   {len(rows)} answers; choice: Krippendorff's alpha ({choice.level}) {choice.alpha:.3f}, "
                          f"majority right on {right} of {len(known)} items against the intended answers")
        out = Path(self.out).parent / "design-bcopa"
        written = export_design(batch=batch, out=out)
        self.stdout.write(f"   export: {len(written)} files (answers long form, labels, agreement; CSV, JSON Lines, "
                          f"Parquet, a Hugging Face folder) -> {out}")
        self._design_project("design-file", "Balanced COPA as a design file", batch, 14)
        self.stage("design file", time.monotonic() - started, f"alpha {choice.alpha:.3f}, {right}/{len(known)} right")
        self.model(batch)

    def model(self, batch):
        """A language model as one more annotator of stage 14's batch, when an endpoint is set (CROWDSET_LLM_URL,
        CROWDSET_LLM_MODEL, and CROWDSET_LLM_KEY if it needs one): asked each item, then compared with the people.
        Without one the stage says how to run it: nothing here downloads a model."""
        url, model = os.environ.get("CROWDSET_LLM_URL", ""), os.environ.get("CROWDSET_LLM_MODEL", "")
        if not url or not model:
            self.stdout.write("15. A language model as an annotator: not run (no endpoint set). Set CROWDSET_LLM_URL "
                              "to an OpenAI-compatible API root (vLLM, Ollama, llama.cpp's server, a hosted API) and "
                              "CROWDSET_LLM_MODEL to its model (CROWDSET_LLM_KEY if it needs a key), then run "
                              "`make demo` again; see docs/models.md")
            self.stage("model", 0.0, "not run: no endpoint set")
            return
        started = time.monotonic()
        try:
            run = model_run(batch=batch, endpoint=Endpoint(url=url, model=model,
                                                           key=os.environ.get("CROWDSET_LLM_KEY", "")),
                            concurrency=4)
        except ModelError as error:
            self.stdout.write(f"15. A language model as an annotator: {error}")
            self.stage("model", time.monotonic() - started, "failed: see above")
            return
        found = compare(batch, run.annotator)
        choice = next(entry for entry in found["schemes"] if entry["scheme"] == "choice")
        accuracy = choice["accuracy"]
        self.stdout.write(f"15. A language model as an annotator: {run.annotator}, {run.answered} items answered now "
                          f"({found['items_answered']} in all), {len(run.refused)} refused")
        if accuracy["value"] is not None:
            self.stdout.write(f"   agrees with the people's labels on {accuracy['value']:.0%} of {choice['compared']} "
                              f"items [{accuracy['low']:.0%}, {accuracy['high']:.0%}]; right on "
                              f"{choice['gold']['accuracy'] or 0:.0%} of {choice['gold']['items']} intended answers; "
                              f"people's alpha {choice['alpha_crowd']:.3f}, with the model "
                              f"{choice['alpha_with_model']:.3f} (`manage.py design compare {batch.pk}`)")
        shown = "-" if accuracy["value"] is None else f"{accuracy['value']:.2f}"
        self.stage("model", time.monotonic() - started, f"{found['items_answered']} answered, accuracy {shown}")

    def _design_project(self, design, name, batch, number, say=True):
        """The design's batch as a project of the workspace, whose steps follow it."""
        slug = f"{design}-demo"
        project = Project.objects.filter(slug=slug).first() or project_create(
            name=name, design=design, slug=slug, description=f"What stage {number} of `make demo` made.")
        project.batches.add(batch)
        if say:
            self.stdout.write(f"   project: its steps, the batch's filters and cost are at /projects/{slug}/")

    def workspace(self):
        """An organizer account to look at the result with, made once, on a laptop only: on the embedded
        default with DEBUG on. Its password is printed this once."""
        if not settings.DEBUG or connection.vendor != "sqlite":
            self.workspace_note = ("create an organizer with `.venv/bin/python manage.py createsuperuser` (the demo "
                                   "makes no account outside the embedded default)")
            return
        user = User.objects.filter(username=DEMO_ORGANIZER).first()
        if user is None:
            password = secrets.token_urlsafe(12)
            user = User.objects.create_user(DEMO_ORGANIZER, password=password, is_staff=True)
            user.groups.add(roles.group(roles.ORGANIZER))
            self.workspace_note = f"log in as `{DEMO_ORGANIZER}` with the password `{password}` (shown only this once)"
        else:
            self.workspace_note = (f"log in as `{DEMO_ORGANIZER}` (its password was printed by the first run; "
                                   f"`.venv/bin/python manage.py changepassword {DEMO_ORGANIZER}` sets a new one)")
        self.workspace_note += self._annotator()

    def _annotator(self) -> str:
        """An annotator of the SemEval demo project, joined through an invite link as a person would."""
        if User.objects.filter(username=DEMO_ANNOTATOR).exists():
            return (f"; the annotator `{DEMO_ANNOTATOR}` sees the work list at /work/ (password from the first run, "
                    f"or `changepassword {DEMO_ANNOTATOR}`)")
        project = Project.objects.get(slug=DEMO_PROJECT)
        invite = invites_create(project=project, people=[("Demo annotator", "")])[0]
        password = secrets.token_urlsafe(12)
        account = JoinForm({"username": DEMO_ANNOTATOR, "password1": password, "password2": password})
        if not account.is_valid():
            raise DemoError(f"the demo annotator's account: {account.errors.as_text()}")
        invite_accept(token=invite.token, account=account)
        return (f"; an annotator: `{DEMO_ANNOTATOR}` with the password `{password}` (shown only this once; joined "
                f"through an invite, listed at /projects/{DEMO_PROJECT}/people/)")
