"""TimeTravel's write -> check -> edit workflow as designs/timetravel.yaml: stories in, the check's own rewrite
going on to someone new, the chain waiting after two failed checks and the organizer's word, the server's edit
bound, the lineage, the released export read back, the organizer's pages and the command line."""

import json
import tempfile
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from core.stories import StoryFileError, edit_size, read_records, read_stories, word_diff
from demo.crowd import StoryWorker, run_story_workers
from designs.lineage import chains
from designs.stages import chain_decide, workflow_batches
from hits.models import Assignment, Batch, Item, Worker
from hits.services import CrowdError, assignment_claim, assignment_submit
from reproductions.stories import endings, export, statistics, workflow_start
from tests.base import BaseTestCase

STORIES = settings.BASE_DIR / "demo" / "data" / "stories.jsonl"


def known_stories():
    return {row["story_id"]: row for row in map(json.loads, STORIES.read_text(encoding="utf-8").splitlines())}


def fresh(batch):
    """The stage's batch as it is now (a later stage opens when its first items arrive)."""
    return Batch.objects.get(pk=batch.pk)


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


@pytest.mark.parametrize("content, expected", [
    (b'{"story_id": "a"\n', "dev.jsonl:1: not JSON (Expecting ',' delimiter at column 17)"),
    (b"\xff\xfe\n", "dev.jsonl:1: invalid UTF-8 at byte"),
    (b"\n[1]\n", "dev.jsonl:2: expected a JSON object, got list"),
])
def test_released_records_that_cannot_be_read_are_refused_by_line(content, expected):
    with tempfile.TemporaryDirectory() as tmp, pytest.raises(StoryFileError) as error:
        read_records(write(tmp, "dev.jsonl", content))
    assert expected in str(error.value)


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


# --- the workflow ---------------------------------------------------------------------------

class ChainTests(BaseTestCase):
    def setUp(self):
        self.stories = read_stories(STORIES)[:3]
        self.known = known_stories()
        self.people = [Worker.objects.create(provider="inhouse", external_id=f"w{n}") for n in range(1, 6)]

    def workflow(self):
        first = workflow_start(self.stories, name="tt")
        stages = workflow_batches(first)
        return stages["write"], stages["check"]

    def submit(self, worker, batch, fields_for):
        with self.captureOnCommitCallbacks(execute=True):
            assignment = assignment_claim(batch=fresh(batch), worker=worker)
            assert assignment is not None, f"{worker.external_id} got nothing in batch {batch.pk}"
            fields = {}
            for item in assignment.hit.ordered_items():
                fields |= fields_for(item)
            assignment_submit(assignment=assignment, worker=worker, raw_answers=fields)
        return item

    def written(self, text):
        return lambda item: {f"a-{item.pk}-0": text}

    def judged(self, item):
        """An honest checker: the reference counterfactual passes, anything else fails and is rewritten."""
        reference = self.known[item.content.record_id]
        fine = item.content.fields["counterfactual"] == reference["counterfactual"]
        return self.checked(fine, rewrite=reference["counterfactual"])(item)

    def checked(self, fine, rewrite="", ending=None):
        def fields(item):
            found = {f"a-{item.pk}-1-1": "yes" if fine else "no", f"a-{item.pk}-1-2": "yes", f"a-{item.pk}-1-3": "yes"}
            if not fine:
                return {**found, f"a-{item.pk}-2": rewrite}
            chosen = ending or self.known[item.content.record_id]["edited_ending"]
            return {**found, **{f"a-{item.pk}-3-{n}": sentence for n, sentence in enumerate(chosen, 1)}}
        return fields

    def test_a_story_goes_write_fail_rewrite_pass_edit_with_four_workers(self):
        w1, w2, w3, w4 = self.people[:4]
        write, check = self.workflow()
        self.assertEqual((check.items_per_hit, check.assignments_per_hit, str(check.reward)), (1, 2, "0.20"))
        story = self.stories[0]
        reference = self.known[story.story_id]
        for _ in self.stories:
            self.submit(w1, write, lambda item: self.written(
                "The moon was full over the quiet harbor." if item.content.record_id == story.story_id
                else self.known[item.content.record_id]["counterfactual"])(item))
        # The writer never gets what they wrote to check.
        self.assertIsNone(assignment_claim(batch=fresh(check), worker=w1))
        first = next(item for item in Item.objects.filter(batch=check) if item.content.record_id == story.story_id)
        self.assertEqual(first.content.fields["counterfactual"], "The moon was full over the quiet harbor.")

        # w2 takes the first story's item: fails it and rewrites the counterfactual.
        while True:
            with self.captureOnCommitCallbacks(execute=True):
                assignment = assignment_claim(batch=fresh(check), worker=w2)
                item = assignment.hit.ordered_items()[0]
                if item.pk == first.pk:
                    assignment_submit(assignment=assignment, worker=w2, raw_answers=self.checked(
                        False, rewrite=reference["counterfactual"])(item))
                    break
                assignment_submit(assignment=assignment, worker=w2, raw_answers=self.judged(item))
        origin = first.content.origin
        second = Item.objects.get(batch=check, key=f"check:{origin}:r1")
        self.assertEqual(second.content.fields["counterfactual"], reference["counterfactual"])
        self.assertEqual(set(second.excluded_workers.all()), {w1, w2})
        self.assertEqual(first.hits.get().state, "expired")  # its second place closed: it was superseded

        # Neither the writer nor the rewriter is ever handed the rewritten item; w3 and w4 check and edit it.
        for worker in (w3, w4):
            while True:
                with self.captureOnCommitCallbacks(execute=True):
                    assignment = assignment_claim(batch=fresh(check), worker=worker)
                    item = assignment.hit.ordered_items()[0]
                    assignment_submit(assignment=assignment, worker=worker, raw_answers=self.judged(item))
                if item.pk == second.pk:
                    break
        for worker in (w1, w2):
            self.assertFalse(Assignment.objects.filter(hit__hit_items__item=second, worker=worker).exists())

        # The lineage: who answered what, in which stage and round, and whether the check passed it.
        (chain,) = chains(write, origin=origin)
        self.assertEqual((chain.record_id, chain.state, chain.rounds), (story.story_id, "passed", 1))
        self.assertEqual([(step.stage, step.round, step.assignment.worker.external_id, step.passed)
                          for step in chain.steps],
                         [("write", 0, "w1", None), ("check", 0, "w2", False), ("check", 1, "w3", True),
                          ("check", 1, "w4", True)])
        self.assertEqual(chain.steps[1].answer["rewrite"], reference["counterfactual"])
        edited = next(entry for entry in endings(write) if entry["chain"] == origin)
        self.assertEqual((edited["counterfactual"], edited["round"], len(edited["endings"])),
                         (reference["counterfactual"], 1, 2))

    def test_a_rewrite_that_fails_too_waits_for_the_organizer_who_sends_it_on(self):
        w1, w2, w3, w4, _ = self.people
        self.stories = self.stories[:1]
        write, check = self.workflow()
        self.submit(w1, write, self.written("The moon was full over the quiet harbor."))
        self.submit(w2, check, self.checked(False, rewrite="A painter opened a gallery in Rome that week."))
        self.submit(w3, check, self.checked(False, rewrite="The council voted on a parking rule at noon."))
        (chain,) = chains(write)
        self.assertEqual((chain.rounds, chain.state), (2, "waiting"))
        self.assertIsNone(assignment_claim(batch=fresh(check), worker=w4))  # nothing was sent on

        with self.captureOnCommitCallbacks(execute=True):
            chain_decide(batch=write, origin=chain.origin.pk, decision="again", user=self.organizer)
        sent = Item.objects.get(batch=check, key=f"check:{chain.origin.pk}:r2")
        self.assertEqual(sent.content.fields["counterfactual"], "The council voted on a parking rule at noon.")
        self.assertEqual(set(sent.excluded_workers.all()), {w1, w2, w3})
        self.submit(w4, check, self.checked(True))
        (chain,) = chains(write)
        self.assertEqual(chain.state, "passed")
        self.assertEqual([decision.decision for decision in chain.decisions], ["again"])
        with self.assertRaisesMessage(CrowdError, "is not waiting for a decision"):
            chain_decide(batch=write, origin=chain.origin.pk, decision="drop")

    def test_the_server_refuses_an_ending_rewritten_from_scratch_with_its_size(self):
        w1, w2 = self.people[:2]
        self.stories = self.stories[:1]
        write, check = self.workflow()
        self.submit(w1, write, self.written(self.known[self.stories[0].story_id]["counterfactual"]))
        assignment = assignment_claim(batch=fresh(check), worker=w2)
        item = assignment.hit.ordered_items()[0]
        other = ["A dragon flew over the city at dawn.", "Everyone ran to the hills to hide.",
                 "By night the dragon had gone back to sleep."]
        with self.assertRaises(CrowdError) as refused:
            assignment_submit(assignment=assignment, worker=w2, raw_answers=self.checked(True, ending=other)(item))
        self.assertRegex(str(refused.exception), r"story 1: Edit the ending as little as you can[^:]*: edit: is "
                                                 r"rewritten, not edited: \d+ word edits for \d+ words "
                                                 r"\(\d+% changed, \d+% kept\); change at most 80%")
        assignment.refresh_from_db()
        self.assertEqual(assignment.state, Assignment.State.CLAIMED)
        with self.assertRaisesMessage(CrowdError, "Sentence 4: is empty; edit it, do not delete it"):
            emptied = self.checked(True)(item) | {f"a-{item.pk}-3-2": ""}
            assignment_submit(assignment=assignment, worker=w2, raw_answers=emptied)

    def test_the_write_stage_refuses_what_breaks_its_rules(self):
        write, _ = self.workflow()
        assignment = assignment_claim(batch=write, worker=self.people[0])
        item = assignment.hit.ordered_items()[0]
        for text, rule in ((self.stories[0].initial, "copy"), ("Too short.", "words"), ("word " * 31, "words")):
            with self.assertRaises(CrowdError) as refused:
                assignment_submit(assignment=assignment, worker=self.people[0], raw_answers=self.written(text)(item))
            self.assertRegex(str(refused.exception), f"^story 1: Rewrite the second sentence[^:]*: {rule}: ")
        self.assertFalse(Item.objects.filter(batch=workflow_batches(write)["check"]).exists())


class SimulatedWorkflowTests(BaseTestCase):
    """A whole workflow run by simulated workers over HTTP, exported, read back and looked at."""

    def test_the_export_reads_back_with_the_released_fields_and_the_pages_show_it(self):
        stories = read_stories(STORIES)[:12]
        first = workflow_start(stories, name="tt-sim")
        workers = [StoryWorker(f"tt-careful{n}") for n in range(1, 4)]
        workers += [StoryWorker("tt-breaker1", "breaker"), StoryWorker("tt-breaker2", "breaker"),
                    StoryWorker("tt-rewriter1", "rewriter")]
        submitted, refusals = run_story_workers(workflow_batches(first), workers, known_stories(), seed=3)
        self.assertEqual(submitted["write"], 12)
        self.assertGreater(refusals["ending rewritten"], 0)
        found = statistics(first)
        self.assertGreater(found["checks"]["failed"], 0)
        with tempfile.TemporaryDirectory() as tmp:
            result = export(first, tmp, shares=(0.5, 0.25, 0.25), seed=1)
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
        check = workflow_batches(first)["check"]
        page = self.client.get(reverse("designs:chains", args=[check.pk]))  # any stage's batch shows the workflow
        self.assertContains(page, "All chains")
        self.assertContains(page, f"2. check <small>(batch {check.pk})")
        chain = next(chain for chain in chains(first) if chain.rounds)
        page = self.client.get(reverse("designs:chain", args=[first.pk, chain.origin.pk]))
        self.assertContains(page, "failed the check")
        self.assertContains(page, 'class="diff-added"')
        self.client.logout()
        self.login(self.annotator)
        self.assertEqual(self.client.get(reverse("designs:chain", args=[first.pk, chain.origin.pk])).status_code, 403)

    def test_a_chain_s_page_escapes_its_text_and_takes_the_organizer_s_word(self):
        story = read_stories(STORIES)[0]
        first = workflow_start([story], name="tt-page")
        item = first.items.get()
        Item.objects.filter(pk=item.pk).update(payload={**item.payload, "text": "<script>alert(1)</script>"})
        stages = workflow_batches(first)
        people = [Worker.objects.create(provider="inhouse", external_id=f"p{n}") for n in range(3)]
        for worker, fields in ((people[0], lambda pk: {f"a-{pk}-0": "<b>The moon</b> was full over the harbor."}),
                               (people[1], lambda pk: {f"a-{pk}-1-1": "no", f"a-{pk}-1-2": "yes", f"a-{pk}-1-3": "yes",
                                                       f"a-{pk}-2": "A painter opened a gallery in Rome."}),
                               (people[2], lambda pk: {f"a-{pk}-1-1": "no", f"a-{pk}-1-2": "yes", f"a-{pk}-1-3": "yes",
                                                       f"a-{pk}-2": "The council voted on a parking rule."})):
            batch = stages["write"] if worker == people[0] else fresh(stages["check"])
            assignment = assignment_claim(batch=batch, worker=worker)
            assignment_submit(assignment=assignment, worker=worker,
                              raw_answers=fields(assignment.hit.ordered_items()[0].pk))
        self.login(self.organizer)
        page = self.client.get(reverse("designs:chain", args=[first.pk, item.pk]))
        self.assertContains(page, "&lt;script&gt;alert(1)&lt;/script&gt;")
        self.assertContains(page, "&lt;b&gt;The moon&lt;/b&gt;")
        self.assertNotContains(page, "<script>alert(1)</script>")
        self.assertContains(page, "Your decision")
        response = self.client.post(reverse("designs:chains", args=[first.pk]),
                                    {"origin": item.pk, "decision": "drop"})
        self.assertEqual(response.status_code, 302)
        (chain,) = chains(first)
        self.assertEqual((chain.state, chain.decisions[0].by, chain.decisions[0].round),
                         ("dropped", self.organizer, 1))
        self.assertEqual(self.client.get(reverse("designs:chain", args=[first.pk, 999_999])).status_code, 404)


class CommandTests(BaseTestCase):
    def run_command(self, *args):
        from io import StringIO

        from django.core.management import call_command
        out = StringIO()
        call_command("stories", *args, stdout=out)
        return out.getvalue()

    def test_start_report_export_and_evaluate_from_the_command_line(self):
        from django.core.management.base import CommandError

        said = self.run_command("start", str(STORIES), "--name", "cli")
        self.assertIn("34 stories; stage 1 (write) published", said)
        first = Batch.objects.get(name="cli")
        self.assertEqual(first.design_link.version.slug, "timetravel")
        run_story_workers(workflow_batches(first), [StoryWorker(f"cli{n}") for n in range(3)], known_stories(),
                          seed=1)
        report = json.loads(self.run_command("report", "cli", "--json"))
        self.assertEqual(report["chains"]["total"], 34)
        with tempfile.TemporaryDirectory() as tmp:
            said = self.run_command("export", str(first.pk), "--out", tmp)
            self.assertIn("train.jsonl, dev.jsonl, test.jsonl, statistics.json", said)
            self.assertEqual(sum(len(read_records(Path(tmp) / f"{split}.jsonl")) for split in ("dev", "test")),
                             sum(report["splits"][split]["counterfactuals"] for split in ("dev", "test")))
        said = self.run_command("evaluate", "cli")
        self.assertRegex(said, r"batch \d+ \(Likert, 68 endings, 2 raters\) and batch \d+ \(pairwise, 34 pairs\)")
        with tempfile.TemporaryDirectory() as tmp, self.assertRaisesMessage(CommandError, "s.jsonl:1: missing field"):
            self.run_command("start", str(write(tmp, "s.jsonl", '{"story_id": "a"}\n')), "--name", "bad")
        self.assertFalse(Batch.objects.filter(name="bad").exists())
        with self.assertRaisesMessage(CommandError, "a batch named 'cli' exists already"):
            self.run_command("start", str(STORIES), "--name", "cli")
        with self.assertRaisesMessage(CommandError, "no TimeTravel workflow 'nope'"):
            self.run_command("report", "nope")


# --- workflows of the retired story task types -----------------------------------------------

@pytest.mark.django_db(transaction=True)
def test_a_workflow_of_the_retired_story_task_types_becomes_a_timetravel_design_run():
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor
    from django.db.migrations.recorder import MigrationRecorder
    from django.db.migrations.state import ProjectState

    from tests.reproductions.old_chains import OPERATIONS

    before = [("designs", "0006_chain_decisions")]
    executor = MigrationExecutor(connection)
    leaves = executor.loader.graph.leaf_nodes()
    executor.migrate(before)
    executor.loader.build_graph()
    # The database of that time: designs at 0006 and the workflow tables of the chains app, gone since.
    state = executor.loader.project_state([node for node in leaves if node[0] != "designs"] + before)
    with connection.schema_editor() as editor:
        for operation in OPERATIONS:
            after = state.clone()
            operation.state_forwards("chains", after)
            operation.database_forwards("chains", editor, state, after)
            state = after
    MigrationRecorder(connection).record_applied("chains", "0001_initial")  # as that site's history says
    old = ProjectState(state.models, state.real_apps).apps  # rendered afresh: one class per model
    OldBatch, OldItem, Hit, HitItem = (old.get_model("hits", name) for name in ("Batch", "Item", "Hit", "HitItem"))
    OldWorker, OldAssignment = old.get_model("hits", "Worker"), old.get_model("hits", "Assignment")
    Workflow, Stage, Chain, Step = (old.get_model("chains", name) for name in ("Workflow", "Stage", "Chain", "Step"))
    story = {"kind": "story", "story_id": "s1", "premise": "Ann planned a picnic.", "initial": "The sun shone.",
             "ending": ["She packed food.", "Friends came.", "They ate outside."], "counterfactual": "", "round": 0,
             "rules": {}, "bound": {}}
    write = OldBatch.objects.create(name="old: write", task_type="story-write", items_per_hit=1, assignments_per_hit=1)
    edit = OldBatch.objects.create(name="old: edit", task_type="story-edit", items_per_hit=1, assignments_per_hit=1)
    workflow = Workflow.objects.create(name="old", loop_limit=2)
    edit_stage = Stage.objects.create(workflow=workflow, key="edit", order=1, batch=edit)
    Stage.objects.create(workflow=workflow, key="write", order=0, batch=write, feeds=edit_stage, gate=True)
    people = [OldWorker.objects.create(provider="inhouse", external_id=f"w{n}") for n in range(4)]

    def answered(batch, key, payload, worker, answer, number):
        item = OldItem.objects.create(batch=batch, key=key, payload=payload)
        hit = Hit.objects.create(batch=batch, index=number)
        HitItem.objects.create(hit=hit, item=item, position=0)
        assignment = OldAssignment.objects.create(hit=hit, worker=worker, state="submitted",
                                                  submitted=timezone.now(), answers={str(item.pk): answer})
        return item, assignment

    from django.utils import timezone

    first, written = answered(write, "story:s1", story, people[0], {"counterfactual": "Rain fell all day."}, 1)
    chain = Chain.objects.create(workflow=workflow, story_id="s1", story={}, state="review", rounds=2)
    shown = Step.objects.create(chain=chain, kind="counterfactual", round=0, item=first, assignment=written,
                                worker=people[0], value="Rain fell all day.")
    checks = {"related": False, "premise": True, "ending": True}
    r0, a0 = answered(edit, f"chain:{chain.pk}:r0", {**story, "counterfactual": "Rain fell all day."}, people[1],
                      {"checks": checks, "passed": False, "rewrite": "A storm came."}, 2)
    Step.objects.create(chain=chain, kind="rewrite", round=1, item=r0, assignment=a0, worker=people[1],
                        value="A storm came.", answers=shown)
    r1, _ = answered(edit, f"chain:{chain.pk}:r1", {**story, "counterfactual": "A storm came.", "round": 1},
                     people[2], {"checks": checks, "passed": False, "rewrite": "Snow fell."}, 3)
    passed = {"related": True, "premise": True, "ending": True}
    alone = OldBatch.objects.create(name="alone", task_type="story-edit", items_per_hit=1, assignments_per_hit=1)
    answered(alone, "loose", {**story, "counterfactual": "Wind blew."}, people[3],
             {"checks": passed, "passed": True, "ending": ["She packed coats.", "Friends came.", "They ate in."],
              "edit": {"distance": 3}}, 4)

    # What Django made for the old apps' models on a site of that time: its content types and permissions.
    from django.contrib.auth.models import Permission
    from django.contrib.contenttypes.models import ContentType

    stale = ContentType.objects.create(app_label="chains", model="workflow")
    Permission.objects.create(content_type=stale, codename="view_workflow", name="Can view workflow")

    executor = MigrationExecutor(connection)
    executor.migrate(leaves)

    from designs.lineage import chains as lineage
    from designs.models import DesignBatch

    write_now = Batch.objects.get(pk=write.pk)
    assert (write_now.task_type, write_now.design_link.version.slug, write_now.design_link.stage) == \
        ("design", "timetravel", "write")
    assert DesignBatch.objects.get(batch_id=edit.pk).workflow_id == write.pk
    again = Item.objects.get(pk=r1.pk).content
    assert (again.fields["counterfactual"], again.round, again.origin, again.source_item) == \
        ("A storm came.", 1, first.pk, r0.pk)
    (found,) = lineage(write_now)
    assert (found.state, found.rounds, [step.passed for step in found.steps]) == ("waiting", 2, [None, False, False])
    assert found.steps[1].answer["conditions"]["It is about the same thing as the second sentence, not a new story."] \
        == "no"
    assert found.steps[1].answer["rewrite"] == "A storm came."
    loose = Assignment.objects.get(worker__external_id="w3").answers
    (value,) = loose.values()
    assert value["edited_ending"] == {"Sentence 3": "She packed coats.", "Sentence 4": "Friends came.",
                                      "Sentence 5": "They ate in."}
    assert Batch.objects.filter(task_type__in=("story-write", "story-edit")).count() == 0
    assert DesignBatch.objects.get(batch_id=alone.pk).stage == "check"  # a batch outside a workflow: one stage
    # The old tables are gone with the app's history (designs/0010), so nothing waits for the app.
    assert not {"chains_workflow", "chains_step"} & set(connection.introspection.table_names())
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM django_migrations WHERE app = 'chains'")
        assert cursor.fetchone() == (0,)
    assert not Permission.objects.filter(content_type__app_label="chains").exists()
    assert not ContentType.objects.filter(app_label__in=("chains", "choices", "facts")).exists()
