"""Multi-stage designs run from the file (designs/timetravel.yaml): the write stage's outputs become the check
stage's items with the writer kept out, a failed check sends the story back to be written again by someone new,
at most max_rounds times, and then the chain waits for the organizer."""

import json
import re
from pathlib import Path

import pytest

from designs.items import Record
from designs.services import design_batch_create, design_version_save
from designs.stages import chain_decide, waiting_chains, workflow_batches, workflow_report
from designs.task_type import DESIGN
from hits.models import Assignment, Item, Worker
from hits.services import CrowdError, assignment_claim, assignment_submit, batch_publish

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
STORY = Record(id="s1", text="Ann planned a picnic in the park.", fields={
    "initial": "The sun was shining all morning.",
    "ending": ["She packed sandwiches.", "Her friends came along.", "They ate on the grass."]})


# Write -> check, a failed check sending the story back to be written again (designs/timetravel.yaml instead has
# the checker rewrite it: see test_a_check_that_fails_sends_its_own_rewrite_on_to_be_checked_again).
WRITE_CHECK = """title: Rewrite a story's turn
items: {id_key: story_id, text_key: premise, noun: story, show: [initial, counterfactual, ending]}
annotation_schemes:
  - annotation_type: text
    name: counterfactual
    description: Rewrite the second sentence so that the story could go another way.
    min_words: 3
    max_words: 30
    must_differ_from: initial
    max_overlap: 0.8
    label_requirement: {required: true}
  - annotation_type: radio
    name: consistent
    description: Does the new second sentence fit?
    labels: ["yes", "no"]
    label_requirement: {required: true}
  - annotation_type: text
    name: edited_ending
    description: Edit the ending as little as you can.
    labels: [Sentence 3, Sentence 4, Sentence 5]
    prefill_key: ending
    edit: {max_changed: 0.8, min_kept: 0.3}
    label_requirement: {required: true}
    display_logic:
      show_when: [{schema: consistent, operator: equals, value: "yes"}]
stages:
  - {name: write, schemes: [counterfactual]}
  - name: check
    from_stage: write
    schemes: [consistent, edited_ending]
    gate: {schema: consistent, operator: equals, value: "yes"}
    max_rounds: 3
hits: {items_per_hit: 5, assignments_per_hit: 1}
"""


def _workflow(max_rounds=3):
    source = WRITE_CHECK.replace("max_rounds: 3", f"max_rounds: {max_rounds}")
    version = design_version_save(source=source, slug=f"timetravel-{max_rounds}")
    first = design_batch_create(version=version, records=[STORY], name="picnic", stage="write", items_per_hit=1)
    batch_publish(batch=first)
    return workflow_batches(first)


def _worker(name):
    return Worker.objects.create(provider="inhouse", external_id=name)


def _write(batch, worker, text):
    batch.refresh_from_db()
    assignment = assignment_claim(batch=batch, worker=worker)
    item = assignment.hit.ordered_items()[0]
    return assignment_submit(assignment=assignment, worker=worker, raw_answers={f"a-{item.pk}-0": text})


def _check(batch, worker, fits, ending=""):
    batch.refresh_from_db()  # a later stage opens when its first items arrive
    assignment = assignment_claim(batch=batch, worker=worker)
    item = assignment.hit.ordered_items()[0]
    raw = {f"a-{item.pk}-1": "yes" if fits else "no"}
    if fits:
        raw |= {f"a-{item.pk}-2-{n}": sentence for n, sentence in enumerate(ending, 1)}
    return assignment_submit(assignment=assignment, worker=worker, raw_answers=raw)


def test_the_design_makes_a_batch_per_stage_and_outputs_flow_on_without_their_authors():
    stages = _workflow()
    assert list(stages) == ["write", "check"]
    write, check = stages["write"], stages["check"]
    assert (check.state, check.items.count()) == ("draft", 0)  # it fills as stories are written
    ann, ben, cat, dan = (_worker(name) for name in ("ann", "ben", "cat", "dan"))
    _write(write, ann, "Dark clouds rolled in before noon.")
    check.refresh_from_db()
    item = check.items.get()
    assert check.state == "published"
    assert item.content.fields["counterfactual"] == "Dark clouds rolled in before noon."
    assert item.content.source_item == write.items.get().pk
    assert list(item.excluded_workers.all()) == [ann]
    assert assignment_claim(batch=check, worker=ann) is None  # a writer never checks their own story
    # Ben says it does not fit: the story goes back to be written again, by neither Ann nor Ben.
    _check(check, ben, fits=False)
    again = write.items.get(key__endswith=":r1")
    assert (again.content.round, again.content.origin) == (1, write.items.order_by("pk").first().pk)
    assert set(again.excluded_workers.all()) == {ann, ben}
    _write(write, cat, "A cold storm arrived in the morning.")
    second = check.items.order_by("-pk").first()
    assert second.content.round == 1 and set(second.excluded_workers.all()) == {ann, ben, cat}
    _check(check, dan, fits=True,
           ending=["She packed umbrellas.", "Her friends stayed home.", "They ate on the grass."])
    report = workflow_report(write)
    assert report["stages"]["write"]["sent_back"] == 1 and report["stages"]["check"]["items"] == 2
    assert report["waiting"] == 0
    page = check.hits.order_by("-pk").first()
    html = DESIGN.html_question(page, page.ordered_items())
    assert "A cold storm arrived in the morning." in html and "She packed sandwiches. Her friends came along." in html


def test_a_chain_that_used_its_rounds_waits_for_the_organizer():
    stages = _workflow(max_rounds=1)
    write, check = stages["write"], stages["check"]
    ann, ben, cat, dan = (_worker(name) for name in ("ann", "ben", "cat", "dan"))
    _write(write, ann, "Dark clouds rolled in before noon.")
    _check(check, ben, fits=False)
    _write(write, cat, "A cold storm arrived in the morning.")
    _check(check, dan, fits=False)  # the second failure: its one round is used
    assert write.items.count() == 2 and check.items.count() == 2
    assert workflow_report(write)["waiting"] == 1
    assert Assignment.objects.filter(hit__batch=check, state="submitted").count() == 2


def test_an_answer_that_breaks_the_stage_s_rules_sends_nothing_on():
    stages = _workflow()
    with pytest.raises(CrowdError, match="is the same as the initial"):
        _write(stages["write"], _worker("ann"), "The sun was shining all morning.")
    assert stages["check"].items.count() == 0 and Item.objects.filter(batch=stages["write"]).count() == 1


def test_a_later_stage_must_say_which_stage_it_reads():
    from designs.loader import DesignError, load_text

    text = ("title: t\nannotation_schemes:\n  - {annotation_type: text, name: a}\n"
            "  - {annotation_type: text, name: b}\n"
            "stages:\n  - {name: one, schemes: [a], gate: {schema: a, value: x}}\n  - {name: two, schemes: [b]}\n")
    with pytest.raises(DesignError) as caught:
        load_text(text, name="s.yaml")
    found = [str(problem) for problem in caught.value.problems]
    assert "s.yaml:6: stages.0.gate: the first stage has no earlier stage to send what fails its check back to" in \
        found[0]
    assert found[1].startswith("s.yaml:7: stages.1: stage 'two' comes after the first, so its items are an earlier "
                               "stage's outputs: give it from_stage (one of one)")


def test_design_new_makes_every_stage_and_the_project_follows_the_first(tmp_path, client):
    import json

    from django.contrib.auth.models import User
    from django.core.management import call_command

    from accounts import roles
    from projects.models import Project
    from tests.base import page_after_jobs

    items = tmp_path / "stories.jsonl"
    items.write_text(json.dumps({"story_id": "s1", "premise": STORY.text, **STORY.fields}) + "\n")
    call_command("design", "new", str(ROOT / "designs" / "timetravel.yaml"), "--items", str(items), "--name", "Tales")
    project = Project.objects.get(slug="tales")
    first, later = project.batches.order_by("pk")
    assert workflow_batches(first) == {"write": first, "check": later}
    boss = User.objects.create_user("boss", password="pass-word-1")
    boss.groups.add(roles.group(roles.ORGANIZER))
    client.force_login(boss)
    page = client.get(f"/projects/{project.slug}/").content.decode()
    assert f"/projects/{project.slug}/batches/{first.pk}/publish/" in page  # the first stage is what is published
    batch_publish(batch=first)
    _write(first, _worker("ann"), "Dark clouds rolled in before noon.")
    page = page_after_jobs(client, f"/projects/{project.slug}/").content.decode()
    assert "stage write: 1 item, 1 answer, 0 sent back; stage check: 1 item, 0 answers" in page


def test_a_cancelled_later_stage_keeps_the_submission_and_says_why_outputs_wait():
    from hits.models import Batch

    stages = _workflow()
    Batch.objects.filter(pk=stages["check"].pk).update(state="cancelled")
    ann = _worker("ann")
    _write(stages["write"], ann, "Dark clouds rolled in before noon.")
    assert Assignment.objects.get(worker=ann).state == "submitted"
    report = workflow_report(stages["write"])
    assert report["stages"]["check"]["items"] == 0
    assert report["stages"]["check"]["note"].startswith("1 output(s) not added: batch ")


def test_a_writer_busy_elsewhere_is_still_kept_from_their_story_when_it_comes_back():
    stages = _workflow()
    ann, ben = _worker("ann"), _worker("ben")
    _write(stages["write"], ann, "Dark clouds rolled in before noon.")
    other = design_batch_create(version=stages["write"].design_link.version, records=[
        Record(id="s2", text="Bo fed the cat.", fields={"initial": "It was late.", "ending": ["A.", "B.", "C."]})],
        name="other", stage="write", items_per_hit=1)
    batch_publish(batch=other)
    assert assignment_claim(batch=other, worker=ann) is not None  # a claimed, unsubmitted place elsewhere
    _check(stages["check"], ben, fits=False)
    again = stages["write"].items.get(key__endswith=":r1")
    assert set(again.excluded_workers.all()) == {ann, ben}


def test_the_organizer_sends_a_waiting_chain_back_once_more_or_drops_it(client):
    from django.contrib.auth.models import User

    from accounts import roles

    stages = _workflow(max_rounds=1)
    write, check = stages["write"], stages["check"]
    ann, ben, cat, dan, eve, fay = (_worker(name) for name in ("ann", "ben", "cat", "dan", "eve", "fay"))
    _write(write, ann, "Dark clouds rolled in before noon.")
    _check(check, ben, fits=False)
    _write(write, cat, "A cold storm arrived in the morning.")
    _check(check, dan, fits=False)
    boss = User.objects.create_user("boss", password="pass-word-1")
    boss.groups.add(roles.group(roles.ORGANIZER))
    client.force_login(boss)
    page = client.get(f"/review/chains/{check.pk}/").content.decode()
    origin = write.items.order_by("pk").first().pk
    assert f'id="chain-{origin}"' in page and "A cold storm arrived in the morning." in page
    client.post(f"/review/chains/{write.pk}/", {"origin": origin, "decision": "again"})
    again = write.items.get(key__endswith=":r2")
    assert set(again.excluded_workers.all()) == {ann, ben, cat, dan}
    assert workflow_report(write)["waiting"] == 0
    replayed = client.post(f"/review/chains/{write.pk}/", {"origin": origin, "decision": "again"}, follow=True)
    assert f"chain {origin} is not waiting for a decision" in replayed.content.decode()
    assert write.items.count() == 3
    _write(write, eve, "Snow fell on the park that day.")
    _check(check, fay, fits=False)
    assert workflow_report(write)["waiting"] == 1
    client.post(f"/review/chains/{write.pk}/", {"origin": origin, "decision": "drop"})
    assert workflow_report(write)["waiting"] == 0 and write.items.count() == 3


def _timetravel(max_rounds=2):
    source = (ROOT / "designs" / "timetravel.yaml").read_text(encoding="utf-8")
    version = design_version_save(source=re.sub(r"max_rounds: \d+", f"max_rounds: {max_rounds}", source),
                                  slug=f"timetravel-{max_rounds}")
    first = design_batch_create(version=version, records=[STORY], name="tales", stage="write", items_per_hit=1)
    batch_publish(batch=first)
    return workflow_batches(first)


def _judge(batch, worker, *, fails=False, rewrite="", ending=()):
    """The check stage of designs/timetravel.yaml: the three conditions (a "no" on the last when it fails), then
    the rewrite or the edited ending."""
    batch.refresh_from_db()
    assignment = assignment_claim(batch=batch, worker=worker)
    item = assignment.hit.ordered_items()[0]
    raw = {f"a-{item.pk}-1-{row}": "yes" for row in (1, 2, 3)}
    if fails:
        raw[f"a-{item.pk}-1-3"] = "no"
        raw[f"a-{item.pk}-2"] = rewrite
    else:
        raw |= {f"a-{item.pk}-3-{n}": sentence for n, sentence in enumerate(ending, 1)}
    return assignment_submit(assignment=assignment, worker=worker, raw_answers=raw)


def test_a_check_that_fails_sends_its_own_rewrite_on_to_be_checked_again():
    stages = _timetravel()
    write, check = stages["write"], stages["check"]
    ann, ben, cat = (_worker(name) for name in ("ann", "ben", "cat"))
    _write(write, ann, "Dark clouds rolled in before noon that day.")
    first = check.items.get()
    # Ben: the ending still fits, so condition 3 fails; he rewrites the sentence himself.
    _judge(check, ben, fails=True, rewrite="A cold storm flooded the whole park by morning.")
    again = check.items.get(key__endswith=":r1")
    assert again.content.fields["counterfactual"] == "A cold storm flooded the whole park by morning."
    assert (again.content.round, again.content.origin, again.content.source_item) == (1, write.items.get().pk,
                                                                                       first.pk)
    assert set(again.excluded_workers.all()) == {ann, ben}
    assert write.items.count() == 1  # nothing went back to the write stage
    assert assignment_claim(batch=check, worker=ben) is None  # he wrote it: someone else checks it
    _judge(check, cat, ending=["She packed umbrellas.", "Her friends stayed home.", "They ate on the grass."])
    answer = Assignment.objects.get(worker=cat).answers[str(again.pk)]
    assert answer["conditions"] == {row: "yes" for row in answer["conditions"]} and "rewrite" not in answer
    assert answer["edited_ending"]["Sentence 4"] == "Her friends stayed home."
    assert workflow_report(write)["waiting"] == 0


def test_a_rewrite_is_required_when_a_condition_fails_and_the_rounds_are_counted():
    stages = _timetravel(max_rounds=1)
    write, check = stages["write"], stages["check"]
    ann, ben, cat = (_worker(name) for name in ("ann", "ben", "cat"))
    _write(write, ann, "Dark clouds rolled in before noon that day.")
    with pytest.raises(CrowdError, match=r"story 1 \(rewrite\): not answered yet"):
        _judge(check, ben, fails=True, rewrite="")
    _judge(check, ben, fails=True, rewrite="A cold storm flooded the whole park by morning.")
    _judge(check, cat, fails=True, rewrite="Snow covered the park in the night.")
    assert check.items.count() == 2 and workflow_report(write)["waiting"] == 1
    chain = waiting_chains(write)[0]
    assert chain["output"] == {"counterfactual": "A cold storm flooded the whole park by morning."}
    decision = chain_decide(batch=write, origin=chain["origin"], decision="again")
    assert decision.round == 1 and check.items.get(key__endswith=":r2").content.fields["counterfactual"] == \
        "Snow covered the park in the night."


def test_each_stage_exports_as_label_studio_takes_it(tmp_path):
    """Each stage's batch exports as a Label Studio project asking what the stage's page asks.
    designs/timetravel.yaml shows the write stage's answer, `counterfactual`, which is also a scheme's name: the
    config names its object apart (Label Studio refuses a config whose names repeat), and a write-stage task, which
    has no such field yet, carries it empty (Label Studio refuses a task without a field its config names)."""
    from designs.export import export_batch
    from tests.designs.test_labelstudio import LS_PYTHON, _validated

    stages = _timetravel()
    write, check = stages["write"], stages["check"]
    _write(write, _worker("ann"), "Dark clouds rolled in before noon that day.")
    _judge(check, _worker("ben"), ending=["She packed umbrellas.", "Her friends stayed home.", "They ate inside."])
    exported = {}
    for name, batch in stages.items():
        written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / name,
                                                            formats=("labelstudio",))}
        config = written["config.xml"].read_text()
        names = re.findall(r' name="([^"]*)"', config)
        assert len(names) == len(set(names)), names
        assert '<Text name="counterfactual_text" value="$counterfactual"/>' in config
        # Each stage's config asks what its page asks: the check's conditions a single Choices a row.
        controls = re.findall(r'<(?:TextArea|Choices) name="([^"]*)"', config)
        assert controls == (["counterfactual"] if name == "write" else [
            "conditions_1", "conditions_2", "conditions_3", "rewrite", "edited_ending"]), controls
        # The rewrite and the edited ending are asked on the conditions, which Label Studio cannot say of a grid
        # (a condition there names one control): they are shown always there, and not required.
        left_out = written.get("left-out.txt")
        said = [line.rsplit(": ", 1)[-1] for line in left_out.read_text().splitlines()] if left_out else []
        assert said == ([] if name == "write" else ["rewrite, edited_ending"]), said
        assert re.findall(r'<\w+ name="(\w+)"[^>]* required="true"', config) == (
            ["counterfactual"] if name == "write" else ["conditions_1", "conditions_2", "conditions_3"])
        task = json.loads(written["tasks.json"].read_text())[0]
        exported[name] = (written, task)
    assert exported["write"][1]["data"]["counterfactual"] == ""
    # The ending, a list, reads a sentence a line (Label Studio's Text joins a list's entries with commas).
    assert exported["write"][1]["data"]["ending"] == "\n".join(STORY.fields["ending"])
    assert exported["check"][1]["data"]["counterfactual"] == "Dark clouds rolled in before noon that day."
    # The ending's three boxes are one TextArea taking three texts, named in order by its placeholder; the
    # checker's edited ending is its three texts.
    assert ('<TextArea name="edited_ending" toName="premise" rows="3" maxSubmissions="3" '
            'placeholder="One at a time: Sentence 3, Sentence 4, Sentence 5"/>') in exported["check"][0][
        "config.xml"].read_text()
    ending = [result["value"] for result in exported["check"][1]["annotations"][0]["result"]
              if result["from_name"] == "edited_ending"]
    assert ending == [{"text": ["She packed umbrellas.", "Her friends stayed home.", "They ate inside."]}]
    if not LS_PYTHON:
        pytest.skip("set CROWDSET_LS_PYTHON to a Python with label-studio-sdk")
    for name, (written, _) in exported.items():
        # The check's annotation is its three conditions, a result a row, and the edited ending.
        assert [(found["errors"], found["results"]) for found in _validated(written)] == [
            ([], 1 if name == "write" else 4)], name


def test_a_story_s_items_in_one_stage_are_told_apart_in_the_exports(tmp_path):
    """A check and the check of its rewrite are two items of one story in the check stage. The second is named
    `<story>#2`, so each has its own row in labels.csv, answers.csv says which one each answer is on, aggregation
    keeps them apart, and the Label Studio export has one task an item and imports again."""
    import csv

    from designs.export import batch_aggregate, export_batch
    from tests.designs.test_labelstudio import _imported_again

    stages = _timetravel()
    write, check = stages["write"], stages["check"]
    _write(write, _worker("ann"), "Dark clouds rolled in before noon that day.")
    _judge(check, _worker("ben"), fails=True, rewrite="A cold storm flooded the whole park by morning.")
    _judge(check, _worker("cat"), ending=["She packed umbrellas.", "Her friends stayed home.", "They ate inside."])
    first, again = check.items.order_by("pk")
    assert (first.content.own_id, again.content.own_id) == ("", "s1#2")
    assert write.items.get().content.own_id == ""  # a record with one item keeps its id
    checked = {path.name: path for path in export_batch(batch=check, out=tmp_path / "check",
                                                        formats=("csv", "labelstudio"))}
    with checked["labels.csv"].open(newline="") as labels:
        rows = {row["id"]: row for row in csv.DictReader(labels)}
    assert list(rows) == ["s1", "s1#2"]
    no, yes = (json.loads(rows[name]["conditions"]) for name in ("s1", "s1#2"))
    assert sorted(no.values()) == ["no", "yes", "yes"] and set(yes.values()) == {"yes"}
    # Each row says what its check judged: the counterfactual its item carries from the write stage, as given.
    assert [rows[name]["counterfactual"] for name in rows] == [
        "Dark clouds rolled in before noon that day.", "A cold storm flooded the whole park by morning."]
    written = {path.name: path for path in export_batch(batch=write, out=tmp_path / "write", formats=("jsonl",))}
    (story,) = [json.loads(line) for line in written["labels.jsonl"].read_text().splitlines()]
    assert story["counterfactual"] == ["Dark clouds rolled in before noon that day."]
    assert (story["conditions"], story["rewrite"], story["edited_ending"]) == (None, None, None)
    with checked["answers.csv"].open(newline="") as answers:
        on = {(row["item"], row["scheme"]) for row in csv.DictReader(answers)}
    assert on == {("s1", "conditions"), ("s1", "rewrite"), ("s1#2", "conditions"), ("s1#2", "edited_ending")}
    results, _ = batch_aggregate(check)
    assert set(results["conditions"].items) == {"s1", "s1#2"}
    tasks = json.loads(checked["tasks.json"].read_text())
    assert [task["data"]["id"] for task in tasks] == ["s1", "s1#2"]
    assert tasks[1]["data"]["counterfactual"] == "A cold storm flooded the whole park by morning."
    imported = _imported_again(checked)
    assert [found.id for found in imported.records] == ["s1", "s1#2"]
    # Label Studio has no named boxes: the placeholder names them, and the edited ending comes back a text a box.
    # Nor has it grids: the conditions' rows, a Choices each, come back as one grid.
    edited = next(scheme for scheme in imported.raw["annotation_schemes"] if scheme["name"] == "edited_ending")
    assert edited["labels"] == ["Sentence 3", "Sentence 4", "Sentence 5"]
    grid = next(scheme for scheme in imported.raw["annotation_schemes"] if scheme["name"] == "conditions")
    assert (grid["annotation_type"], len(grid["options"]), grid["description"]) == (
        "multirate", 3, "Does the new second sentence meet each condition?")
    assert [(entry.item, entry.answers) for entry in imported.given] == [
        ("s1", {"conditions": no, "rewrite": "A cold storm flooded the whole park by morning."}),
        ("s1#2", {"conditions": yes, "edited_ending": {
            "Sentence 3": "She packed umbrellas.", "Sentence 4": "Her friends stayed home.",
            "Sentence 5": "They ate inside."}})]
    assert not any("maxSubmissions" in entry for entry in imported.ignored), imported.ignored


def test_items_stored_before_they_were_named_are_named_by_the_migration():
    """designs/0017 names the second and later items of a record in a batch, in the order they came; the first, and
    every record with one item, keep their ids."""
    import importlib

    from django.apps import apps

    stages = _timetravel()
    write, check = stages["write"], stages["check"]
    _write(write, _worker("ann"), "Dark clouds rolled in before noon that day.")
    _judge(check, _worker("ben"), fails=True, rewrite="A cold storm flooded the whole park by morning.")
    _judge(check, _worker("cat"), fails=True, rewrite="Snow covered the park in the night.")
    items = list(check.items.order_by("pk"))
    assert [item.content.own_id for item in items] == ["", "s1#2", "s1#3"]
    for item in items:  # as a database made before the names held them
        Item.objects.filter(pk=item.pk).update(payload={key: value for key, value in item.payload.items()
                                                        if key != "own_id"})
    importlib.import_module("designs.migrations.0017_stage_copies_named").name_copies(apps, None)
    assert [item.content.own_id for item in check.items.order_by("pk")] == ["", "s1#2", "s1#3"]
    assert write.items.get().content.own_id == ""
