"""The write -> check -> edit workflow: stories in, the stages' task types, the engine (send-back, loop limit,
author exclusion, lineage), the server's edit bound, the export read back, and the organizer's pages."""

import json
import tempfile
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from chains.models import Chain, Step, Workflow
from chains.report import export, statistics
from chains.services import chain_decide, workflow_create, workflow_publish
from core.stories import EditBound, StoryFileError, edit_size, read_records, read_stories, word_diff
from demo.crowd import StoryWorker, run_story_workers
from hits.models import Assignment, Batch, Item, Worker
from hits.services import CrowdError, assignment_claim, assignment_submit
from tests.base import BaseTestCase

STORIES = settings.BASE_DIR / "demo" / "data" / "stories.jsonl"


def known_stories():
    return {row["story_id"]: row for row in map(json.loads, STORIES.read_text(encoding="utf-8").splitlines())}


def fresh(stage):
    """The stage's batch as it is now (a later stage opens when its first items arrive)."""
    return Batch.objects.get(pk=stage.batch_id)


def write(tmp, name, content):
    path = Path(tmp) / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


# --- stories in ---------------------------------------------------------------------

def test_the_fixture_has_thirty_or_more_five_sentence_stories():
    stories = read_stories(STORIES)
    assert len(stories) >= 30
    assert all(len(story.ending) == 3 for story in stories)


def test_jsonl_and_csv_give_the_same_story():
    with tempfile.TemporaryDirectory() as tmp:
        from_json = read_stories(write(tmp, "s.jsonl", json.dumps({
            "story_id": "a", "premise": "P.", "initial": "I.", "original_ending": "One! Two? Three."}) + "\n"))
        from_csv = read_stories(write(tmp, "s.csv", "storyid,storytitle,sentence1,sentence2,sentence3,sentence4,"
                                                     "sentence5\na,T,P.,I.,One!,Two?,Three.\n"))
    assert from_json == from_csv
    assert from_json[0].ending == ("One!", "Two?", "Three.")


@pytest.mark.parametrize("name, content, expected", [
    ("s.jsonl", b'{"story_id": "a", "premise": "P", "initial": "\xff"}\n', "s.jsonl:1: invalid UTF-8 at byte"),
    ("s.jsonl", '{"story_id": "a", "premise": "P", "initial": "I"}\n', "s.jsonl:1: missing field(s) original_ending"),
    ("s.jsonl", '{"story_id": "a", "premise": "P", "initial": "I", "original_ending": "Only one."}\n',
     "s.jsonl:1: original_ending: needs three sentences (s3-s5), found 1"),
    ("s.jsonl", '{"story_id": "a", "premise": "", "initial": "I", "original_ending": ["x", "y", "z"]}\n',
     "s.jsonl:1: premise: is empty or not text"),
    ("s.jsonl", '\n'.join(['{"story_id": "a", "premise": "P", "initial": "I", "original_ending": ["x", "y", "z"]}']
                          * 2), "s.jsonl:2: story_id: story a is also at line 1"),
    ("s.jsonl", "", "s.jsonl: no stories"),
    ("s.jsonl", "[1, 2]\n", "s.jsonl:1: expected a JSON object, got list"),
    ("s.jsonl", "x" * 20_001, "s.jsonl:1: is 20,001 characters long"),
    ("s.csv", "story_id,sentence1,sentence2\n", "s.csv:1: missing column(s) sentence3, sentence4, sentence5"),
    ("s.csv", "story_id,sentence1,sentence2,sentence3,sentence4,sentence5\na,P,I,x,y\n", "s.csv:2: has 5 fields"),
])
def test_bad_story_files_are_refused_by_line(name, content, expected):
    with tempfile.TemporaryDirectory() as tmp, pytest.raises(StoryFileError) as error:
        read_stories(write(tmp, name, content))
    assert str(error.value).startswith(str(Path(tmp) / name)) and expected in str(error.value)


# --- the edit measures --------------------------------------------------------------------

def test_edit_size_by_hand():
    # "the cat sat down" -> "the dog sat down quietly": one substitution, one insertion; 3 of 4 kept.
    size = edit_size(["The cat sat down."], ["The dog sat down quietly."])
    assert (size.distance, size.original_words, size.kept) == (2, 4, 3)
    assert size.changed_share == 0.5 and size.kept_share == 0.75
    assert edit_size(["a b c"], ["a b c"]).distance == 0
    assert edit_size(["a b c"], ["x y"]).distance == 3  # two substitutions and a deletion
    assert word_diff(["The cat sat."], ["The dog sat."]) == [("same", "The"), ("removed", "cat"), ("added", "dog"),
                                                           ("same", "sat.")]


def test_the_bound_names_the_measured_size():
    bound = EditBound(max_changed=0.5, min_kept=None)
    assert bound.refusal(edit_size(["a b c d"], ["a b x d"])) is None
    refusal = bound.refusal(edit_size(["a b c d"], ["w x y z"]))
    assert refusal.startswith("this ending is rewritten, not edited: 4 word edits for 4 words (100% changed, 0% kept)")
    with pytest.raises(ValueError, match="max_changed is 2"):
        EditBound.from_json({"max_changed": 2})


# --- the engine -----------------------------------------------------------------------------

class ChainTests(BaseTestCase):
    def setUp(self):
        self.stories = read_stories(STORIES)[:3]
        self.known = known_stories()
        self.people = [Worker.objects.create(provider="inhouse", external_id=f"w{n}") for n in range(1, 6)]

    def workflow(self, **options):
        workflow = workflow_create(name="tt", stories=self.stories, **options)
        workflow_publish(workflow)
        return workflow

    def submit(self, worker, stage, fields_for):
        with self.captureOnCommitCallbacks(execute=True):
            assignment = assignment_claim(batch=fresh(stage), worker=worker)
            assert assignment is not None, f"{worker.external_id} got nothing in {stage.key}"
            fields = {}
            for item in assignment.hit.ordered_items():
                fields |= fields_for(item)
            assignment_submit(assignment=assignment, worker=worker, raw_answers=fields)
        return item

    def written(self, text):
        return lambda item: {f"cf-{item.pk}": text, **{f"cond-{item.pk}-{key}": "on"
                                                        for key in ("related", "premise", "ending")}}

    def assertNothingFor(self, worker, stage):
        batch = fresh(stage)
        if batch.state == "published":
            self.assertIsNone(assignment_claim(batch=batch, worker=worker))
        else:
            self.assertEqual(batch.state, "completed")

    def judged(self, item):
        """An honest checker: the reference counterfactual passes, anything else fails and is rewritten."""
        reference = self.known[item.content.story_id]
        fine = item.content.counterfactual == reference["counterfactual"]
        return self.checked(fine, rewrite=reference["counterfactual"])(item)

    def checked(self, fine, rewrite="", ending=None):
        def fields(item):
            found = {f"check-{item.pk}-related": "yes" if fine else "no", f"check-{item.pk}-premise": "yes",
                     f"check-{item.pk}-ending": "yes"}
            if not fine:
                return {**found, f"rewrite-{item.pk}": rewrite}
            chosen = ending or self.known[item.content.story_id]["edited_ending"]
            return {**found, **{f"end-{item.pk}-{n}": sentence for n, sentence in enumerate(chosen, 1)}}
        return fields

    def test_a_story_goes_write_fail_rewrite_pass_edit_with_four_workers(self):
        w1, w2, w3, w4 = self.people[:4]
        workflow = self.workflow(write={"items_per_hit": 3}, edit={"assignments_per_hit": 2})
        write_stage, edit_stage = workflow.stage("write"), workflow.stage("edit")
        story = self.stories[0]
        reference = self.known[story.story_id]

        self.submit(w1, write_stage, lambda item: self.written(
            "The moon was full over the quiet harbor." if item.content.story_id == story.story_id
            else self.known[item.content.story_id]["counterfactual"])(item))
        # The writer never gets what they wrote to check.
        self.assertIsNone(assignment_claim(batch=fresh(edit_stage), worker=w1))
        first = Item.objects.get(batch=edit_stage.batch, key__endswith=":r0",
                                 payload__story_id=story.story_id)
        self.assertEqual(first.content.counterfactual, "The moon was full over the quiet harbor.")

        # w2 takes the first story's item: fails it and rewrites the counterfactual.
        assignment = None
        while True:
            with self.captureOnCommitCallbacks(execute=True):
                assignment = assignment_claim(batch=fresh(edit_stage), worker=w2)
                item = assignment.hit.ordered_items()[0]
                if item.pk == first.pk:
                    assignment_submit(assignment=assignment, worker=w2, raw_answers=self.checked(
                        False, rewrite=reference["counterfactual"])(item))
                    break
                assignment_submit(assignment=assignment, worker=w2, raw_answers=self.judged(item))
        chain = Chain.objects.get(story_id=story.story_id)
        self.assertEqual((chain.rounds, chain.state), (1, Chain.State.CHECKING))
        second = Item.objects.get(batch=edit_stage.batch, key=f"chain:{chain.pk}:r1")
        self.assertEqual(second.content.counterfactual, reference["counterfactual"])
        self.assertEqual(set(second.excluded_workers.all()), {w1, w2})
        self.assertEqual(first.hits.get().state, "expired")  # its second place closed: it was superseded

        # Neither the writer nor the rewriter is ever handed the rewritten item; w3 and w4 check and edit it.
        for worker in (w3, w4):
            while True:
                with self.captureOnCommitCallbacks(execute=True):
                    assignment = assignment_claim(batch=fresh(edit_stage), worker=worker)
                    item = assignment.hit.ordered_items()[0]
                    assignment_submit(assignment=assignment, worker=worker, raw_answers=self.judged(item))
                if item.pk == second.pk:
                    break
        for worker in (w1, w2):
            self.assertFalse(Assignment.objects.filter(hit__hit_items__item=second, worker=worker).exists())
        chain.refresh_from_db()
        self.assertEqual(chain.state, Chain.State.EDITED)

        # The lineage: who wrote what, in which stage and round, and what each step answers.
        steps = list(chain.steps.order_by("pk").values_list("kind", "stage__key", "round", "worker__external_id"))
        self.assertEqual(steps, [
            ("counterfactual", "write", 0, "w1"), ("failed", "edit", 0, "w2"), ("rewrite", "edit", 1, "w2"),
            ("passed", "edit", 1, "w3"), ("ending", "edit", 1, "w3"), ("passed", "edit", 1, "w4"),
            ("ending", "edit", 1, "w4")])
        rewrite = chain.steps.get(kind="rewrite")
        self.assertEqual(rewrite.answers, chain.steps.get(kind="counterfactual"))
        self.assertEqual({step.answers_id for step in chain.steps.filter(kind="ending")}, {rewrite.pk})
        self.assertTrue(all(step.item_id and step.assignment_id for step in chain.steps.all()))

    def test_the_loop_limit_sends_a_chain_to_review_and_the_organizer_decides(self):
        w1, w2, w3, w4, w5 = self.people
        self.stories = self.stories[:1]
        workflow = self.workflow(loop_limit=2)
        write_stage, edit_stage = workflow.stage("write"), workflow.stage("edit")
        self.submit(w1, write_stage, self.written("The moon was full over the quiet harbor."))
        self.submit(w2, edit_stage, self.checked(False, rewrite="A painter opened a gallery in Rome that week."))
        self.submit(w3, edit_stage, self.checked(False, rewrite="The council voted on a parking rule at noon."))
        chain = Chain.objects.get()
        self.assertEqual((chain.rounds, chain.state), (2, Chain.State.REVIEW))
        self.assertFalse(Item.objects.filter(batch=edit_stage.batch, key=f"chain:{chain.pk}:r2").exists())
        self.assertNothingFor(w4, edit_stage)  # nothing was sent on

        with self.captureOnCommitCallbacks(execute=True):
            chain_decide(chain=chain, decision="accept", note="close enough", user=self.organizer)
        sent = Item.objects.get(batch=edit_stage.batch, key=f"chain:{chain.pk}:r2")
        self.assertEqual(sent.content.counterfactual, "The council voted on a parking rule at noon.")
        self.assertEqual(set(sent.excluded_workers.all()), {w1, w2, w3})
        for worker in (w1, w2, w3):
            self.assertNothingFor(worker, edit_stage)
        self.submit(w4, edit_stage, self.checked(True))
        chain.refresh_from_db()
        self.assertEqual(chain.state, Chain.State.EDITED)
        with self.assertRaisesMessage(CrowdError, "not waiting for review"):
            chain_decide(chain=chain, decision="drop")
        del w5

    def test_the_server_refuses_an_ending_rewritten_from_scratch_with_its_size(self):
        w1, w2 = self.people[:2]
        self.stories = self.stories[:1]
        workflow = self.workflow(bound=EditBound(max_changed=0.5, min_kept=0.4))
        self.submit(w1, workflow.stage("write"), self.written(self.known[self.stories[0].story_id]["counterfactual"]))
        assignment = assignment_claim(batch=fresh(workflow.stage("edit")), worker=w2)
        item = assignment.hit.ordered_items()[0]
        other = ["A dragon flew over the city at dawn.", "Everyone ran to the hills to hide.",
                 "By night the dragon had gone back to sleep."]
        with self.assertRaises(CrowdError) as refused:
            assignment_submit(assignment=assignment, worker=w2, raw_answers=self.checked(True, ending=other)(item))
        self.assertRegex(str(refused.exception), r"story 1: this ending is rewritten, not edited: \d+ word edits for "
                                                 r"\d+ words \(\d+% changed, \d+% kept\); change at most 50%")
        assignment.refresh_from_db()
        self.assertEqual(assignment.state, Assignment.State.CLAIMED)
        self.assertFalse(Step.objects.filter(kind="ending").exists())
        unchanged = list(self.stories[0].ending)
        with self.assertRaisesMessage(CrowdError, "the ending is unchanged"):
            assignment_submit(assignment=assignment, worker=w2, raw_answers=self.checked(True, ending=unchanged)(item))

    def test_the_write_task_refuses_what_breaks_its_rules(self):
        workflow = self.workflow()
        assignment = assignment_claim(batch=workflow.stage("write").batch, worker=self.people[0])
        item = assignment.hit.ordered_items()[0]
        for text, message in ((self.stories[0].initial, "is the original second sentence"),
                              ("Too short.", "has 2 words; write at least 5"),
                              ("word " * 31, "has 31 words; keep it to 30")):
            with self.assertRaisesMessage(CrowdError, message):
                assignment_submit(assignment=assignment, worker=self.people[0], raw_answers=self.written(text)(item))
        with self.assertRaisesMessage(CrowdError, "tick condition 3 once your sentence meets it"):
            assignment_submit(assignment=assignment, worker=self.people[0], raw_answers={
                f"cf-{item.pk}": "He decided to be a werewolf this year.", f"cond-{item.pk}-related": "on",
                f"cond-{item.pk}-premise": "on"})


class SimulatedWorkflowTests(BaseTestCase):
    """A whole workflow run by simulated workers over HTTP, exported, and read back."""

    def test_the_export_reads_back_with_the_released_fields_and_the_pages_show_it(self):
        stories = read_stories(STORIES)[:12]
        workflow = workflow_create(name="tt-sim", stories=stories, loop_limit=2, edit={"assignments_per_hit": 2})
        workflow_publish(workflow)
        workers = [StoryWorker(f"tt-careful{n}") for n in range(1, 4)]
        workers += [StoryWorker("tt-breaker1", "breaker"), StoryWorker("tt-breaker2", "breaker"),
                    StoryWorker("tt-rewriter1", "rewriter")]
        submitted, refusals = run_story_workers(workflow, workers, known_stories(), seed=3)
        self.assertEqual(submitted["write"], 12)
        self.assertGreater(refusals["ending rewritten"], 0)
        found = statistics(workflow)
        self.assertGreater(found["checks"]["failed"], 0)
        with tempfile.TemporaryDirectory() as tmp:
            result = export(workflow, tmp, shares=(0.5, 0.25, 0.25), seed=1)
            read = {split: read_records(Path(tmp) / f"{split}.jsonl") for split in ("train", "dev", "test")}
        self.assertTrue(all(read.values()))
        self.assertTrue(all("edited_ending" in row for row in read["train"]))
        self.assertTrue(all(len(row["edited_endings"]) >= 1 for row in read["dev"] + read["test"]))
        sides = {split: {row["story_id"] for row in rows} for split, rows in read.items()}
        self.assertFalse(sides["train"] & sides["dev"] or sides["train"] & sides["test"]
                         or sides["dev"] & sides["test"])
        self.assertEqual(result["splits"]["train"]["edited_endings"], len(read["train"]))
        known = known_stories()
        for row in read["train"]:
            self.assertEqual(row["original_ending"], known[row["story_id"]]["original_ending"])

        self.login(self.organizer)
        page = self.client.get(reverse("chains:workflow", args=[workflow.pk]))
        self.assertContains(page, "Statistics")
        self.assertContains(page, "check and edit")
        chain = Chain.objects.filter(workflow=workflow, rounds__gt=0).first()
        page = self.client.get(reverse("chains:chain", args=[chain.pk]))
        self.assertContains(page, "rewrite")
        self.client.logout()
        self.login(self.annotator)
        self.assertEqual(self.client.get(reverse("chains:chain", args=[chain.pk])).status_code, 403)


class ReviewPageTests(BaseTestCase):
    def test_a_chain_in_review_is_decided_on_its_page_and_text_is_escaped(self):
        story = read_stories(STORIES)[0]
        workflow = workflow_create(name="tt-page", stories=[story])
        chain = Chain.objects.create(workflow=workflow, story_id=story.story_id, state=Chain.State.REVIEW, rounds=2,
                                     story={"story_id": story.story_id, "premise": "<script>alert(1)</script>",
                                            "initial": story.initial, "ending": list(story.ending)})
        self.login(self.organizer)
        page = self.client.get(reverse("chains:chain", args=[chain.pk]))
        self.assertContains(page, "&lt;script&gt;alert(1)&lt;/script&gt;")
        self.assertNotContains(page, "<script>alert(1)</script>")
        response = self.client.post(reverse("chains:decide", args=[chain.pk]), {"decision": "drop", "note": "off"})
        self.assertEqual(response.status_code, 302)
        chain.refresh_from_db()
        self.assertEqual(chain.state, Chain.State.DROPPED)
        self.assertEqual(chain.steps.get().value["decision"], "drop")
        self.assertFalse(Workflow.objects.filter(name="nope").exists())


class CommandTests(BaseTestCase):
    def run_command(self, *args):
        from io import StringIO

        from django.core.management import call_command
        out = StringIO()
        call_command("stories", *args, stdout=out)
        return out.getvalue()

    def test_start_report_export_and_evaluate_from_the_command_line(self):
        from django.core.management.base import CommandError

        said = self.run_command("start", str(STORIES), "--name", "cli", "--endings", "2", "--max-changed", "0.75")
        self.assertIn("34 stories; stage 1 (write) published", said)
        workflow = Workflow.objects.get(name="cli")
        self.assertEqual(Item.objects.filter(batch=workflow.stage("write").batch).first().content.bound,
                         {"max_changed": 0.75, "min_kept": 0.3})
        run_story_workers(workflow, [StoryWorker(f"cli{n}") for n in range(3)], known_stories(), seed=1)
        report = json.loads(self.run_command("report", "cli", "--json"))
        self.assertEqual(report["chains"]["total"], 34)
        with tempfile.TemporaryDirectory() as tmp:
            said = self.run_command("export", str(workflow.pk), "--out", tmp)
            self.assertIn("train.jsonl, dev.jsonl, test.jsonl, statistics.json", said)
            self.assertEqual(sum(len(read_records(Path(tmp) / f"{split}.jsonl")) for split in ("dev", "test")),
                             sum(report["splits"][split]["counterfactuals"] for split in ("dev", "test")))
        said = self.run_command("evaluate", "cli")
        self.assertRegex(said, r"batch \d+ \(Likert, 68 endings, 2 raters\) and batch \d+ \(pairwise, 34 pairs\)")
        with tempfile.TemporaryDirectory() as tmp, self.assertRaisesMessage(CommandError, "s.jsonl:1: missing field"):
            self.run_command("start", str(write(tmp, "s.jsonl", '{"story_id": "a"}\n')), "--name", "bad")
        self.assertFalse(Workflow.objects.filter(name="bad").exists())
        with self.assertRaisesMessage(CommandError, "no workflow 'nope'"):
            self.run_command("report", "nope")
