"""Label Studio projects: Label Studio's own text examples import and run, bad configs are refused at their line,
and a batch's answers go back as Label Studio tasks that label-studio-sdk's LabelInterface accepts (it lives in an
environment of its own: CROWDSET_LS_PYTHON names its interpreter; .ci/run makes it from requirements-labelstudio.txt),
against the config the export writes and against the project's own."""

import html
import io
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from designs.export import answer_rows, export_batch
from designs.items import SUGGESTED as SUGGESTED_KEY
from designs.items import Record
from designs.labelstudio import config_of, import_project
from designs.loader import load_text
from designs.models import batch_design
from designs.schemes import SCHEME_TYPES
from designs.schemes.number import NumberType
from designs.schemes.radio import RadioType
from designs.schemes.slider import SliderType
from designs.services import design_batch_create, design_version_save
from designs.task_type import record
from hits.models import Worker
from hits.services import assignment_approve, assignment_claim, assignment_submit, batch_publish
from hits.services.errors import CrowdError
from projects.models import Project

EXAMPLES = Path(__file__).parent / "labelstudio_examples"
LS_PYTHON = os.environ.get("CROWDSET_LS_PYTHON", "")
VALIDATE = """
import json, sys
from label_studio_sdk.label_interface import LabelInterface
found = []
for config in sys.argv[2:]:
    interface = LabelInterface(open(config).read())
    for task in json.load(open(sys.argv[1])):
        # validate_task checks the data; its own check of annotations is broken in 2.1.2 (called without one), so
        # each annotation is checked as the prediction it is shaped like.
        errors = [] if interface.validate_task({"data": task["data"]}) else ["the task's data does not fit"]
        for annotation in task["annotations"]:
            errors += interface.validate_prediction(annotation, return_errors=True)
        found.append({"config": config, "task": task["id"], "errors": errors,
                      "results": sum(len(annotation["result"]) for annotation in task["annotations"])})
print(json.dumps(found))
"""

# Label Studio's own converter (label-studio-sdk) writing its flat exports, JSON-MIN and CSV (one row an annotation),
# of tasks as two of its accounts annotated them (an export there names each annotation's user).
FLATTEN = """
import json, sys
from label_studio_sdk.converter import Converter
tasks, config, out, kind = sys.argv[1:]
data = json.load(open(tasks))
for task in data:
    for number, annotation in enumerate(task["annotations"], 1):
        annotation["completed_by"] = number
json.dump(data, open(out + ".json", "w"))
converter = Converter(config=open(config).read(), project_dir=None, download_resources=False)
if kind == "json-min":
    converter.convert_to_json_min(out + ".json", out, is_dir=False)
else:
    converter.convert_to_csv(out + ".json", out, is_dir=False, sep=",")
"""


def _validated(written: dict[str, Path], *configs: Path) -> list[dict]:
    """label-studio-sdk's check of an export's tasks against its config, then against each of `configs`: an entry
    (config, task, errors, results) a config and task."""
    checked = subprocess.run([LS_PYTHON, "-c", VALIDATE, str(written["tasks.json"]), str(written["config.xml"]),
                              *map(str, configs)], capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stderr[-2000:]
    return json.loads(checked.stdout)


def _imported_again(written: dict[str, Path]) -> Any:
    """An export's config and tasks imported here again (it must import)."""
    again = import_project(written["config.xml"].read_bytes(), name="config.xml",
                           tasks=written["tasks.json"].read_bytes(), tasks_name="tasks.json")
    assert again.ok, again.errors
    return again


def _check(config: Path, tasks: Path, capsys) -> dict:
    call_command("design", "import-labelstudio", str(config), "--tasks", str(tasks), "--check", "--json")
    return json.loads(capsys.readouterr().out)


def _published(config: Path, tasks: Path, *options: str) -> tuple[Project, Any, dict]:
    """The project `design import-labelstudio CONFIG --tasks TASKS --json` makes, its batch published, and the
    command's report line."""
    out = io.StringIO()
    call_command("design", "import-labelstudio", str(config), "--tasks", str(tasks), *options, "--json", stdout=out)
    line = json.loads(out.getvalue())
    project = Project.objects.get(pk=line["project"])
    return project, batch_publish(batch=project.batches.get()), line


def _phone_page(chromium, live_server, tmp_path: Path, config: str, tasks: list) -> tuple[Any, Any, Any]:
    """The study `design import-labelstudio` makes of `config` and `tasks`, published, and the page of its first HIT
    as the annotator ada meets it on a phone: (batch, browser context, page)."""
    from tests.designs.fixtures import hit_page, project_annotator
    from tests.test_accessibility import PHONE

    (tmp_path / "config.xml").write_text(config)
    (tmp_path / "tasks.json").write_text(json.dumps(tasks))
    project, batch, _ = _published(tmp_path / "config.xml", tmp_path / "tasks.json")
    project_annotator(project, "ada")
    return (batch, *hit_page(chromium, live_server, "ada", PHONE))


@pytest.mark.parametrize("example", sorted(path.name for path in EXAMPLES.iterdir() if path.is_dir()))
def test_label_studio_s_own_text_examples_import(example, capsys):
    found = _check(EXAMPLES / example / "config.xml", EXAMPLES / example / "tasks.json", capsys)
    assert found["ok"] and found["errors"] == [] and found["items"] == 1, found
    # The report's keys, and how many annotations came with the tasks when some did (the wheel's sample task of
    # question answering carries one).
    assert list(found) == ["config", "ok", "items", "schemes", "ignored", "errors"] + (
        ["annotations", "annotators"] if example in ("question-answering", "text-summarization") else [])
    # Each scheme the config became, by our type, with the Label Studio controls it came from.
    assert {scheme["type"] for scheme in found["schemes"]} <= set(SCHEME_TYPES.names())
    tags = {tag for scheme in found["schemes"] for tag in re.findall(r"<(\w+)>", scheme["from"])}
    assert tags <= {"Choices", "Labels", "TextArea", "Taxonomy", "Relations", "Pairwise", "Ranker", "Rating",
                    "ParagraphLabels", "HyperTextLabels"} and tags


def test_what_is_not_carried_over_is_named_by_tag_line_and_attribute(capsys):
    found = _check(EXAMPLES / "machine-translation" / "config.xml", EXAMPLES / "machine-translation" / "tasks.json",
                   capsys)
    assert "<TextArea name='spanish'> maxSubmissions='1' (line 8)" in found["ignored"]
    imported = import_project((EXAMPLES / "question-answering" / "config.xml").read_bytes(), name="qa.xml",
                              tasks=(EXAMPLES / "question-answering" / "tasks.json").read_bytes(),
                              tasks_name="tasks.json")
    assert imported.ok and imported.warnings == []
    # Its sample task's annotation is an answer of its own, named as the task's annotation (it names no annotator).
    assert [(given.item, given.annotator, given.answers["answer"][0]["start"]) for given in imported.given] == [
        ("1", "task 1, annotation 1", 423)]
    answer = imported.design.scheme("answer")
    assert answer.one_per_label and answer.unit == "words"  # maxUsage="1"; the passage's granularity="word"
    assert imported.design.items.text_key == "text" and imported.design.items.show_after == ["question"]


BAD = [
    ("<View>\n  <Text name='text' value='$text'>\n</View>\n", "config.xml:3: malformed XML: mismatched tag"),
    ("<View>\n<Text name='text' value='$body'/>\n<Choices name='c' toName='text'><Choice value='a'/>"
     "<Choice value='b'/></Choices>\n</View>",
     "tasks.json: task 1 (line 1): has no field 'body', which <Text name='text'> shows (config.xml:2: "
     "value=\"$body\"); its fields are text"),
    ("<View>\n<Text name='text' value='$text'/>\n<Choices name='c' toName='txt'><Choice value='a'/></Choices>\n"
     "</View>", "config.xml:3: toName='txt' names no object; the objects are text"),
    ("<View>\n<Text name='text' value='$text'/>\n<TextArea name='c' toName='text'/>\n<TextArea name='c' "
     "toName='text'/>\n</View>", "config.xml:4: the name 'c' is used already on line 3; names must differ"),
    ("<View>\n<Image name='img' value='$image'/>\n<Text name='text' value='$text'/>\n</View>",
     "config.xml:2: <Image> is a media tag; this platform shows text only"),
    ("<View>\n<Text name='text' value='$text'/>\n<Choices name='c' toName='text' value='$options' "
     "choice='multiple'/>\n</View>", "tasks.json: task 1 (line 1): its options is not a list of choices, which "
                                     "<Choices name='c'> (config.xml:3) shows"),
    ("<Text name='text' value='$text'/>", "config.xml:1: the config's top tag is <Text>"),
    ("<!DOCTYPE x [<!ENTITY a 'b'>]><View/>", "config.xml: refused: DTDForbidden"),
    ("<?xml version='1.0' encoding='Shift_JIS'?>\n<View/>", "config.xml:1: its XML declaration names an encoding this "
                                                            "reader cannot read (multi-byte encodings are not "
                                                            "supported); save the config as UTF-8"),
    ("<View>\n<Text name='text' value='$text' valueType='url'/>\n<Choices name='c' toName='text'><Choice value='a'/>"
     "<Choice value='b'/></Choices>\n</View>", "config.xml:2: <Text valueType=\"url\"> shows the text at the address "
                                            "each task gives, which is not fetched here: put the text itself in the "
                                            "tasks and drop valueType"),
    ("<View>\n<Text name='text' value='$text'/>\n<Header value='About: $topic'/>\n<Choices name='c' toName='text'>"
     "<Choice value='a'/></Choices>\n</View>", "config.xml:3: <Header> shows 'About: $topic': a task field inside "
                                              "other words, which is not built here; show the field on its own "
                                              "(value=\"$topic\")"),
    # Said plainly (it was "annotation_schemes: List should have at least 1 item after validation, not 0").
    ("<View>\n<Text name='text' value='$text'/>\n</View>", "config.xml:1: the config has no control, so it asks "
                                                         "nothing: add one naming an object by toName (one of "
                                                         "Choices, DateTime,"),
    # Views nested a thousand deep (reading them recursed past Python's limit: a server error).
    ("<View>\n" + "<View>" * 1000 + "</View>" * 1000 + "\n</View>", "config.xml:2: <View> is 61 tags deep; a "
                                                                     "labeling config nests a few Views, at most 60"),
    # A pair of which one object shows fixed words, not a task field (it was a KeyError).
    ("<View>\n<Pairwise name='pw' toName='a,b'/>\n<Text name='a' value='$left'/>\n<Text name='b' value='x,y'/>\n"
     "</View>", "config.xml:2: <Pairwise> compares two objects that show task fields: toName=\"left,right\""),
]


@pytest.mark.parametrize("config, said", BAD, ids=["xml", "field", "toname", "duplicate", "media", "task-choices",
                                                   "top", "dtd", "encoding", "url", "field-in-words", "no-control",
                                                   "deep", "pair-words"])
def test_bad_configs_are_refused_where_they_are_wrong(config, said, tmp_path):
    found = import_project(config.encode(), name="config.xml", tasks=b'[{"data": {"text": "Hello."}}]',
                           tasks_name="tasks.json")
    assert not found.ok and found.errors
    assert any(error.startswith(said) for error in found.errors), found.errors


@pytest.mark.parametrize("key", ["annotations", "predictions", "completions"])
def test_a_task_whose_annotations_are_not_a_list_is_refused_by_task(key):
    """A task's annotations or predictions that are not a list (a hand-edited export: true, an object) are
    refused by task, not read as none and not a crash."""
    tasks = json.dumps([{"data": {"text": "Hi."}}, {"data": {"text": "Bye."}, key: True}]).encode()
    found = import_project(b"<View>\n<Text name='text' value='$text'/>\n<Choices name='c' toName='text'>"
                           b"<Choice value='a'/></Choices>\n</View>", name="config.xml", tasks=tasks,
                           tasks_name="tasks.json")
    assert found.errors == [f"tasks.json: task 2 (line 1): its {key} are a bool; Label Studio gives a list of them"]


def test_a_result_that_is_no_label_studio_result_is_named_and_the_others_read():
    """In a hand-edited export, a result whose value is null or whose from_name is a list is named by task,
    annotation and place, and left out (they crashed the import); the annotation's other results are read."""
    config = (b"<View>\n<Text name='text' value='$text'/>\n<Choices name='c' toName='text'><Choice value='a'/>"
              b"<Choice value='b'/></Choices>\n<TextArea name='why' toName='text'/>\n</View>")
    results = [{"from_name": "c", "to_name": "text", "type": "choices", "value": None},
               {"from_name": ["why"], "to_name": "text", "type": "textarea", "value": {"text": ["no"]}},
               {"from_name": "why", "to_name": "text", "type": "textarea", "value": {"text": ["because"]}}]
    found = import_project(config, name="config.xml", tasks=json.dumps(
        [{"data": {"text": "Hi."}, "annotations": [{"completed_by": 3, "result": results}]}]).encode(),
        tasks_name="tasks.json")
    assert found.ok, found.errors
    assert [(given.annotator, given.answers) for given in found.given] == [("user 3", {"why": "because"})]
    assert found.warnings == [f"tasks.json: task 1 (line 1): annotation 1's result {number} is not a Label Studio "
                              f"result (an object naming its control in from_name, its value an object); left out"
                              for number in (1, 2)]


def test_an_object_naming_a_field_inside_its_words_is_refused_once_and_a_price_is_words():
    """Label Studio fills "$title" into "Post: $title" on each task; shown apart here, the words would be lost, so
    the object is refused at its line (and the missing text is not said again). A dollar amount names no field."""
    found = import_project(b"<View>\n<Text name='post' value='Post: $text'/>\n<Choices name='c' toName='post'>"
                           b"<Choice value='a'/></Choices>\n</View>", name="config.xml",
                           tasks=b'[{"data": {"text": "Hi."}}]', tasks_name="tasks.json")
    assert found.errors == ["config.xml:2: <Text> shows 'Post: $text': a task field inside other words, which is not "
                            "built here; show the field on its own (value=\"$text\") and put the words in a <Header> "
                            "before it"]
    priced = import_project(b"<View>\n<Text name='text' value='$text'/>\n<TextArea name='why' toName='text'/>\n"
                            b"<Header value='Each answer earns $5.'/>\n</View>", name="config.xml",
                            tasks=b'[{"data": {"text": "Hi."}}]', tasks_name="tasks.json")
    assert priced.ok, priced.errors
    assert priced.design.instructions == "Each answer earns $5."


def test_a_media_object_is_refused_once_and_a_chat_says_what_it_asks():
    """The controls about a refused object are not refused again, nor is the missing text said again; a <Chat>
    (Label Studio's conversation the annotator writes) is named for what it is, not as media."""
    image = import_project(b"<View>\n<Image name='img' value='$image'/>\n<Choices name='c' toName='img'>"
                           b"<Choice value='cat'/></Choices>\n</View>", name="config.xml",
                           tasks=b'[{"data": {"image": "a.png"}}]', tasks_name="tasks.json")
    assert image.errors == ["config.xml:2: <Image> is a media tag; this platform shows text only (Text, HyperText, "
                            "Paragraphs, Header, Table, List)"]
    chat = import_project(b"<View>\n<Text name='text' value='$text'/>\n<Chat name='chat' value='$chat' "
                          b"minMessages='2'/>\n<TextArea name='why' toName='chat'/>\n</View>", name="config.xml",
                          tasks=b'[{"data": {"text": "Hi.", "chat": []}}]', tasks_name="tasks.json")
    assert chat.errors == ["config.xml:3: <Chat> has the annotator write the conversation (with a model's replies "
                           "where it names an llm), which is not built here; a conversation already had is shown "
                           "with <Paragraphs>"]
    # Label Studio's time-series templates: the series, its channels and the labels on it are all media.
    series = import_project(b"<View>\n<TimeSeriesLabels name='label' toName='ts'><Label value='Run'/>"
                            b"</TimeSeriesLabels>\n<TimeSeries name='ts' value='$csv' valueType='url'>\n"
                            b"<Channel column='x'/>\n</TimeSeries>\n</View>", name="config.xml",
                            tasks=b'[{"data": {"csv": "a.csv"}}]', tasks_name="tasks.json")
    assert [error.split(" is a media tag")[0] for error in series.errors] == [
        "config.xml:2: <TimeSeriesLabels>", "config.xml:3: <TimeSeries>", "config.xml:4: <Channel>"]


def test_a_choice_given_twice_is_shown_once_and_said():
    """Label Studio draws a repeated <Choice> twice and stores the same answer from either (its document-retrieval
    template has one): shown once here, with a warning naming both lines."""
    found = import_project(b"<View>\n<Text name='text' value='$text'/>\n<Choices name='c' toName='text'>\n"
                           b"<Choice value='One'/>\n<Choice value='Two'/>\n<Choice value='Two'/>\n</Choices>\n"
                           b"</View>", name="config.xml", tasks=b'[{"data": {"text": "Hello."}}]',
                           tasks_name="tasks.json")
    assert found.ok, found.errors
    assert [label.name for label in found.design.scheme("c").labels] == ["One", "Two"]
    assert found.warnings == ["<Choice value='Two'> (line 6) repeats line 5's; it is shown once, the same answer "
                              "either way"]


@pytest.mark.django_db
def test_a_bad_import_writes_nothing_and_exits_1(tmp_path, capsys):
    config = tmp_path / "c.xml"
    config.write_text("<View><Text name='text' value='$text'/><Video name='v' value='$v'/></View>")
    tasks = tmp_path / "t.json"
    tasks.write_text('[{"data": {"text": "x", "v": "y"}}]')
    before = Project.objects.count()
    with pytest.raises(SystemExit) as exited:
        call_command("design", "import-labelstudio", str(config), "--tasks", str(tasks))
    assert exited.value.code == 1 and Project.objects.count() == before
    assert "NOT OK" in capsys.readouterr().out


ANSWERS = {  # example -> each of two annotators' form fields by scheme place (the text is the example task's)
    "named-entity-recognition": [{"0": json.dumps([[0, 12, "PER"], [25, 40, "PER"]])},
                                 {"0": json.dumps([[0, 12, "PER"], [44, 50, "LOC"]])}],
    "relation-extraction": [{"1": json.dumps([[0, 9, "Organization"], [25, 35, "Person"]]),
                             "0": json.dumps([["org:founded_by", [0, 9, "Organization"], [25, 35, "Person"]]])},
                            {"1": json.dumps([[0, 9, "Organization"]])}],
    "content-moderation": [{"0-1": "1", "0-5": "1", "1": "a threat"}, {"0-4": "1"}],
    "text-classification": [{"0": "Positive"}, {"0": "Neutral"}],
    "taxonomy": [{"0-3": "1", "0-4": "1"}, {"0-1": "1"}],
    "pairwise-classification": [{"0": "left"}, {"0": "right"}],
    "llm-ranker": [{"0": json.dumps({"relevant_results": ["llama_model", "turtle_mind"], "biased_results": [
        "cobra_ai"]})}, {"0": json.dumps({"biased_results": ["wold_processor"]})}],
    "coreference-resolution-and-entity-linking": [{"0": json.dumps([[0, 4, "Noun"], [24, 27, "Pronoun"]])},
                                                  {"0": json.dumps([[12, 15, "Noun"], [35, 38, "Pronoun"]])}],
    # Spans inside the dialogue's turns (shown one a line) and the intent of the whole.
    "intent-classification-and-slot-filling": [
        {"0": json.dumps([[39, 45, "Location"], [49, 55, "Datetime"]]), "1": "Customer request"},
        {"0": json.dumps([[118, 128, "Person"], [108, 112, "Quantity"]]), "1": "Greeting"}],
    "response-generation": [{"0": "It is moved to Friday."}, {"0": "Which day would you like instead?"}],
    "response-selection": [{"0": "One"}, {"0": "Three"}],
    "tabular-data": [{"0": "Correct"}, {"0": "Incorrect"}],
    "html-entity-recognition": [{"0": json.dumps([[0, 13, "Title"], [17, 24, "Author"]])},
                                {"0": json.dumps([[25, 52, "Body"]])}],
    "document-retrieval": [{"0-0": "1", "0-1": "1"}, {"0-1": "1"}],  # its repeated <Choice value="Two"> shown once
    "human-feedback-collection": [{"0": "left"}, {"0": "right"}],
    "response-grading": [{"0": "4"}, {"0": "2"}],
    "supervised-llm": [{"0": "def even_sum(xs): return sum(x for x in xs if x % 2 == 0)"}, {"0": "sum(filter(even))"}],
}


@pytest.mark.django_db
@pytest.mark.parametrize("example", sorted(ANSWERS))
def test_answers_go_back_as_tasks_label_studio_accepts(example, tmp_path, capsys):
    _, batch, _ = _published(EXAMPLES / example / "config.xml", EXAMPLES / example / "tasks.json")
    for number, given in enumerate(ANSWERS[example]):
        worker = Worker.objects.create(provider="inhouse", external_id=f"w{number}")
        assignment = assignment_claim(batch=batch, worker=worker)
        item = assignment.hit.ordered_items()[0]
        assignment_submit(assignment=assignment, worker=worker,
                          raw_answers={f"a-{item.pk}-{place}": value for place, value in given.items()})
    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "out", formats=("labelstudio",))}
    tasks = json.loads(written["tasks.json"].read_text())
    assert [len(task["annotations"]) for task in tasks] == [2]
    if example == "intent-classification-and-slot-filling":
        # A dialogue goes back as its turns, and a span in it as Label Studio's: a turn and offsets in its words.
        assert tasks[0]["data"]["humanMachineDialogue"][0] == {
            "author": "Human", "text": "Hi, I need to move my flight to Berlin on Friday."}
        assert tasks[0]["annotations"][0]["result"][0] == {
            "id": "entity_slot-1", "from_name": "entity_slot", "to_name": "dialogue", "type": "paragraphlabels",
            "value": {"start": "0", "end": "0", "startOffset": 32, "endOffset": 38, "text": "Berlin",
                      "paragraphlabels": ["Location"]}}
        assert '<Paragraphs name="dialogue" value="$humanMachineDialogue" layout="dialogue" nameKey="author" ' \
               'textKey="text"/>' in written["config.xml"].read_text()
    if example == "html-entity-recognition":
        # HTML goes back as its markup, and a span in it as Label Studio's: the XPaths of its text nodes and offsets.
        assert tasks[0]["data"]["html"].startswith("<h1>Cheap flights</h1>")
        assert [result["value"] for result in tasks[0]["annotations"][0]["result"]] == [
            {"start": "/h1[1]/text()[1]", "end": "/h1[1]/text()[1]", "startOffset": 0, "endOffset": 13,
             "text": "Cheap flights", "hypertextlabels": ["Title"]},
            {"start": "/p[1]/b[1]/text()[1]", "end": "/p[1]/b[1]/text()[1]", "startOffset": 0, "endOffset": 7,
             "text": "Ben Ott", "hypertextlabels": ["Author"]}]
    # Label Studio refuses a completed_by naming none of its accounts: who gave each is in the task's meta, as
    # pseudonyms (no account's id goes out).
    assert tasks[0]["meta"] == {"annotators": ["W1", "W2"]}
    assert all("completed_by" not in annotation for annotation in tasks[0]["annotations"])
    if not LS_PYTHON:
        if os.environ.get("CROWDSET_REQUIRE_LS"):
            pytest.fail("CROWDSET_REQUIRE_LS is set but CROWDSET_LS_PYTHON names no interpreter with label-studio-sdk")
        pytest.skip("set CROWDSET_LS_PYTHON to a Python with label-studio-sdk (pip install -r "
                    "requirements-labelstudio.txt)")
    found = _validated(written, EXAMPLES / example / "config.xml")
    assert [entry["errors"] for entry in found] == [[], []], found  # ours and the project's own config
    assert all(entry["results"] >= 2 for entry in found)
    # The exported project imports again as the same study over the same items.
    again = _imported_again(written)
    first = import_project((EXAMPLES / example / "config.xml").read_bytes(), name="c.xml",
                           tasks=(EXAMPLES / example / "tasks.json").read_bytes(), tasks_name="t.json")
    assert [(scheme.name, scheme.annotation_type) for scheme in again.design.annotation_schemes] == [
        (scheme.name, scheme.annotation_type) for scheme in first.design.annotation_schemes]
    assert [record.text for record in again.records] == [record.text for record in first.records]
    # ... and each person's answers come back as theirs: the annotations import as the answers of W1 and W2.
    given: dict[tuple, dict] = {}
    for row in answer_rows(batch):
        given.setdefault((row["item"], row["annotator"]), {})[row["scheme"]] = row["value"]
    assert {(entry.item, entry.annotator): entry.answers for entry in again.given} == given
    assert len(given) == 2 and again.as_json()["annotations"] == 2 and again.as_json()["annotators"] == 2
    # Label Studio's flat exports of those annotations (JSON-MIN, CSV) import as the same answers, each person's as
    # theirs, but for the relations, which those exports leave out (and the import says so).
    relations = {scheme.name for scheme in again.design.annotation_schemes if scheme.annotation_type == "span_link"}
    by_person = {entry.annotator: {name: value for name, value in entry.answers.items() if name not in relations}
                 for entry in again.given}
    for kind in ("json-min", "csv"):
        out = tmp_path / kind
        converted = subprocess.run([LS_PYTHON, "-c", FLATTEN, str(written["tasks.json"]), str(written["config.xml"]),
                                    str(out), kind], capture_output=True, text=True, timeout=300)
        assert converted.returncode == 0, converted.stderr[-2000:]
        flat = out / ("result.json" if kind == "json-min" else "result.csv")
        found = import_project(written["config.xml"].read_bytes(), name="config.xml", tasks=flat.read_bytes(),
                               tasks_name=flat.name)
        assert found.ok, found.errors
        assert [record.text for record in found.records] == [record.text for record in first.records]
        assert {entry.annotator: entry.answers for entry in found.given} == {
            f"user {number}": by_person[name] for number, name in enumerate(("W1", "W2"), 1)}, kind
        assert any("JSON-MIN or CSV export" in note for note in found.notes)
        assert any("carries no relations" in note for note in found.notes) == bool(relations)


@pytest.mark.django_db
def test_a_potato_card_sort_goes_to_label_studio_as_a_ranker_with_buckets(tmp_path, capsys):
    """A closed card sort (Potato's, imported) goes out as Label Studio's Ranker with a Bucket per group over a List
    of the item's cards; label-studio-sdk accepts the tasks and their sorts, and the export imports again as a
    sort into the same buckets, each person's as theirs."""
    from tests.designs.fixtures import potato_project

    project = potato_project(Path(__file__).parent / "potato_side_by_side" / "cards" / "config.yaml", capsys)
    batch = batch_publish(batch=project.batches.get())
    sorts = [{"Must have": ["Sync", "Search"], "Nice to have": [], "Not needed": ["Stickers"]},
             {"Must have": ["Search"], "Nice to have": ["Dark mode", "Sync"], "Not needed": []}]
    for number, given in enumerate(sorts):  # k1's sorts; k2 (Transfers, Themes) left unsorted by both
        worker = Worker.objects.create(provider="inhouse", external_id=f"w{number}")
        assignment = assignment_claim(batch=batch, worker=worker)
        item = next(item for item in assignment.hit.ordered_items() if "Search" in json.dumps(item.payload))
        assignment_submit(assignment=assignment, worker=worker, raw_answers={f"a-{item.pk}-0": json.dumps(given)})
    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "out", formats=("labelstudio",))}
    config = written["config.xml"].read_text()
    assert '<List name="features" value="$features"/>' in config
    assert ('<Ranker name="sort" toName="features"><Bucket name="Must have" title="Must have"/><Bucket name="Nice '
            'to have" title="Nice to have"/><Bucket name="Not needed" title="Not needed"/></Ranker>') in config
    tasks = json.loads(written["tasks.json"].read_text())
    first = next(task for task in tasks if task["data"]["features"][0]["id"] == "Search")
    assert [annotation["result"][0]["value"] for annotation in first["annotations"]] == [
        {"ranker": {"Must have": ["Sync", "Search"], "Not needed": ["Stickers"]}},
        {"ranker": {"Must have": ["Search"], "Nice to have": ["Dark mode", "Sync"]}}]
    if not LS_PYTHON:
        pytest.skip("set CROWDSET_LS_PYTHON to a Python with label-studio-sdk")
    assert [entry["errors"] for entry in _validated(written)] == [[] for _ in tasks]
    again = _imported_again(written)
    assert [entry.answers["sort"] for entry in again.given if entry.item == "k1"] == [
        {"Must have": ["Sync", "Search"], "Not needed": ["Stickers"]},
        {"Must have": ["Search"], "Nice to have": ["Dark mode", "Sync"]}]


STUDY = """<View>
  <Header value="Does the post say something that did not happen?"/>
  <Text name="post" value="$text"/>
  <HyperText name="source" value="$html"/>
  <Paragraphs name="chat" value="$dialogue" layout="dialogue"/>
  <Choices name="counterfactual" toName="post" choice="single" required="true" showInline="true">
    <Choice value="yes" hotkey="y"/><Choice value="no" hotkey="n"/>
  </Choices>
  <Labels name="parts" toName="post">
    <Label value="antecedent" background="orange"/><Label value="consequent"/>
  </Labels>
  <Choices name="sure" toName="post" perRegion="true">
    <Choice value="sure"/><Choice value="unsure"/>
  </Choices>
  <Header value="How confident are you?"/>
  <Rating name="confidence" toName="post" maxRating="4"/>
  <Number name="words" toName="post" min="0" max="50"/>
  <TextArea name="why" toName="post" rows="2" maxSubmissions="1"
            visibleWhen="choice-selected" whenTagName="counterfactual" whenChoiceValue="no"/>
</View>
"""
TASKS = [{"id": 11, "data": {"text": "Had it rained, we would have stayed in.",
                             "html": "<p>From <b>a forum</b></p><script>alert(1)</script>",
                             "dialogue": [{"author": "Ann", "text": "Hi"}, {"author": "Bo", "text": "Hello"}]}}]


def test_a_condition_goes_back_as_visible_when_where_label_studio_can_say_it():
    """An imported visibleWhen goes back as it came. A condition Label Studio cannot state (a greater-than, or one on
    a scheme it has no control for) leaves the control shown always and not required there: a required one would
    ask for an answer the page here does not, and refuse the annotation without it."""
    found = import_project(STUDY.encode(), name="study.xml", tasks=json.dumps(TASKS).encode(),
                           tasks_name="tasks.json")
    config, _, _, always = config_of(found.design)
    # In a View: Label Studio 1.23.2 honours visibleWhen there, and not on a TextArea.
    assert '<View visibleWhen="choice-selected" whenTagName="counterfactual" whenChoiceValue="no"><TextArea ' \
           'name="why" toName="post" rows="2"/></View>' in config and always == []
    again = import_project(config.encode(), name="config.xml", tasks=json.dumps(TASKS).encode(),
                           tasks_name="tasks.json")
    assert again.design.scheme("why").display_logic == found.design.scheme("why").display_logic
    # Written by hand in a View, as Label Studio's docs ask for a TextArea: read the same (it was dropped, and the
    # box asked always); a View around no control is named in the report.
    wrapped = STUDY.replace('<TextArea name="why" toName="post" rows="2" maxSubmissions="1"\n            visibleWhen='
                            '"choice-selected" whenTagName="counterfactual" whenChoiceValue="no"/>',
                            '<View visibleWhen="choice-selected" whenTagName="counterfactual" whenChoiceValue="no">'
                            '<Header value="Why not?"/><TextArea name="why" toName="post"/></View>\n'
                            '<View visibleWhen="choice-selected" whenTagName="counterfactual"><Text name="note" '
                            'value="Thanks"/></View>')
    assert wrapped != STUDY
    read = import_project(wrapped.encode(), name="study.xml", tasks=json.dumps(TASKS).encode(),
                          tasks_name="tasks.json")
    assert read.ok and read.design.scheme("why").display_logic == found.design.scheme("why").display_logic
    assert read.design.scheme("why").description == "Why not?"
    assert any(line.startswith("<View> visibleWhen='choice-selected' (line 19): what it shows is shown always")
               for line in read.ignored), read.ignored
    # A question's Header goes with its control; a Text beside a control is shown always, and the report says so.
    assert not any("(line 18)" in line for line in read.ignored), read.ignored
    beside = wrapped.replace('<Header value="Why not?"/>', '<Text name="hint" value="Say why"/>')
    said = import_project(beside.encode(), name="study.xml", tasks=json.dumps(TASKS).encode(),
                          tasks_name="tasks.json").ignored
    assert "<View> visibleWhen='choice-selected' (line 18): what it shows is shown always (its controls take the " \
           "condition)" in said, said
    design = load_text("title: t\nannotation_schemes:\n"
                       "  - {annotation_type: likert, name: score, size: 5}\n"
                       "  - {annotation_type: radio, name: sure, labels: ['yes', 'no']}\n"
                       "  - annotation_type: text\n    name: why\n    label_requirement: {required: true}\n"
                       "    display_logic: {show_when: [{schema: score, operator: lt, value: 3}]}\n"
                       "  - annotation_type: text\n    name: doubt\n    label_requirement: {required: true}\n"
                       "    display_logic: {show_when: [{schema: sure, operator: answered}]}\n")
    config, _, _, always = config_of(design)
    assert '<TextArea name="why" toName="text" rows="3"/>' in config and always == ["why"]
    assert '<View visibleWhen="choice-selected" whenTagName="sure"><TextArea name="doubt" toName="text" rows="3" ' \
           'required="true"/></View>' in config


def test_a_study_s_controls_carry_their_questions_keys_picks_and_conditions():
    found = import_project(STUDY.encode(), name="study.xml", tasks=json.dumps(TASKS).encode(),
                           tasks_name="tasks.json")
    assert found.ok, found.errors
    design = found.design
    assert design.instructions == "Does the post say something that did not happen?"
    assert [scheme.name for scheme in design.annotation_schemes] == [
        "counterfactual", "parts", "confidence", "words", "why"]  # sure is a pick of each span
    counterfactual = design.scheme("counterfactual")
    assert counterfactual.required and counterfactual.horizontal and counterfactual.keys() == {"y": "yes", "n": "no"}
    parts = design.scheme("parts")
    assert parts.attribute.name == "sure" and parts.attribute.labels == ["sure", "unsure"]
    assert parts.unit == "characters" and parts.labels[0].color == "orange"
    assert parts.keys() == {"1": "antecedent", "2": "consequent"}  # no hotkeys: numbered, as Label Studio does
    confidence = design.scheme("confidence")
    assert confidence.description == "How confident are you?" and confidence.size == 4
    assert (design.scheme("words").min, design.scheme("words").max) == (0, 50)
    why = design.scheme("why")
    assert why.display_logic.show_when[0].model_dump(by_alias=True) == {
        "schema": "counterfactual", "operator": "equals", "value": "no"}
    assert "<TextArea name='why'> maxSubmissions='1' (line 18)" in found.ignored
    record = found.records[0]
    assert record.id == "11" and record.text == "Had it rained, we would have stayed in."
    # HyperText is shown as its text (never as markup), a dialogue one turn a line.
    assert record.fields["html"] == "From a forum" and record.fields["dialogue"] == "Ann: Hi\nBo: Hello"
    assert design.items.show == [] and design.items.show_after == ["html", "dialogue"]


@pytest.mark.django_db
def test_an_imported_study_runs_on_its_page_by_keyboard_on_a_phone(chromium, live_server, tmp_path):
    from tests.browser import axe_clean, screenshot
    from tests.designs.fixtures import hit_page, project_annotator
    from tests.test_accessibility import DESKTOP, PHONE

    (tmp_path / "study.xml").write_text(STUDY)
    (tmp_path / "tasks.json").write_text(json.dumps(TASKS))
    project, _, _ = _published(tmp_path / "study.xml", tmp_path / "tasks.json")
    for device, name, person in ((DESKTOP, "labelstudio-study", "ada"), (PHONE, "labelstudio-study-phone", "bea")):
        project_annotator(project, person)
        context, page = hit_page(chromium, live_server, person, device)
        item = page.locator(".task-item").first
        # The text comes before the questions; the page binds Label Studio's hotkeys.
        assert item.locator(".design-text").inner_text() == "Had it rained, we would have stayed in."
        assert item.locator("[data-scheme=counterfactual] [aria-keyshortcuts]").evaluate_all(
            "els => els.map(e => e.getAttribute('aria-keyshortcuts'))") == ["y", "n"]
        assert item.locator("[data-scheme=why]").is_hidden()
        page.keyboard.press("n")
        assert item.locator("[data-scheme=why]").is_visible()  # shown when counterfactual is no
        screenshot(page, name)
        axe_clean(page, name)
        context.close()


@pytest.mark.django_db
@pytest.mark.parametrize("device_name", ["desktop", "phone"])
def test_a_label_studio_project_is_checked_and_imported_in_the_browser(device_name, chromium, live_server, tmp_path):
    from django.contrib.auth.models import User

    from accounts import roles
    from tests.browser import axe_clean, log_in
    from tests.test_accessibility import DESKTOP, PHONE

    boss = User.objects.create_user("boss", password="pass-word-1")
    boss.groups.add(roles.group(roles.ORGANIZER))
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps([{**ANNOTATED[0], "predictions": PREDICTED[0]["predictions"]}, *ANNOTATED[1:]]))
    context = chromium.new_context(**(DESKTOP if device_name == "desktop" else PHONE))
    page = context.new_page()
    log_in(page, live_server, "boss", "pass-word-1", "/projects/designs/new/")
    page.fill("#labelstudio-config", STUDY)
    page.fill("#labelstudio-title", "Counterfactual posts")
    page.set_input_files("#labelstudio-tasks", str(tasks))
    page.click("#labelstudio-check")
    report = page.wait_for_selector("#labelstudio-report .potato-report")
    text = report.inner_text()
    assert "config.xml: ready" in text and ("2 items; schemes: counterfactual (radio, from <Choices>), parts (span, "
                                            "from <Labels> parts, <Choices> sure)") in text
    assert "Not carried over: <TextArea name='why'> maxSubmissions='1' (line 18)" in text
    assert "4 annotations by 2 annotators came with the tasks: kept as their answers beside the crowd's" in text
    assert report.query_selector(".report-predictions").inner_text().startswith(
        "2 predictions by cf-tagger-v2, weak-v1 came with the tasks: each item starts with the best scored")
    assert not Project.objects.exists()  # a check makes nothing
    report.scroll_into_view_if_needed()
    axe_clean(page, f"labelstudio-check-{device_name}", docs="labelstudio-check" if device_name == "desktop" else None)
    page.click("#labelstudio-import")
    page.wait_for_url(f"{live_server.url}/projects/counterfactual-posts/")
    batch = Project.objects.get().batches.get()
    assert batch.items.count() == 2 and batch.outside_answers.count() == 4 + 2
    context.close()


@pytest.mark.parametrize("name, data", [
    ("tasks.json", b'[{"text": "One."}, {"text": "Two."}]'),  # a list of data dicts
    ("tasks.jsonl", b'{"data": {"text": "One."}}\n{"id": 9, "data": {"text": "Two."}}\n'),
    ("tasks.csv", b'text\nOne.\n"Two."\n'),
    ("tasks.tsv", b'text\tnote\nOne.\tx\nTwo.\ty\n'),
])
def test_tasks_are_read_in_each_form_label_studio_takes(name, data):
    config = b"<View><Text name='text' value='$text'/><Choices name='c' toName='text'><Choice value='a'/>" \
             b"<Choice value='b'/></Choices></View>"
    found = import_project(config, name="c.xml", tasks=data, tasks_name=name)
    assert found.ok, found.errors
    assert [record.text for record in found.records] == ["One.", "Two."]
    assert len({record.id for record in found.records}) == 2


def test_tasks_given_as_xml_are_refused_with_the_forms_label_studio_takes():
    """Only a design's items may be a COPA or RTE corpus in XML; tasks named .xml are refused saying the four forms
    of tasks, not read as a corpus."""
    config = b"<View><Text name='text' value='$text'/><TextArea name='c' toName='text'/></View>"
    found = import_project(config, name="c.xml", tasks=b"<copa-corpus/>", tasks_name="tasks.xml")
    assert found.errors == ["tasks.xml: cannot tell the format from the name; use .json, .jsonl, .csv or .tsv"]


def test_a_task_that_is_not_an_object_or_repeats_an_id_is_named():
    config = b"<View><Text name='text' value='$text'/><TextArea name='c' toName='text'/></View>"
    found = import_project(config, name="c.xml", tasks=b'[{"id": 1, "data": {"text": "a"}}, "b"]',
                           tasks_name="t.json")
    assert found.errors == ["t.json: task 2 (line 1): is a str; a task is an object with its data"]
    found = import_project(config, name="c.xml", tasks=b'{"data": {"id": "x", "text": "a"}}\n'
                                                        b'{"data": {"id": "x", "text": "b"}}\n', tasks_name="t.jsonl")
    assert found.errors == ["t.jsonl: task 2 (line 2): the id 'x' is task 1's too; ids must be unique"]


PREDICTED = [{**TASKS[0], "predictions": [
    {"model_version": "weak-v1", "score": 0.2, "result": [
        {"from_name": "counterfactual", "to_name": "post", "type": "choices", "value": {"choices": ["no"]}}]},
    {"model_version": "cf-tagger-v2", "score": 0.91, "result": [
        {"from_name": "counterfactual", "to_name": "post", "type": "choices", "value": {"choices": ["yes"]}},
        {"id": "r1", "from_name": "parts", "to_name": "post", "type": "labels",
         "value": {"start": 0, "end": 14, "text": "Had it rained", "labels": ["antecedent"]}},
        {"id": "r1", "from_name": "sure", "to_name": "post", "type": "choices",
         "value": {"start": 0, "end": 14, "choices": ["sure"]}},
        {"from_name": "confidence", "to_name": "post", "type": "rating", "value": {"rating": 9}},
        {"from_name": "words", "to_name": "post", "type": "number", "value": {"number": 3}}]}]}]


def test_a_task_s_best_prediction_is_the_item_s_suggestion_kept_apart_from_answers():
    from designs.items import SUGGESTED

    found = import_project(STUDY.encode(), name="study.xml", tasks=json.dumps(PREDICTED).encode(),
                           tasks_name="tasks.json")
    assert found.ok, found.errors
    suggested = found.records[0].fields[SUGGESTED]
    assert suggested["model"] == "cf-tagger-v2" and suggested["score"] == 0.91  # the best scored
    assert suggested["answers"] == {
        "parts": [{"start": 0, "end": 14, "label": "antecedent", "text": "Had it rained,", "sure": "sure"}],
        "counterfactual": "yes", "words": 3}
    # A rating of 9 on a 4-point scale does not fit: named, and left out.
    assert any(warning.startswith("tasks.json: task 1 (line 1): the prediction's confidence does not fit")
               for warning in found.warnings)
    # Each model's prediction is that model's answers, its score their confidence (from 0 to 1).
    assert [(given.annotator, given.answers, given.meta) for given in found.predicted] == [
        ("weak-v1", {"counterfactual": "no"}, {"score": 0.2, "confidence": {"counterfactual": 0.2}}),
        ("cf-tagger-v2", suggested["answers"],
         {"score": 0.91, "confidence": dict.fromkeys(suggested["answers"], 0.91)})]
    assert (found.as_json()["predictions"], found.as_json()["models"]) == (2, ["cf-tagger-v2", "weak-v1"])
    # A score that is no probability is kept, and is no confidence; a model's lower-scored second prediction is not
    # read.
    again = [{**PREDICTED[0], "predictions": [{**PREDICTED[0]["predictions"][0], "score": 7},
                                              {**PREDICTED[0]["predictions"][0], "score": 3, "result": []}]}]
    found = import_project(STUDY.encode(), name="study.xml", tasks=json.dumps(again).encode(), tasks_name="tasks.json")
    assert [(given.annotator, given.meta) for given in found.predicted] == [("weak-v1", {"score": 7})]


@pytest.mark.django_db
# Task ids as a short number, and as URLs alike in more than their first 100 characters (longer than an item's key).
@pytest.mark.parametrize("task_id", [str, lambda number: f"https://news.example.org/{'world/' * 16}story-{number}"])
def test_a_task_s_predictions_are_models_measured_against_the_crowd_and_go_back_as_predictions(tmp_path, task_id):
    """A task's predictions are stored as the answers of the models that gave them: `design compare` measures each
    against the crowd, as it does a model run here, and the labelstudio export gives them back as predictions (not
    as people's annotations)."""
    from designs.models import OutsideAnswer

    (tmp_path / "study.xml").write_text(STUDY)
    tasks = [{**PREDICTED[0], "data": {**PREDICTED[0]["data"], "id": task_id(number)}} for number in range(1, 4)]
    (tmp_path / "tasks.json").write_text(json.dumps(tasks))
    out = io.StringIO()
    call_command("design", "import-labelstudio", str(tmp_path / "study.xml"), "--tasks", str(tmp_path / "tasks.json"),
                 "--check", stdout=out)
    assert "  models: 6 predictions by cf-tagger-v2, weak-v1, kept as those models' answers" in out.getvalue()
    _, batch, line = _published(tmp_path / "study.xml", tmp_path / "tasks.json")
    assert (line["predictions"], line["models"]) == (6, ["cf-tagger-v2", "weak-v1"])
    assert OutsideAnswer.model_names(batch) == ["cf-tagger-v2", "weak-v1"]  # the best scored first: the default
    assert OutsideAnswer.objects.filter(batch=batch, source=OutsideAnswer.MODEL).count() == 6
    # Two people say no to every item: weak-v1 agrees with them, cf-tagger-v2 does not.
    for number in range(2):
        worker = Worker.objects.create(provider="inhouse", external_id=f"crowd-{number}")
        assignment = assignment_claim(batch=batch, worker=worker)
        assignment_submit(assignment=assignment, worker=worker, raw_answers={
            f"a-{item.pk}-0": "no" for item in assignment.hit.ordered_items()})

    def compared(model: str) -> dict:
        out = io.StringIO()
        call_command("design", "compare", str(batch.pk), "--model", model, "--json", stdout=out)
        return next(entry for entry in json.loads(out.getvalue())["schemes"] if entry["scheme"] == "counterfactual")

    weak, strong = compared("weak-v1"), compared("cf-tagger-v2")
    out = io.StringIO()
    call_command("design", "compare", str(batch.pk), stdout=out)  # the best scored, by default
    assert out.getvalue().startswith(f"cf-tagger-v2 against the crowd on batch {batch.pk}: 3 items answered")
    assert "  model: not asked here (its answers came with the project); crowd: " in out.getvalue()
    from reproductions.project_steps import _design_numbers  # the project page's "Agreement and labels" step

    assert "model cf-tagger-v2: 3 items answered, with the project; counterfactual: the model agrees with the " \
           "crowd's label on 0% of 3 items" in _design_numbers(batch, lambda done, total: None)
    assert (weak["compared"], weak["accuracy"]["value"], weak["confidence"]) == (3, 1.0, 0.2)
    assert (strong["compared"], strong["accuracy"]["value"], strong["confidence"]) == (3, 0.0, 0.91)
    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "out", formats=("labelstudio",))}
    task = json.loads(written["tasks.json"].read_text())[0]
    assert task["data"]["id"] == task_id(1)
    assert [(found["model_version"], found.get("score")) for found in task["predictions"]] == [
        ("cf-tagger-v2", 0.91), ("weak-v1", 0.2)]
    assert task["predictions"][1]["result"][0]["value"] == {"choices": ["no"]}
    assert len(task["annotations"]) == len(task["meta"]["annotators"]) == 2  # the people's only
    if not LS_PYTHON:
        pytest.skip("set CROWDSET_LS_PYTHON to a Python with label-studio-sdk")
    # label-studio-sdk takes each prediction as written for the config written beside it.
    checked = subprocess.run([LS_PYTHON, "-c", PREDICTIONS_VALID, str(written["tasks.json"]),
                              str(written["config.xml"])], capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stderr[-2000:]
    assert json.loads(checked.stdout) == [[[], []]] * 3



@pytest.mark.django_db
def test_a_page_without_its_script_does_not_say_a_suggestion_filled_it(chromium, live_server, tmp_path):
    """The script fills an item's suggested answers, so the note saying so waits for it: without the script the
    item shows no note over its empty answers; with it, the same page is filled and says so."""
    from tests.browser import log_in
    from tests.designs.fixtures import project_annotator
    from tests.test_accessibility import PHONE

    (tmp_path / "config.xml").write_text(STUDY)
    (tmp_path / "tasks.json").write_text(json.dumps(PREDICTED))
    project, _, _ = _published(tmp_path / "config.xml", tmp_path / "tasks.json")
    project_annotator(project, "ada")
    context = chromium.new_context(**PHONE, java_script_enabled=False)
    page = context.new_page()
    log_in(page, live_server, "ada", "pass-word-1", "/work/")
    page.click("text=Take a HIT")
    item = page.locator(".task-item").first
    assert item.locator(".suggested-note").count() == 1 and not item.locator(".suggested-note").is_visible()
    assert not item.locator("[data-scheme=counterfactual] input:checked").count()
    url = page.url
    context.close()
    context = chromium.new_context(**PHONE)
    page = context.new_page()
    log_in(page, live_server, "ada", "pass-word-1", url.removeprefix(live_server.url))
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    item = page.locator(".task-item").first
    assert item.locator(".suggested-note").is_visible()
    assert item.locator("[data-scheme=counterfactual] input[value=yes]").is_checked()
    context.close()


PREDICTIONS_VALID = """
import json, sys
from label_studio_sdk.label_interface import LabelInterface
interface = LabelInterface(open(sys.argv[2]).read())
print(json.dumps([[interface.validate_prediction(prediction, return_errors=True)
                   for prediction in task["predictions"]] for task in json.load(open(sys.argv[1]))]))
"""


@pytest.mark.django_db
def test_a_suggestion_starts_the_page_marked_and_the_answer_is_the_person_s(chromium, live_server, tmp_path):
    from designs.items import SUGGESTED
    from hits.models import Assignment
    from tests.browser import axe_clean

    batch, context, page = _phone_page(chromium, live_server, tmp_path, STUDY, PREDICTED)
    item = page.locator(".task-item").first
    assert item.locator(".suggested-note").inner_text().startswith(
        "Pre-filled with the suggestion of cf-tagger-v2 (score 0.91)")
    assert item.locator("[data-scheme=counterfactual] input[value=yes]").is_checked()
    assert item.locator("[data-scheme=parts] .span-list").inner_text().startswith("antecedent: Had it rained,")
    assert item.locator("[data-scheme=words] input").input_value() == "3"
    axe_clean(page, "labelstudio-suggestion-phone")
    page.keyboard.press("n")  # the person disagrees
    item.locator("[data-scheme=why] textarea, [data-scheme=why] input").first.fill("it did rain")
    item.locator("[data-scheme=confidence] input[value='2']").check()
    page.click("#cf-submit")
    page.wait_for_url(f"{live_server.url}/work/")
    context.close()
    answer = next(iter(Assignment.objects.get(hit__batch=batch).answers.values()))
    assert answer["counterfactual"] == "no" and answer["words"] == 3 and answer["why"] == "it did rain"
    stored = batch.items.get()
    assert stored.content.fields[SUGGESTED]["answers"]["counterfactual"] == "yes"  # kept apart
    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "out", formats=("labelstudio",))}
    task = json.loads(written["tasks.json"].read_text())[0]
    assert SUGGESTED not in task["data"]
    assert task["predictions"][0]["model_version"] == "cf-tagger-v2" and task["predictions"][0]["score"] == 0.91
    assert {result["from_name"] for result in task["predictions"][0]["result"]} == {
        "counterfactual", "parts", "sure", "words"}
    assert [found["model_version"] for found in task["predictions"]] == ["cf-tagger-v2", "weak-v1"]


@pytest.mark.django_db
def test_a_prediction_s_pull_is_measured_against_a_holdout_that_sees_no_suggestion(chromium, live_server, tmp_path):
    """`design suggest` with a model whose answers came as predictions stands in for the items' own suggestions on
    work claimed from then on: a held-out pair's item starts empty and unmarked, a shown one with that model's
    answer, and the pull of the suggestion is measured between the two."""
    from designs.suggestions import held_out, pull, suggestions_start
    from hits.models import Assignment
    from tests.browser import axe_clean
    from tests.designs.fixtures import hit_page, project_annotator
    from tests.test_accessibility import PHONE

    (tmp_path / "study.xml").write_text(STUDY)
    tasks = [{**PREDICTED[0], "data": {**PREDICTED[0]["data"], "id": str(number)}} for number in range(1, 13)]
    (tmp_path / "tasks.json").write_text(json.dumps(tasks))
    project, batch, _ = _published(tmp_path / "study.xml", tmp_path / "tasks.json")
    project_annotator(project, "ada")
    assert suggestions_start(batch=batch, annotator="weak-v1", holdout=0.5)["annotator"] == "weak-v1"
    context, page = hit_page(chromium, live_server, "ada", PHONE)
    assignment = Assignment.objects.get(hit__batch=batch)
    hidden = {item.pk: held_out(batch.pk, assignment.worker_id, item.pk, 0.5)
              for item in assignment.hit.ordered_items()}
    for pk, out in hidden.items():
        item = page.locator(f".task-item[data-item='{pk}']")
        notes = item.locator(".suggested-note")
        assert notes.count() == (0 if out else 1), pk
        if not out:
            assert notes.inner_text().startswith("Pre-filled with the suggestion of weak-v1:")
        assert item.locator("[data-scheme=counterfactual] input[value=no]").is_checked() is not out
        assert not item.locator("[data-scheme=counterfactual] input[value=yes]").is_checked()  # not the items' own
    axe_clean(page, "labelstudio-suggestions-holdout-phone")
    context.close()
    # Shown, ada takes the suggestion; held out, she says yes: the pull is all of the difference.
    assignment_submit(assignment=assignment, worker=assignment.worker, raw_answers={
        f"a-{pk}-0": "yes" if out else "no" for pk, out in hidden.items()})
    (found,) = [entry for entry in pull(batch)["schemes"] if entry["scheme"] == "counterfactual"]
    shown, held = sum(not out for out in hidden.values()), sum(hidden.values())
    assert (found["shown"]["answers"], found["held_out"]["answers"]) == (shown, held)
    assert found["shown"]["follows"]["value"] == (1.0 if shown else None)
    assert found["held_out"]["follows"]["value"] == (0.0 if held else None)


@pytest.mark.django_db
def test_a_date_is_asked_in_the_browser_s_picker_and_goes_back_as_label_studio_s(tmp_path, capsys):
    config = tmp_path / "dates.xml"
    config.write_text("<View><Text name='text' value='$text'/><DateTime name='when' toName='text' only='date' "
                      "min='1900-01-01' format='%Y-%m-%d'/></View>")
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps([{"data": {"text": "It opened on 1 March 2024."}, "predictions": [
        {"model_version": "dates-v1", "result": [{"from_name": "when", "to_name": "text", "type": "datetime",
                                                  "value": {"datetime": "2024-03-01"}}]}]}]))
    _, batch, line = _published(config, tasks)
    assert line["ok"] and "<DateTime name='when'> format='%Y-%m-%d' (line 1)" in line["ignored"]
    worker = Worker.objects.create(provider="inhouse", external_id="w0")
    assignment = assignment_claim(batch=batch, worker=worker)
    item = assignment.hit.ordered_items()[0]
    with pytest.raises(CrowdError, match="is not a date; write it as 2024-03-01"):
        assignment_submit(assignment=assignment, worker=worker, raw_answers={f"a-{item.pk}-0": "1 March"})
    with pytest.raises(CrowdError, match="1850-01-01 is outside 1900-01-01 to …"):
        assignment_submit(assignment=assignment, worker=worker, raw_answers={f"a-{item.pk}-0": "1850-01-01"})
    assignment_submit(assignment=assignment, worker=worker, raw_answers={f"a-{item.pk}-0": "2024-03-02"})
    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "out", formats=("labelstudio",))}
    task = json.loads(written["tasks.json"].read_text())[0]
    assert task["annotations"][0]["result"][0]["value"] == {"datetime": "2024-03-02"}
    assert task["predictions"][0]["result"][0]["value"] == {"datetime": "2024-03-01"}
    assert 'only="date"' in written["config.xml"].read_text()
    if LS_PYTHON:
        assert [entry["errors"] for entry in _validated(written, config)] == [[], []]


@pytest.mark.django_db
def test_a_date_is_picked_on_a_phone(chromium, live_server, tmp_path):
    from tests.browser import axe_clean

    batch, context, page = _phone_page(
        chromium, live_server, tmp_path, "<View><Text name='text' value='$text'/><Header value='When did it open?'/>"
        "<DateTime name='when' toName='text' only='date' required='true'/></View>",
        [{"text": "It opened on 1 March 2024."}])
    picker = page.get_by_label("When did it open?")
    assert picker.get_attribute("type") == "date"
    picker.fill("2024-03-01")
    axe_clean(page, "labelstudio-date-phone")
    page.click("#cf-submit")
    page.wait_for_url(f"{live_server.url}/work/")
    context.close()
    from hits.models import Assignment

    assert next(iter(Assignment.objects.get(hit__batch=batch).answers.values())) == {"when": "2024-03-01"}


@pytest.mark.django_db
def test_a_pairwise_control_compares_its_two_objects_side_by_side(chromium, live_server, capsys):
    from hits.models import Assignment
    from tests.browser import axe_clean
    from tests.designs.fixtures import hit_page, project_annotator
    from tests.test_accessibility import PHONE

    example = EXAMPLES / "pairwise-classification"
    project, batch, _ = _published(example / "config.xml", example / "tasks.json", "--title", "Which reply")
    project_annotator(project, "ada")
    context, page = hit_page(chromium, live_server, "ada", PHONE)
    item = page.locator(".task-item").first
    # The Header inside the tag is the question (asked once above the items); the two texts are shown once, by the
    # comparison.
    assert "Select one of two items" in page.locator("#design-question").inner_text()
    assert page.locator("h1").inner_text() == "Which reply"
    assert item.inner_text().count("Refund done.") == 1
    page.keyboard.press("2")
    axe_clean(page, "labelstudio-pairwise-phone")
    page.click("#cf-submit")
    page.wait_for_url(f"{live_server.url}/work/")
    context.close()
    assert next(iter(Assignment.objects.get(hit__batch=batch).answers.values())) == {"pw": "right"}


def test_spans_inside_dialogue_turns_mark_the_dialogue_one_turn_a_line():
    config = b"""<View>
  <ParagraphLabels name="entity_slot" toName="dialogue">
    <Label value="Person"/><Label value="Location"/>
  </ParagraphLabels>
  <Paragraphs name="dialogue" value="$humanMachineDialogue" layout="dialogue"/>
  <Choices name="intent" toName="dialogue" choice="single"><Choice value="Greeting"/><Choice value="Request"/></Choices>
</View>"""
    turn = {"from_name": "entity_slot", "to_name": "dialogue", "type": "paragraphlabels"}
    tasks = json.dumps([{"data": {"humanMachineDialogue": [{"author": "Ann", "text": "Hi, I am Ann"},
                                                           {"author": "Bot", "text": "Hello Ann, from Paris"}]},
                         "annotations": [{"completed_by": 1, "result": [
                             {**turn, "id": "p", "value": {"start": "0", "end": "0", "startOffset": 9, "endOffset": 12,
                                                           "text": "Ann", "paragraphlabels": ["Person"]}},
                             {**turn, "id": "q", "value": {"start": "1", "end": "1", "startOffset": 16,
                                                           "endOffset": 21, "text": "Paris",
                                                           "paragraphlabels": ["Location"]}},
                             {**turn, "id": "r", "value": {"start": "7", "end": "7", "startOffset": 0, "endOffset": 1,
                                                           "paragraphlabels": ["Person"]}}]}]}])
    found = import_project(config, name="dialogue.xml", tasks=tasks.encode(), tasks_name="t.json")
    assert found.ok, found.errors
    # An annotation's spans inside turns (a turn and offsets in it) are spans of the dialogue's lines; one in a turn
    # the dialogue has not is named and left out.
    assert found.given[0].answers["entity_slot"] == [
        {"start": 14, "end": 17, "label": "Person", "text": "Ann"},
        {"start": 39, "end": 44, "label": "Location", "text": "Paris"}]
    assert any("entity_slot: its turn '7' is not one of the dialogue's 2; left out" in warning
               for warning in found.warnings), found.warnings
    spans = found.design.scheme("entity_slot")
    assert spans.annotation_type == "span" and [label.name for label in spans.labels] == ["Person", "Location"]
    assert found.records[0].text == "Ann: Hi, I am Ann\nBot: Hello Ann, from Paris"
    assert any("spans of the dialogue shown one turn a line" in note for note in found.notes)


def test_spans_on_html_mark_its_text():
    config = b"""<View><HyperText name="page" value="$html"/>
<HyperTextLabels name="ner" toName="page"><Label value="Place"/></HyperTextLabels></View>"""
    place = {"from_name": "ner", "to_name": "page", "type": "hypertextlabels"}
    tasks = json.dumps([{"data": {"html": "<p>Rain in <b>Paris</b>, not in Paris, Texas</p><script>x()</script>"},
                         "annotations": [{"completed_by": 1, "result": [
                             {**place, "value": {"start": "/p[1]/text()[2]", "end": "/p[1]/text()[2]",
                                                 "startOffset": 9, "endOffset": 14, "text": "Paris",
                                                 "globalOffsets": {"start": 24, "end": 29},
                                                 "hypertextlabels": ["Place"]}},
                             {**place, "value": {"start": "/p[1]", "startOffset": 0, "text": "Lyon",
                                                 "hypertextlabels": ["Place"]}}]},
                                         {"completed_by": 2, "result": [
                             {**place, "value": {"start": "/p[1]/text()[2]", "end": "/p[1]/text()[2]",
                                                 "startOffset": 9, "endOffset": 14, "text": "Paris",
                                                 "hypertextlabels": ["Place"]}},
                             {**place, "value": {"start": "/p[1]/text()[9]", "end": "/p[1]/text()[9]",
                                                 "startOffset": 0, "endOffset": 4, "text": "Rain",
                                                 "hypertextlabels": ["Place"]}}]}]}])
    found = import_project(config, name="html.xml", tasks=tasks.encode(), tasks_name="t.json")
    assert found.ok, found.errors
    # A span of the HTML is placed by its XPaths and offsets in the markup (the second Paris)...
    assert found.given[0].answers["ner"] == [{"start": 22, "end": 27, "label": "Place", "text": "Paris"}]
    # ... without global offsets too; where they name no text node, its text is found in the HTML's text.
    assert found.given[1].answers["ner"] == [{"start": 0, "end": 4, "label": "Place", "text": "Rain"},
                                             {"start": 22, "end": 27, "label": "Place", "text": "Paris"}]
    assert any("ner: its text 'Lyon' is not in the HTML's text; left out" in warning for warning in found.warnings)
    assert found.design.scheme("ner").annotation_type == "span"
    assert found.records[0].text == "Rain in Paris, not in Paris, Texas"


@pytest.mark.django_db
def test_a_ranker_sorts_each_task_s_list_into_its_buckets_by_keyboard(chromium, live_server, capsys):
    from hits.models import Assignment
    from tests.browser import axe_clean
    from tests.designs.fixtures import hit_page, project_annotator
    from tests.test_accessibility import PHONE

    example = EXAMPLES / "llm-ranker"
    project, batch, _ = _published(example / "config.xml", example / "tasks.json")
    project_annotator(project, "ada")
    context, page = hit_page(chromium, live_server, "ada", PHONE)
    item = page.locator(".task-item").first
    rows = item.locator(".ranking-row")
    assert rows.count() == 12 and rows.first.locator(".ranking-body").inner_text().startswith("While the initial")
    item.get_by_role("button", name="Move CobraAI up").focus()
    page.keyboard.press("Enter")  # CobraAI first
    item.get_by_role("combobox", name="Bucket of CobraAI").focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")  # biased_results
    item.get_by_role("combobox", name="Bucket of LlamaModel").select_option("relevant_results")
    item.get_by_role("combobox", name="Bucket of TurtleMind").select_option("relevant_results")
    axe_clean(page, "labelstudio-ranker-phone")
    page.click("#cf-submit")
    page.wait_for_url(f"{live_server.url}/work/")
    context.close()
    answer = next(iter(Assignment.objects.get(hit__batch=batch).answers.values()))
    assert answer == {"rank": {"relevant_results": ["llama_model", "turtle_mind"], "biased_results": ["cobra_ai"]}}


def _said(choice: str, *more: dict) -> list[dict]:
    return [{"from_name": "counterfactual", "to_name": "post", "type": "choices", "value": {"choices": [choice]}},
            *more]


ANNOTATED = [
    {"id": 7, "data": {"text": "Had it rained, we would have stayed in.", "html": "<p>x</p>", "dialogue": []},
     "annotations": [
         {"completed_by": {"id": 3, "email": "ana@lab.example"}, "created_at": "2026-05-01T10:00:00Z",
          "result": _said("yes", {"id": "a", "from_name": "parts", "to_name": "post", "type": "labels",
                                  "value": {"start": 0, "end": 14, "text": "Had it rained,", "labels": ["antecedent"]}},
                          {"id": "a", "from_name": "sure", "to_name": "post", "type": "choices",
                           "value": {"start": 0, "end": 14, "choices": ["unsure"]}},
                          {"from_name": "confidence", "to_name": "post", "type": "rating", "value": {"rating": 9}})},
         {"completed_by": 4, "result": _said("yes")},
         {"completed_by": 5, "was_cancelled": True, "result": []}]},
    {"id": 8, "data": {"text": "It rained, so we stayed in.", "html": "<p>y</p>", "dialogue": []},
     "annotations": [
         {"completed_by": {"id": 3, "email": "ana@lab.example"}, "result": _said("no", {
             "from_name": "why", "to_name": "post", "type": "textarea", "value": {"text": ["it happened"]}})},
         {"completed_by": 4, "result": _said("no")}]},
]


@pytest.mark.django_db
def test_tasks_annotations_are_their_annotators_answers_beside_the_crowd_s_and_never_paid(tmp_path):
    from designs.models import OutsideAnswer
    from hits.models import Assignment, Payment

    config, tasks = tmp_path / "study.xml", tmp_path / "tasks.json"
    config.write_text(STUDY)
    tasks.write_text(json.dumps(ANNOTATED))
    _, batch, line = _published(config, tasks)
    assert (line["annotations"], line["annotators"]) == (4, 2)  # the cancelled one is no answer
    stored = {(row.item.key, row.annotator): row.answers for row in OutsideAnswer.objects.filter(batch=batch)}
    assert stored[("record:7", "ana@lab.example")] == {
        "counterfactual": "yes", "parts": [{"start": 0, "end": 14, "label": "antecedent", "text": "Had it rained,",
                                            "sure": "unsure"}]}  # a rating of 9 of 4 does not fit: left out, named
    assert stored[("record:8", "user 4")] == {"counterfactual": "no"} and len(stored) == 4
    assert stored[("record:8", "ana@lab.example")] == {"counterfactual": "no", "why": "it happened"}
    assert OutsideAnswer.objects.get(batch=batch, annotator="ana@lab.example", item__key="record:7").given.year == 2026
    # Nothing of theirs is a HIT's: no assignment, no place taken, nothing to pay.
    assert not Assignment.objects.filter(hit__batch=batch).exists()

    # Agreement is measured over them, with the crowd's once people work; or without them.
    def report(*options: str) -> dict:
        out = io.StringIO()
        call_command("design", "report", str(batch.pk), "--json", *options, stdout=out)
        return json.loads(out.getvalue())

    assert report()["counterfactual"]["answers"] == 4 and report()["counterfactual"]["alpha"] == 1.0
    assert report("--crowd-only")["counterfactual"]["answers"] == 0
    worker = Worker.objects.create(provider="inhouse", external_id="crowd-1")
    assignment = assignment_claim(batch=batch, worker=worker)
    assignment_submit(assignment=assignment, worker=worker,
                      raw_answers={f"a-{item.pk}-0": "no" for item in assignment.hit.ordered_items()})
    assignment.refresh_from_db()
    assert report()["counterfactual"]["answers"] == 4 + len(assignment.answers)
    assert report("--crowd-only")["counterfactual"]["answers"] == len(assignment.answers)
    assignment_approve(assignment=assignment)
    # The ledger holds the crowd worker's reward and nothing for the outside annotators (who have no Worker row).
    assert set(Payment.objects.filter(batch=batch).values_list("worker__external_id", flat=True)) == {"crowd-1"}
    assert Worker.objects.filter(payments__batch=batch).distinct().count() == 1
    # The exports carry them under their names, the crowd's as pseudonyms; Label Studio gets them back by name.
    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "out",
                                                        formats=("csv", "labelstudio"))}
    rows = written["answers.csv"].read_text().splitlines()
    assert any(row.startswith("7,labelstudio:ana@lab.example,counterfactual,yes,2026-05-01T10:00:00+00:00,,")
               for row in rows), rows
    task = next(task for task in json.loads(written["tasks.json"].read_text()) if task["data"]["id"] == "7")
    assert task["meta"]["annotators"][-2:] == ["ana@lab.example", "user 4"]


def test_a_span_across_turns_goes_back_as_the_turns_it_starts_and_ends_in():
    """The dialogue is shown one turn a line ("speaker: words"); a span from one turn into the next goes back as
    Label Studio's: the turns and the offsets in their words (a start in a speaker's name counts from the words)."""
    from designs.labelstudio import _on_turns

    places = [(7, 56), (66, 92), (100, 128)]  # the intent template's three turns, as _turn_places finds them
    assert _on_turns({"start": 39, "end": 80, "text": "Berlin on Friday.\nMachine: Sure. Which bo",
                      "labels": ["Location"]}, places) == {
        "start": "0", "end": "1", "startOffset": 32, "endOffset": 14,
        "text": "Berlin on Friday.\nMachine: Sure. Which bo", "paragraphlabels": ["Location"]}
    assert _on_turns({"start": 57, "end": 92, "choices": ["sure"]}, places) == {
        "start": "1", "end": "1", "startOffset": 0, "endOffset": 26, "choices": ["sure"]}


def test_html_is_read_as_its_words_each_in_its_node():
    """The HTML's text as a person reads it (a break before each block, blank lines closed up, scripts left out,
    an entity read once), each character placed in its text node as Label Studio's XPaths name them."""
    from designs.labelstudio import _html_text, _on_nodes

    text, nodes = _html_text("<div><p>One &amp;lt; <i>two</i> three</p>\n\n<script>x()</script><p>four</p></div>")
    assert text == "One &lt; two three\nfour"
    assert nodes[0] == ("/div[1]/p[1]/text()[1]", 0) and nodes[9] == ("/div[1]/p[1]/i[1]/text()[1]", 0)
    assert nodes[12] == ("/div[1]/p[1]/text()[2]", 0) and nodes[18] is None
    assert _on_nodes({"start": 9, "end": 23, "labels": ["X"]}, nodes) == {
        "start": "/div[1]/p[1]/i[1]/text()[1]", "end": "/div[1]/p[2]/text()[1]", "startOffset": 0, "endOffset": 4,
        "hypertextlabels": ["X"]}


def test_a_list_entry_shown_by_html_is_its_text_and_one_without_words_is_refused():
    """A List entry may be shown by its html alone (Label Studio's visual-ranker template: an <img>): its text is
    what is shown; markup without text is refused by task and entry, never imported as a blank card."""
    config = (b"<View>\n<Text name='prompt' value='$prompt'/>\n<List name='answers' value='$answers' title='A'/>\n"
              b"<Ranker name='rank' toName='answers'/>\n</View>")

    def imported(entries):
        tasks = json.dumps([{"data": {"prompt": "Which is best?", "answers": entries}}]).encode()
        return import_project(config, name="config.xml", tasks=tasks, tasks_name="tasks.json")

    found = imported([{"id": "a", "html": "<p>Yes, <b>gladly</b>.</p>"}, {"id": "b", "title": "B", "body": "No."}])
    assert found.ok, found.errors
    assert [entry.get("body") for entry in found.records[0].fields["answers"]] == ["Yes, gladly.", "No."]
    refused = imported([{"id": "chair_1", "html": "<img src='chair1.png'/>"}, {"id": "b", "title": "B"}])
    assert refused.errors == ["tasks.json: task 1 (line 1): answers entry 'chair_1' has no words to show (no title, "
                              "body or text; its html is markup without text, an image?); this platform shows text: "
                              "give it a title or a body"]


@pytest.mark.django_db
def test_a_list_of_html_entries_goes_back_as_it_came_with_its_ranking(tmp_path):
    """A List whose entries Label Studio showed by their html is shown here as their text, and the labelstudio
    export gives the entries back as the task gave them (markup and all), with the annotation's ranking of them."""
    entries = [{"id": "a", "html": "<p>Yes, <b>gladly</b>.</p>"}, {"id": "b", "title": "B", "body": "No."},
               {"id": "c", "title": "C", "html": "<i>Maybe</i>", "extra": 1}]
    (tmp_path / "config.xml").write_text("<View>\n<Text name='prompt' value='$prompt'/>\n"
                                         "<List name='answers' value='$answers' title='A'/>\n"
                                         "<Ranker name='rank' toName='answers'/>\n</View>")
    ranked = {"from_name": "rank", "to_name": "answers", "type": "ranker",
              "value": {"ranker": {"rank": ["c", "a", "b"]}}}
    (tmp_path / "tasks.json").write_text(json.dumps([{"data": {"prompt": "Which is best?", "answers": entries},
                                                      "annotations": [{"completed_by": 3, "result": [ranked]}]}]))
    _, batch, _ = _published(tmp_path / "config.xml", tmp_path / "tasks.json")
    shown = record(batch.hits.get().ordered_items()[0]).fields["answers"]
    assert [entry["body"] for entry in shown] == ["Yes, gladly.", "No.", "Maybe"]
    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "out", formats=("labelstudio",))}
    [task] = json.loads(written["tasks.json"].read_text())
    assert task["data"]["answers"] == entries
    assert [result["value"] for result in task["annotations"][0]["result"]] == [{"ranker": {"rank": ["c", "a", "b"]}}]
    if not LS_PYTHON:
        pytest.skip("set CROWDSET_LS_PYTHON to a Python with label-studio-sdk")
    assert [entry["errors"] for entry in _validated(written, tmp_path / "config.xml")] == [[], []]


def test_a_dialogue_is_read_by_its_own_keys_and_a_turn_of_several_lines_stays_one_turn():
    """Paragraphs name the keys of a turn's speaker and words (nameKey, textKey): the dialogue is shown by them,
    and a span in a turn whose words hold a line break is placed in that turn, there and back."""
    config = (b"<View>\n<Paragraphs name='chat' value='$chat' nameKey='who' textKey='said'/>\n"
              b"<ParagraphLabels name='ner' toName='chat'><Label value='Place'/></ParagraphLabels>\n</View>")
    chat = [{"who": "Ann", "said": "Hi.\nI am in Rome."}, {"who": "Bo", "said": "Paris for me."}]
    place = {"from_name": "ner", "to_name": "chat", "type": "paragraphlabels"}
    tasks = json.dumps([{"data": {"chat": chat}, "annotations": [{"completed_by": 1, "result": [
        {**place, "value": {"start": "1", "end": "1", "startOffset": 0, "endOffset": 5, "paragraphlabels": ["Place"]}},
        {**place, "value": {"start": "0", "end": "0", "startOffset": 12, "endOffset": 16,
                            "paragraphlabels": ["Place"]}}]}]}])
    found = import_project(config, name="config.xml", tasks=tasks.encode(), tasks_name="tasks.json")
    assert found.ok, found.errors
    assert found.records[0].text == "Ann: Hi.\nI am in Rome.\nBo: Paris for me."
    assert found.given[0].answers["ner"] == [{"start": 17, "end": 21, "label": "Place", "text": "Rome"},
                                             {"start": 27, "end": 32, "label": "Place", "text": "Paris"}]
    from designs.labelstudio import _on_turns, _turn_places

    places = _turn_places(chat, "who", "said")
    assert _on_turns({"start": 27, "end": 32, "labels": ["Place"]}, places) == {
        "start": "1", "end": "1", "startOffset": 0, "endOffset": 5, "paragraphlabels": ["Place"]}
    assert _on_turns({"start": 17, "end": 21, "labels": ["Place"]}, places) == {
        "start": "0", "end": "0", "startOffset": 12, "endOffset": 16, "paragraphlabels": ["Place"]}



def test_a_prediction_of_spans_in_dialogue_turns_or_html_is_the_item_s_suggestion():
    """A model's pre-annotation of spans in Paragraphs or HyperText is placed on the item's text as an annotation's
    is: it is the item's suggestion and the model's answers."""
    chat = [{"author": "Ann", "text": "I am in Rome."}, {"author": "Bo", "text": "Paris for me."}]
    turns = {"from_name": "ner", "to_name": "chat", "type": "paragraphlabels", "value": {
        "start": "1", "end": "1", "startOffset": 0, "endOffset": 5, "paragraphlabels": ["Place"]}}
    html = {"from_name": "ner", "to_name": "page", "type": "hypertextlabels", "value": {
        "start": "/p[1]/b[1]/text()[1]", "end": "/p[1]/b[1]/text()[1]", "startOffset": 0, "endOffset": 4,
        "text": "Oslo", "hypertextlabels": ["Place"]}}
    for config, data, result, text, span in [
            ("<Paragraphs name='chat' value='$chat'/><ParagraphLabels name='ner' toName='chat'>", {"chat": chat},
             turns, "Ann: I am in Rome.\nBo: Paris for me.", {"start": 23, "end": 28, "text": "Paris"}),
            ("<HyperText name='page' value='$page'/><HyperTextLabels name='ner' toName='page'>",
             {"page": "<p>Off to <b>Oslo</b> soon.</p>"}, html, "Off to Oslo soon.", {"start": 7, "end": 11,
                                                                                      "text": "Oslo"})]:
        tasks = [{"data": data, "predictions": [{"model_version": "ner-v1", "score": 0.8, "result": [result]}]}]
        found = import_project(f"<View>{config}<Label value='Place'/></{config.split('<')[-1].split()[0]}></View>"
                               .encode(), name="config.xml", tasks=json.dumps(tasks).encode(), tasks_name="t.json")
        assert found.ok and not found.warnings, (found.errors, found.warnings)
        assert found.records[0].text == text
        suggested = found.records[0].fields[SUGGESTED_KEY]
        assert suggested["model"] == "ner-v1" and suggested["answers"]["ner"] == [{**span, "label": "Place"}]
        assert [(entry.annotator, entry.answers) for entry in found.predicted] == [("ner-v1", suggested["answers"])]


DYNAMIC = """<View>
  <Text name="text" value="$text"/>
  <Header value="Which answer is right?"/>
  <Choices name="best" toName="text" value="$options" choice="single"/>
  <Choices name="flags" toName="text" value="$flags" choice="multiple"/>
</View>
"""
DYNAMIC_TASKS = [
    {"data": {"text": "Capital of France?", "options": [{"value": "Paris"}, {"value": "Lyon"}],
              "flags": ["short", "vague"]}},
    {"data": {"text": "Capital of Italy?", "options": [{"value": "Rome"}, {"value": "Milan"}, {"value": "Paris"}],
              "flags": ["vague"]}}]


def test_choices_each_task_gives_are_its_item_s_and_one_shown_by_html_is_refused():
    """<Choices value="$options">: each item shows its task's choices (objects with a value, or plain values); the
    scheme's labels are every task's. A choice shown by its own html (serp-ranking's search results, text-to-image's
    pictures) is refused by task, choice and control."""
    from designs.schemes.base import shown_labels

    found = import_project(DYNAMIC.encode(), name="config.xml", tasks=json.dumps(DYNAMIC_TASKS).encode(),
                           tasks_name="tasks.json")
    assert found.ok, found.errors
    best, flags = found.design.scheme("best"), found.design.scheme("flags")
    assert ([label.name for label in best.labels], best.annotation_type, best.dynamic_options_field) == (
        ["Paris", "Lyon", "Rome", "Milan"], "radio", "options")
    assert ([label.name for label in flags.labels], flags.annotation_type) == (["short", "vague"], "multiselect")
    assert [shown_labels(best, record) for record in found.records] == [["Paris", "Lyon"], ["Paris", "Rome", "Milan"]]
    assert shown_labels(flags, found.records[1]) == ["vague"]
    html = [{"data": {"text": "Black holes?", "options": [{"value": "result1", "html": "<h2>Wikipedia</h2>"}],
                      "flags": []}}]
    refused = import_project(DYNAMIC.encode(), name="config.xml", tasks=json.dumps(html).encode(),
                             tasks_name="tasks.json")
    assert refused.errors == ["tasks.json: task 1 (line 1): the choice 'result1' of options is shown by its own html "
                              "or holds choices of its own, which is not built here; <Choices name='best'> "
                              "(config.xml:4) runs choices given by their value alone"]
    missing = import_project(DYNAMIC.encode(), name="config.xml", tasks=b'[{"data": {"text": "x", "flags": []}}]',
                             tasks_name="tasks.json")
    assert missing.errors == ["tasks.json: task 1 (line 1): its options is not a list of choices, which "
                              "<Choices name='best'> (config.xml:4) shows"]


@pytest.mark.django_db
def test_answers_to_choices_each_task_gives_go_back_as_label_studio_takes_them(tmp_path):
    (tmp_path / "config.xml").write_text(DYNAMIC)
    (tmp_path / "tasks.json").write_text(json.dumps(DYNAMIC_TASKS))
    _, batch, _ = _published(tmp_path / "config.xml", tmp_path / "tasks.json", "--title", "capitals")
    worker = Worker.objects.create(provider="inhouse", external_id="w1")
    while (assignment := assignment_claim(batch=batch, worker=worker)) is not None:
        answers = {}
        for item in assignment.hit.ordered_items():
            right = "Paris" if "France" in item.payload["text"] else "Rome"
            answers |= {f"a-{item.pk}-0": right, f"a-{item.pk}-1-2": "1"}  # the second flag, "vague"
        assignment_submit(assignment=assignment, worker=worker, raw_answers=answers)
    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "out", formats=("labelstudio",))}
    tasks = json.loads(written["tasks.json"].read_text())
    assert sorted(task["annotations"][0]["result"][0]["value"]["choices"][0] for task in tasks) == ["Paris", "Rome"]
    assert [task["data"]["options"] for task in tasks] == [entry["data"]["options"] for entry in DYNAMIC_TASKS]
    if not LS_PYTHON:
        pytest.skip("set CROWDSET_LS_PYTHON to a Python with label-studio-sdk")
    assert [entry["errors"] for entry in _validated(written, tmp_path / "config.xml")] == [[], [], [], []]


def test_a_json_min_export_is_read_as_its_annotations_and_what_it_lost_is_named():
    """Label Studio's JSON-MIN export (a row an annotation, as its converter writes one) imports as tasks with their
    annotations, not as tasks whose answers are extra fields: a task nobody annotated is an item with no answers, each
    person's answers are theirs (an account's id or email), per-region picks (written as bare choices) go back to
    their regions in turn, and where they are not one a region that is named and the spans left out."""
    config = b"""<View>
  <Text name="text" value="$text"/>
  <Labels name="parts" toName="text"><Label value="antecedent"/><Label value="consequent"/></Labels>
  <Choices name="sure" toName="text" perRegion="true"><Choice value="yes"/><Choice value="no"/></Choices>
  <Choices name="kind" toName="text"><Choice value="counterfactual"/><Choice value="not"/></Choices>
  <TextArea name="why" toName="text"/>
</View>"""
    when = {"created_at": "2026-11-02T10:00:00Z", "updated_at": "2026-11-02T10:00:00Z", "lead_time": 4.5}
    text = "If it had rained, we would have stayed."
    antecedent = {"start": 0, "end": 16, "text": "If it had rained", "labels": ["antecedent"]}
    consequent = {"start": 18, "end": 38, "text": "we would have stayed", "labels": ["consequent"]}
    rows = [
        {"id": 1, "text": text, "kind": "counterfactual", "why": "a wish", "annotator": 7, "annotation_id": 11,
         "parts": [antecedent, consequent], "sure": ["yes", "no"], "agreement": 50.0, **when},
        {"id": 1, "text": text, "kind": {"choices": ["not"]}, "annotator": "ada@example.org", "annotation_id": 12,
         "parts": [antecedent, consequent], "sure": "yes", **when},
        {"id": 2, "text": "It rained.", "annotator": None, "annotation_id": None, "created_at": None,
         "updated_at": None, "lead_time": None},
    ]
    found = import_project(config, name="config.xml", tasks=json.dumps(rows).encode(), tasks_name="result.json")
    assert found.ok, found.errors
    assert [(record.id, record.text) for record in found.records] == [("1", text), ("2", "It rained.")]
    assert [record.fields for record in found.records] == [{}, {}]  # the export's own keys are no task fields
    assert {entry.annotator: (entry.item, entry.answers) for entry in found.given} == {
        "user 7": ("1", {"kind": "counterfactual", "why": "a wish", "parts": [
            {"start": 0, "end": 16, "label": "antecedent", "text": "If it had rained", "sure": "yes"},
            {"start": 18, "end": 38, "label": "consequent", "text": "we would have stayed", "sure": "no"}]}),
        "ada@example.org": ("1", {"kind": "not"})}
    assert found.warnings[0] == (
        "result.json: row 2 (line 1): sure: the export keeps each region's pick without its region, and the picks "
        "(1) are not one a region; left out (export JSON from Label Studio to bring them)")
    assert found.warnings[1].startswith("result.json: task 1 (line 1): annotation 2's parts does not fit (pick the "
                                        "sure of the antecedent")
    assert "result.json: read as Label Studio's JSON-MIN or CSV export (3 rows, 2 tasks)" in found.notes
    assert found.as_json()["items"] == 2 and found.as_json()["annotations"] == 2


def test_a_csv_export_whose_field_shares_a_control_s_name_is_read_apart():
    """Label Studio's CSV export names a task field that is also a control's name "_data_<field>" (exports/csv2.py):
    the field is the task's, the column under the control's name its answer."""
    config = b'<View><Text name="post" value="$text"/><TextArea name="text" toName="post"/></View>'
    rows = ('"_data_text","annotation_id","annotator","created_at","id","lead_time","text","updated_at"\n'
            '"Hello there",4,"3","2026-11-02T10:00:00Z",5,2.0,"[1, 2]","2026-11-02T10:00:00Z"\n')
    found = import_project(config, name="config.xml", tasks=rows.encode(), tasks_name="result.csv")
    assert found.ok, found.errors
    assert [(record.id, record.text) for record in found.records] == [("5", "Hello there")]
    assert [(entry.annotator, entry.answers) for entry in found.given] == [("user 3", {"text": "[1, 2]"})]


def test_an_export_from_before_label_studio_1_0_brings_its_completions():
    """Label Studio before 1.0 exported a task's annotations as "completions": they are read as annotations are."""
    config = STUDY.encode()
    legacy = [{"id": task["id"], "data": task["data"], "completions": task["annotations"]} for task in ANNOTATED]
    found = import_project(config, name="study.xml", tasks=json.dumps(legacy).encode(), tasks_name="old.json")
    current = import_project(config, name="study.xml", tasks=json.dumps(ANNOTATED).encode(), tasks_name="old.json")
    assert found.ok and found.as_json()["annotations"] == 4
    assert [(entry.item, entry.annotator, entry.answers) for entry in found.given] == [
        (entry.item, entry.annotator, entry.answers) for entry in current.given]


def test_fixed_words_an_object_shows_are_instructions_with_the_headers():
    """A Text, HyperText or Markdown whose value names no task field shows the same words on every task: they are
    the instructions, with the headers no control asks by, in the config's order (they were dropped)."""
    config = b"""<View>
  <Header value="Posts"/>
  <Text name="intro" value="Read the post, then answer."/>
  <HyperText name="note" value="&lt;p&gt;Be &lt;b&gt;quick&lt;/b&gt;.&lt;/p&gt;"/>
  <Text name="text" value="$text"/>
  <Header value="Is it about the past?"/>
  <Choices name="c" toName="text"><Choice value="yes"/><Choice value="no"/></Choices>
</View>"""
    found = import_project(config, name="c.xml", tasks=b'[{"text": "Hello."}]', tasks_name="t.json")
    assert found.ok, found.errors
    assert found.design.instructions == "Posts\nRead the post, then answer.\nBe quick."
    assert found.design.scheme("c").description == "Is it about the past?"


def test_attribute_names_are_read_in_any_case_as_label_studio_reads_them():
    """Label Studio reads a config's tag and attribute names in any case (its own templates write showInline and
    showInLine): a config written in other cases imports as the same study."""
    config = STUDY.encode()
    shouted = re.sub(rb" ([A-Za-z]+)=", lambda match: b" " + match[1].upper() + b"=", config)
    shouted = re.sub(rb"<(/?)([A-Za-z]+)", lambda match: b"<" + match[1] + match[2].lower(), shouted)
    assert b" TONAME=" in shouted and b"<choices " in shouted and b"</view>" in shouted
    tasks = json.dumps(TASKS).encode()
    found = import_project(shouted, name="study.xml", tasks=tasks, tasks_name="t.json")
    plain = import_project(config, name="study.xml", tasks=tasks, tasks_name="t.json")
    assert found.ok, found.errors
    assert found.design.model_dump() == plain.design.model_dump()
    assert (found.ignored, found.warnings) == (plain.ignored, plain.warnings)


def test_every_attribute_read_in_mixed_case_is_known_by_its_lower_case():
    """An attribute name read here in mixed case must be in CASED, or a config writing it in another case (as Label
    Studio allows) would lose it."""
    from designs.labelstudio import CASED

    root = Path(__file__).resolve().parents[2] / "designs"
    read = set()
    for path in root.rglob("*.py"):
        read |= set(re.findall(r"attrs(?:\.get)?[\[(]\"([a-z]+[A-Z][A-Za-z]*)\"", path.read_text()))
        read |= set(re.findall(r"(?:integer|ignore)\(control, \"([a-z]+[A-Z][A-Za-z]*)\"", path.read_text()))
    assert read and read <= set(CASED.values()), read - set(CASED.values())


NLI = """<View>
  <Header value="Premise"/>
  <Text name="premise" value="$premise"/>
  <Header value="Hypothesis:"/>
  <Text name="hypothesis" value="$hypothesis"/>
  <Header value="Does the premise entail the hypothesis?"/>
  <Choices name="label" toName="hypothesis" choice="single">
    <Choice value="entailment"/><Choice value="neutral"/><Choice value="contradiction"/>
  </Choices>
</View>
"""
NLI_TASKS = [{"id": 1, "data": {"premise": "A man plays a guitar on stage.", "hypothesis": "A man performs music."}}]


def test_headers_that_tell_the_fields_apart_are_their_titles_and_go_back_so():
    found = import_project(NLI.encode(), name="nli.xml", tasks=json.dumps(NLI_TASKS).encode(), tasks_name="t.json")
    assert found.ok, found.errors
    design = found.design
    # Each field under its own header, as Label Studio draws them; the header before the control is its question.
    assert design.items.titles == {"premise": "Premise", "hypothesis": "Hypothesis"}
    assert design.instructions == "" and design.scheme("label").description == "Does the premise entail the hypothesis?"
    # The wheel's question-answering template: the passage and the question each under the header above it.
    example = EXAMPLES / "question-answering"
    qa = import_project((example / "config.xml").read_bytes(), name="config.xml",
                        tasks=(example / "tasks.json").read_bytes(), tasks_name="tasks.json").design
    assert qa.items.titles == {"text": "Please read the passage",
                               "question": "Select a text span answering the following question"}
    # A header above one field of several is the study's (STUDY's question stays the instructions: see above).
    lone = NLI.replace('<Header value="Hypothesis:"/>', "")
    assert import_project(lone.encode(), name="nli.xml", tasks=json.dumps(NLI_TASKS).encode(),
                          tasks_name="t.json").design.instructions == "Premise"
    # Back to Label Studio: each title a header just above its field's object, read again as the same titles.
    config, _, _, _ = config_of(design)
    assert '<Header value="Premise"/>\n  <Text name="premise" value="$premise"/>' in config
    assert '<Header value="Hypothesis"/>\n  <Text name="hypothesis" value="$hypothesis"/>' in config
    again = import_project(config.encode(), name="config.xml", tasks=json.dumps(NLI_TASKS).encode(),
                           tasks_name="t.json")
    assert again.design.items.titles == design.items.titles and again.design.instructions == ""


@pytest.mark.django_db
def test_the_fields_titles_head_them_on_the_page(chromium, live_server, tmp_path):
    from tests.browser import axe_clean

    _, context, page = _phone_page(chromium, live_server, tmp_path, NLI, NLI_TASKS)
    item = page.locator(".task-item").first
    assert item.locator(".design-field").inner_text() == "Premise: A man plays a guitar on stage."
    assert item.locator(".design-text-title").inner_text() == "Hypothesis"
    assert item.locator(".design-text").inner_text() == "A man performs music."
    axe_clean(page, "labelstudio-titles-phone")
    context.close()


def test_a_text_scheme_of_several_boxes_is_one_text_area_taking_a_text_a_box():
    """Cheap Facts' three statement boxes: one TextArea taking three texts in the boxes' order, its placeholder
    naming them (Label Studio has no named boxes); an empty box keeps its place before a text and is dropped at
    the end."""

    source = (Path(__file__).resolve().parents[2] / "designs" / "cheap-facts.yaml").read_text(encoding="utf-8")
    design = load_text(source, name="cheap-facts.yaml")
    scheme = next(scheme for scheme in design.annotation_schemes if scheme.name == "statements")
    kind = SCHEME_TYPES.of(scheme)
    assert kind.labelstudio_control(scheme, "text") == (
        '<TextArea name="statements" toName="text" rows="3" maxSubmissions="3" '
        'placeholder="One at a time: Statement 1, Statement 2, Statement 3" required="true"/>')
    assert kind.labelstudio_value(scheme, {"Statement 1": "A fact.", "Statement 2": "", "Statement 3": ""}) == {
        "text": ["A fact."]}
    assert kind.labelstudio_value(scheme, {"Statement 2": "A counter-fact."}) == {"text": ["", "A counter-fact."]}
    config, _, left_out, _ = config_of(design)
    assert "statements" not in left_out and 'maxSubmissions="3"' in config


@pytest.mark.parametrize(("attributes", "given", "labels", "answer"), [
    # The boxes the export's placeholder names: a text a box, an empty box before a text keeping its place, texts
    # beyond the last box joining it.
    ('maxSubmissions="2" placeholder="One at a time: Fact, Counter-fact"', ["", "It rained."],
     ["Fact", "Counter-fact"], {"Counter-fact": "It rained."}),
    ('maxSubmissions="2" placeholder="One at a time: Fact, Counter-fact"', ["A.", "B.", "C."],
     ["Fact", "Counter-fact"], {"Fact": "A.", "Counter-fact": "B.\nC."}),
    # Any other TextArea of several texts is one box, its texts a line each.
    ('maxSubmissions="3" placeholder="Write a caption"', ["A.", "B."], None, "A.\nB."),
    ('maxSubmissions="3" placeholder="One at a time: Fact, Counter-fact"', ["A.", "B."], None, "A.\nB."),
    # A result giving its text bare, not in a list (a task written by hand), is that one text.
    ('rows="2"', "A whole sentence.", None, "A whole sentence."),
])
def test_a_text_area_s_boxes_are_read_back_from_the_placeholder_the_export_gives(attributes, given, labels, answer):
    config = (f'<View><Text name="text" value="$text"/><TextArea name="notes" toName="text" {attributes}/></View>')
    tasks = [{"id": 1, "data": {"text": "A day."}, "annotations": [
        {"result": [{"from_name": "notes", "to_name": "text", "type": "textarea", "value": {"text": given}}]}]}]
    found = import_project(config.encode(), name="config.xml", tasks=json.dumps(tasks).encode(),
                           tasks_name="tasks.json")
    assert found.ok, found.errors
    assert found.raw["annotation_schemes"][0].get("labels") == labels
    assert [entry.answers["notes"] for entry in found.given] == [answer]
    assert any("maxSubmissions" in entry for entry in found.ignored) == ("maxSubmissions" in attributes and not labels)


@pytest.mark.django_db(transaction=True)
def test_a_cheap_facts_batch_shows_its_highlight_and_each_paragraph_s_instruction_in_label_studio(tmp_path):
    """Cheap Facts asks about the highlighted words under each paragraph's own instruction: its export shows the
    paragraph as HyperText with the words in <mark> and the instruction as a Header of the task's field, as the page
    does; label-studio-sdk accepts it, and it imports again with the paragraph's text as it was."""
    from django.conf import settings

    from demo.crowd import Writer, run_writers
    from reproductions.facts import draw_items, fact_batch_create
    from reproductions.rte import read_rte

    paragraphs = draw_items(read_rte(settings.SHARED_DIR / "corpora" / "rte" / "rte1_dev.xml"), texts=3,
                            instruction="facts", seed=1)
    batch = batch_publish(batch=fact_batch_create(items=paragraphs, name="facts", items_per_hit=3,
                                                  assignments_per_hit=1))
    run_writers(batch, [Writer("a")], seed=1)
    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "out", formats=("labelstudio",))}
    config = written["config.xml"].read_text()
    assert ('<HyperText name="text" value="$text"/>\n  <Header value="$prompt"/>\n  <Header value="Statements about '
            'the highlighted words"/>\n  <TextArea name="statements" toName="text"') in config
    tasks = json.loads(written["tasks.json"].read_text())
    items = {item.content.record_id: item.content for item in batch.items.all()}
    assert sorted(task["data"]["id"] for task in tasks) == sorted(items)
    for task in tasks:
        fields, text = items[task["data"]["id"]].fields, items[task["data"]["id"]].text
        start, entity = int(fields["entity_start"]), fields["entity"]
        assert task["data"]["text"] == (html.escape(text[:start], quote=False) + f"<mark>{html.escape(entity)}</mark>"
                                        + html.escape(text[start + len(entity):], quote=False))
        assert task["data"]["prompt"] == fields["prompt"] and fields["prompt"].startswith("Write")
        assert task["annotations"] and all(annotation["result"] for annotation in task["annotations"])
    if not LS_PYTHON:
        pytest.skip("set CROWDSET_LS_PYTHON to a Python with label-studio-sdk")
    assert [entry["errors"] for entry in _validated(written)] == [[] for _ in tasks]
    again = _imported_again(written)
    assert again.raw["items"]["text_key"] == "text" and "prompt" in again.raw["items"]["show_after"]
    assert {record.id: record.text for record in again.records} == {key: item.text for key, item in items.items()}
    # The statements come back a text a box, under the boxes' names the placeholder gave.
    statements = next(scheme for scheme in again.raw["annotation_schemes"] if scheme["name"] == "statements")
    assert statements["labels"] == ["Statement 1", "Statement 2", "Statement 3"]
    stored = sorted((row["item"], json.dumps(row["value"], sort_keys=True)) for row in answer_rows(batch))
    assert len(stored) == 3 and sorted(
        (entry.item, json.dumps(entry.answers["statements"], sort_keys=True)) for entry in again.given) == stored


GRID = """<View>
  <Text name="text" value="$text"/>
  <Header value="How is the reply?"/>
  <Header value="Polite"/>
  <Choices name="reply_1" toName="text" choice="single" required="true">
    <Choice value="yes"/><Choice value="no"/>
  </Choices>
  <Header value="Correct"/>
  <Choices name="reply_2" toName="text" choice="single" required="true">
    <Choice value="yes"/><Choice value="no"/>
  </Choices>
  <TextArea name="why" toName="text"{when}/>
</View>
"""


@pytest.mark.parametrize(("when", "second"), [
    ("", "Correct"),
    (' visibleWhen="choice-selected" whenTagName="reply_2" whenChoiceValue="no"', "Correct"),
    ("", "Polite"),
])
def test_single_choices_named_as_a_grid_s_rows_are_one_grid_unless_a_condition_names_a_row(when, second):
    """A grid goes to Label Studio as a single Choices a row (<name>_1, <name>_2, each under its row as a header,
    the question above): read back, they are that grid again, each answer its rows' picks. Where another control's
    condition names a row, or two rows read alike, the rows stay questions of their own."""
    tasks = [{"data": {"text": "Thanks, the train leaves at 9."}, "annotations": [{"result": [
        {"from_name": f"reply_{number}", "to_name": "text", "type": "choices", "value": {"choices": [pick]}}
        for number, pick in ((1, "yes"), (2, "no"))]}]}]
    config = GRID.format(when=when).replace('"Correct"', f'"{second}"')
    found = import_project(config.encode(), name="config.xml", tasks=json.dumps(tasks).encode(),
                           tasks_name="tasks.json")
    assert found.ok, found.errors
    schemes = {scheme["name"]: scheme for scheme in found.raw["annotation_schemes"]}
    if when or second == "Polite":
        assert list(schemes) == ["reply_1", "reply_2", "why"] and found.raw["instructions"] == "How is the reply?"
        assert found.given[0].answers == {"reply_1": "yes", "reply_2": "no"}
        return
    assert list(schemes) == ["reply", "why"] and "instructions" not in found.raw
    assert schemes["reply"] == {"annotation_type": "multirate", "name": "reply", "description": "How is the reply?",
                                "options": ["Polite", "Correct"], "labels": [{"name": "yes"}, {"name": "no"}],
                                "label_requirement": {"required": True}}
    assert found.given[0].answers == {"reply": {"Polite": "yes", "Correct": "no"}}
    assert any("reply_1 … reply_2 (line 5): the rows of one grid, 'reply'" in note for note in found.notes)
    assert [(scheme["name"], scheme["from"]) for scheme in found.schemes()] == [
        ("reply", "<Choices> reply_1, reply_2"), ("why", "<TextArea>")]


def test_a_grid_of_each_item_s_own_rows_is_left_out_of_a_label_studio_config():
    """A config's controls are the same for every task, so a grid whose rows are each item's own has none."""
    design = load_text("""
title: Steps
items: {text_key: text}
annotation_schemes:
  - {annotation_type: multirate, name: steps, options_from_data: trace, labels: [good, bad]}
  - {annotation_type: multirate, name: tone, options: [Warm, Clear], labels: [good, bad]}
""", name="steps.yaml")
    config, _, left_out, _ = config_of(design)
    assert left_out == ["steps"]
    assert re.findall(r'<Choices name="(\w+)"', config) == ["tone_1", "tone_2"]


SLIDER = """<View>
  <Text name="text" value="$text"/>
  <Header value="How sure are you that it happened?"/>
  <Number name="sure" toName="text" min="0" max="10" step="0.5" defaultValue="5" slider="true" required="true"/>
  <Number name="words" toName="text" min="0" slider="true" defaultValue="3"/>
</View>
"""


@pytest.mark.django_db
def test_a_slider_is_a_number_drawn_as_a_slider_both_ways(tmp_path, capsys):
    """Label Studio's Number with slider="true" between two ends is a slider here (ends, step, start, requirement),
    and a slider goes out as one (without a start, which Label Studio would send as the answer of a slider nobody
    moved); a Number without both ends stays a box. The answers go there and back unchanged, and label-studio-sdk
    takes them."""
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps([
        {"id": 1, "data": {"text": "Had it rained, we would have stayed in."},
         "annotations": [{"completed_by": 3, "result": [
             {"id": "r1", "from_name": "sure", "to_name": "text", "type": "number", "value": {"number": 7.5}},
             {"id": "r2", "from_name": "words", "to_name": "text", "type": "number", "value": {"number": 12}}]}]},
        {"id": 2, "data": {"text": "It rained."},
         "annotations": [{"completed_by": 3, "result": [
             {"id": "r3", "from_name": "sure", "to_name": "text", "type": "number", "value": {"number": 3}}]}]}]))
    config = tmp_path / "config.xml"
    config.write_text(SLIDER)
    _, batch, line = _published(config, tasks)
    # Label Studio sends an untouched slider's defaultValue, or a box's, as its answer: here they are no answer.
    notes = import_project(SLIDER.encode(), name="config.xml", tasks=tasks.read_bytes(), tasks_name="t.json").notes
    assert any(note.startswith("<Number name='sure'> defaultValue (line 4): the slider starts there, and is no "
                               "answer until moved") for note in notes), notes
    assert "<Number name='words'> defaultValue='3' (line 5)" in line["ignored"], line["ignored"]
    design = batch_design(batch.pk)[0]
    sure, words = design.scheme("sure"), design.scheme("words")
    assert (sure.annotation_type, sure.min_value, sure.max_value, sure.step, sure.starting_value, sure.required) == (
        SliderType.name, 0, 10, 0.5, 5, True)
    assert sure.description == "How sure are you that it happened?"
    assert (words.annotation_type, words.min, words.max) == (NumberType.name, 0, None)
    stored = sorted((row["item"], row["scheme"], row["value"]) for row in answer_rows(batch))
    assert stored == [("1", "sure", 7.5), ("1", "words", 12), ("2", "sure", 3)]

    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "out", formats=("labelstudio",))}
    out = written["config.xml"].read_text()
    assert '<Number name="sure" toName="text" min="0" max="10" step="0.5" slider="true" required="true"/>' in out
    assert '<Number name="words" toName="text" min="0"/>' in out and "left-out.txt" not in written
    results = {(task["data"]["id"], result["from_name"]): result["value"]
               for task in json.loads(written["tasks.json"].read_text())
               for annotation in task["annotations"] for result in annotation["result"]}
    assert results == {("1", "sure"): {"number": 7.5}, ("1", "words"): {"number": 12}, ("2", "sure"): {"number": 3}}
    if not LS_PYTHON:
        pytest.skip("set CROWDSET_LS_PYTHON to a Python with label-studio-sdk")
    assert [entry["errors"] for entry in _validated(written, config)] == [[], [], [], []]
    again = _imported_again(written)
    assert again.design.scheme("sure") == sure.model_copy(update={"starting_value": None})
    assert sorted((entry.item, name, value) for entry in again.given for name, value in entry.answers.items()) == stored


@pytest.mark.django_db
def test_a_design_label_studio_asks_nothing_of_says_so_in_its_export(tmp_path):
    """Every question of the design without a Label Studio control: the config shows the items only (Label Studio
    takes it as a view-only project; the import here refuses it, as it asks nothing), and left-out.txt and the
    command say so first."""
    version = design_version_save(source="""
title: Free lists
items: {text_key: text}
annotation_schemes:
  - {annotation_type: free_list, name: fruit, description: Name fruit, min_items: 1}
""", name="lists.yaml")
    batch = design_batch_create(version=version, records=[Record(id="1", text="Fruit.")],
                                name="lists")
    out = io.StringIO()
    call_command("design", "export", str(batch.pk), "--out", str(tmp_path / "out"), "--formats", "labelstudio",
                 stdout=out)
    said = (tmp_path / "out" / "labelstudio" / "left-out.txt").read_text().splitlines()
    assert said[0] == ("The config asks nothing: Label Studio has no control for any scheme asked here, and shows "
                       "the items only (a view-only project).")
    assert said[1].endswith(": fruit")
    assert f"  {said[0]}\n" in out.getvalue()
    written = {path.name: path for path in (tmp_path / "out" / "labelstudio").iterdir()}
    assert not re.search(r"<(Choices|TextArea|Number|Labels|Rating)\b", written["config.xml"].read_text())
    again = import_project(written["config.xml"].read_bytes(), name="config.xml",
                           tasks=written["tasks.json"].read_bytes(), tasks_name="tasks.json")
    assert not again.ok and any("asks nothing" in error for error in again.errors), again.errors


@pytest.mark.django_db
def test_an_imported_slider_starts_where_label_studio_s_did_and_is_no_answer_until_moved(chromium, live_server,
                                                                                       tmp_path):
    """On a phone, the slider of a Label Studio Number stands at its defaultValue and says "not set"; the required
    one keeps the submit shut until it is moved, by keys alone, and the answer is where it was moved to."""
    from hits.models import Assignment
    from tests.browser import axe_clean, screenshot

    batch, context, page = _phone_page(chromium, live_server, tmp_path, SLIDER,
                                       [{"id": 1, "data": {"text": "Had it rained, we would have stayed in."}}])
    item = page.locator(".task-item").first
    sure = item.locator("[data-scheme=sure] input[type=range]")
    assert [float(sure.get_attribute(name) or "nan") for name in ("min", "max", "step")] == [0, 10, 0.5]
    assert sure.input_value() == "5"
    assert item.locator("[data-scheme=sure] output").inner_text() == "not set"
    assert item.locator("[data-scheme=words] input[type=number]").input_value() == ""  # a box: its default is not run
    axe_clean(page, "labelstudio-slider-phone")
    assert page.locator("#cf-submit").is_disabled()  # the required slider was not moved: nothing to send
    sure.focus()
    page.keyboard.press("ArrowRight")
    assert item.locator("[data-scheme=sure] output").inner_text() == "5.5"
    assert page.locator("#cf-submit").is_enabled()
    screenshot(page, "labelstudio-slider-phone")
    page.click("#cf-submit")
    page.wait_for_url(f"{live_server.url}/work/")
    context.close()
    assert next(iter(Assignment.objects.get(hit__batch=batch).answers.values())) == {"sure": 5.5}


def test_a_range_goes_to_label_studio_as_a_slider_an_end_and_comes_back_as_one_range(tmp_path):
    """Label Studio has no range: each end is a slider of its own under its end's header, the scale's end labels
    in the question. Imported again, the two are one range, with the same answers; an annotation whose low end is
    above its high end is named and left out; two sliders under other headers stay two."""
    design = load_text("""
title: Ages
items: {text_key: text}
annotation_schemes:
  - annotation_type: range_slider
    name: age
    description: How old is the writer?
    min_value: 0
    max_value: 100
    step: 5
    left_label: a child
    right_label: very old
    label_requirement: {required: true}
""", name="ages.yaml")
    config, _, left_out, _ = config_of(design)
    assert left_out == []
    assert ('<Header value="How old is the writer? (a child – very old)"/>\n  <Header value="Low end" size="6"/>'
            '<Number name="age_low" toName="text" min="0" max="100" step="5" slider="true" required="true"/>\n  '
            '<Header value="High end" size="6"/><Number name="age_high" toName="text" min="0" max="100" step="5" '
            'slider="true" required="true"/>') in config
    tasks = [{"id": number, "data": {"text": text}, "annotations": [{"completed_by": 1, "result": [
        {"id": f"{number}-{end}", "from_name": f"age_{end}", "to_name": "text", "type": "number",
         "value": {"number": value}} for end, value in ends.items()]}]}
        for number, text, ends in ((1, "Back in my day we walked.", {"low": 60, "high": 85}),
                                   (2, "mom says bedtime", {"low": 5, "high": 10}),
                                   (3, "Taxes again.", {"low": 50, "high": 30}))]
    (tmp_path / "config.xml").write_text(config)
    (tmp_path / "tasks.json").write_text(json.dumps(tasks))
    found = import_project(config.encode(), name="config.xml", tasks=json.dumps(tasks).encode(),
                           tasks_name="tasks.json")
    assert found.ok, found.errors
    assert found.design.scheme("age") == design.scheme("age").model_copy(update={
        "description": "How old is the writer? (a child – very old)", "left_label": "", "right_label": ""})
    assert "<Number> age_low and age_high (line 4): the two ends of one range, 'age', as this platform's export " \
           "writes one" in found.notes
    assert found.schemes() == [{"name": "age", "type": "range_slider", "from": "<Number> age_low, age_high"}]
    assert sorted((entry.item, entry.answers["age"]["low"], entry.answers["age"]["high"]) for entry in found.given) == [
        ("1", 60, 85), ("2", 5, 10)]
    assert any("task 3" in warning and "the low end (50) is above the high end (30)" in warning
               for warning in found.warnings), found.warnings
    if LS_PYTHON:
        checked = _validated({"config.xml": tmp_path / "config.xml", "tasks.json": tmp_path / "tasks.json"})
        assert [entry["errors"] for entry in checked] == [[], [], []]
    # Sliders named so under headers of their own are two sliders, each answer as it came.
    own = config.replace('"Low end"', '"Youngest"').replace('"High end"', '"Oldest"')
    apart = import_project(own.encode(), name="config.xml", tasks=json.dumps(tasks).encode(), tasks_name="tasks.json")
    assert [(scheme.name, scheme.annotation_type) for scheme in apart.design.annotation_schemes] == [
        ("age_low", SliderType.name), ("age_high", SliderType.name)]
    assert apart.design.scheme("age_low").description == "Youngest" and len(apart.given) == 3


def test_points_shared_out_go_to_label_studio_as_a_number_a_label_and_come_back_as_one_share(tmp_path):
    """Label Studio has no shares: each label is a Number of its own (a box, or a slider for Potato's soft label)
    under its label, the total in the question. Imported again, they are one constant sum with the same answers;
    an annotation whose points do not add up is named and left out; Numbers under a question without the total
    stay Numbers."""
    design = load_text("""
title: Blame
items: {text_key: text}
annotation_schemes:
  - {annotation_type: constant_sum, name: blame, description: "Who is to blame?", labels: [driver, weather, city],
     total_points: 10, label_requirement: {required: true}}
  - {annotation_type: constant_sum, name: stance, labels: [agree, disagree], total_points: 100, min_per_item: 5,
     input_type: slider, spread: true}
""", name="blame.yaml")
    config, _, left_out, _ = config_of(design)
    assert left_out == []
    assert ('<Header value="Who is to blame? (share out all 10 points)"/>\n  <Header value="driver" size="6"/>'
            '<Number name="blame_1" toName="text" min="0" max="10" step="1" required="true"/>') in config
    assert ('<Header value="stance (share out all 100 points)"/>\n  <Header value="agree" size="6"/><Number '
            'name="stance_1" toName="text" min="5" max="100" step="1" slider="true"/>') in config
    given = {1: {"blame_1": 6, "blame_3": 4, "stance_1": 70, "stance_2": 30},
             2: {"blame_1": 5, "blame_2": 5, "blame_3": 5, "stance_1": 50, "stance_2": 50}}
    tasks = [{"id": number, "data": {"text": f"Post {number}"}, "annotations": [{"completed_by": 1, "result": [
        {"id": f"{number}-{name}", "from_name": name, "to_name": "text", "type": "number", "value": {"number": value}}
        for name, value in answers.items()]}]} for number, answers in given.items()]
    (tmp_path / "config.xml").write_text(config)
    (tmp_path / "tasks.json").write_text(json.dumps(tasks))
    found = import_project(config.encode(), name="config.xml", tasks=json.dumps(tasks).encode(),
                           tasks_name="tasks.json")
    assert found.ok, found.errors
    assert found.design.scheme("blame") == design.scheme("blame")
    assert found.design.scheme("stance") == design.scheme("stance").model_copy(update={"spread": False})
    assert found.design.instructions == ""  # the questions and labels are the shares', not the study's
    assert "<Number> blame_1 … blame_3 (line 4): 10 points shared out over 3 labels, 'blame', as this platform's " \
           "export writes one" in found.notes
    # The report names the schemes the controls became, and which controls each came from.
    assert found.as_json()["schemes"] == [
        {"name": "blame", "type": "constant_sum", "from": "<Number> blame_1, blame_2, blame_3"},
        {"name": "stance", "type": "constant_sum", "from": "<Number> stance_1, stance_2"}]
    assert {entry.item: entry.answers for entry in found.given} == {
        "1": {"blame": {"driver": 6, "city": 4}, "stance": {"agree": 70, "disagree": 30}},
        "2": {"stance": {"agree": 50, "disagree": 50}}}
    assert any("task 2" in warning and "blame does not fit (share out all 10 points: 5 too many are given)"
               in warning for warning in found.warnings), found.warnings
    if LS_PYTHON:
        checked = _validated({"config.xml": tmp_path / "config.xml", "tasks.json": tmp_path / "tasks.json"})
        assert [entry["errors"] for entry in checked] == [[], []]
    apart = import_project(config.replace(" (share out all 10 points)", "").encode(), name="config.xml",
                           tasks=json.dumps(tasks).encode(), tasks_name="tasks.json")
    assert [scheme.name for scheme in apart.design.annotation_schemes] == ["blame_1", "blame_2", "blame_3", "stance"]
    assert apart.design.scheme("blame_2").description == "weather"


@pytest.mark.django_db
def test_best_worst_goes_to_label_studio_as_a_choice_a_pick_of_the_task_s_set_and_comes_back_as_one(tmp_path):
    """Label Studio has no best-worst: each pick is a single Choices under the pick's name, taking its choices from
    the task, where the export lists the item's set. Label Studio's checker takes the tasks and their answers;
    imported again, the two are one best-worst of each task's set, with the same answers. Tasks whose sets differ
    in size are refused by task."""
    version = design_version_save(source="""
title: Headlines
items: {text_key: text}
annotation_schemes:
  - {annotation_type: bws, name: funny, description: "Which is funniest, which least?", items_key: tuple,
     tuple_size: 4, best_description: Funniest, worst_description: Least funny, label_requirement: {required: true}}
""", name="headlines.yaml")
    sets = {"1": ["Cat elected mayor", "Rain falls", "Man bites dog", "Tax forms due"],
            "2": ["Bread rises", "Moon landing faked by moon", "Traffic slow", "Ducks unionise"]}
    batch = batch_publish(batch=design_batch_create(version=version, name="headlines", records=[
        Record(id=key, text=f"Set {key}", fields={"tuple": things}) for key, things in sets.items()]))
    picks = {"1": ("3", "2"), "2": ("4", "3")}  # the rows picked best and worst, as the page numbers them
    worker = Worker.objects.create(provider="inhouse", external_id="w1")
    while (assignment := assignment_claim(batch=batch, worker=worker)) is not None:
        answers = {}
        for item in assignment.hit.ordered_items():
            best, worst = picks[record(item).id]
            answers |= {f"a-{item.pk}-0-best": best, f"a-{item.pk}-0-worst": worst}
        assignment_submit(assignment=assignment, worker=worker, raw_answers=answers)
    stored = {row["item"]: row["value"] for row in answer_rows(batch)}
    assert stored == {"1": {"best": "Man bites dog", "worst": "Rain falls"},
                      "2": {"best": "Ducks unionise", "worst": "Traffic slow"}}

    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "out", formats=("labelstudio",))}
    config = written["config.xml"].read_text()
    assert ('<Header value="Which is funniest, which least?"/>\n  <Header value="Funniest" size="6"/><Choices '
            'name="funny_best" toName="text" choice="single" value="$funny_choices" required="true"/>\n  <Header '
            'value="Least funny" size="6"/><Choices name="funny_worst" toName="text" choice="single" '
            'value="$funny_choices" required="true"/>') in config and "left-out.txt" not in written
    tasks = json.loads(written["tasks.json"].read_text())
    assert {task["data"]["id"]: [entry["value"] for entry in task["data"]["funny_choices"]] for task in tasks} == sets
    assert {(task["data"]["id"], result["from_name"]): result["value"]["choices"] for task in tasks
            for annotation in task["annotations"] for result in annotation["result"]} == {
        ("1", "funny_best"): ["Man bites dog"], ("1", "funny_worst"): ["Rain falls"],
        ("2", "funny_best"): ["Ducks unionise"], ("2", "funny_worst"): ["Traffic slow"]}
    if LS_PYTHON:
        assert [entry["errors"] for entry in _validated(written)] == [[], []]
    again = _imported_again(written)
    funny = again.design.scheme("funny")
    assert (funny.annotation_type, funny.items_key, funny.tuple_size, funny.best_description, funny.worst_description,
            funny.description, funny.required) == (batch_design(batch.pk)[0].scheme("funny").annotation_type,
                                                   "funny_choices", 4, "Funniest", "Least funny",
                                                   "Which is funniest, which least?", True)
    assert again.design.instructions == ""  # the picks' names are theirs, not the study's
    assert {entry.item: entry.answers["funny"] for entry in again.given} == stored
    assert again.schemes() == [{"name": "funny", "type": funny.annotation_type,
                                "from": "<Choices> funny_best, funny_worst"}]
    tasks[1]["data"]["funny_choices"].pop()
    uneven = import_project(written["config.xml"].read_bytes(), name="config.xml", tasks=json.dumps(tasks).encode(),
                            tasks_name="tasks.json")
    assert uneven.errors == ["tasks.json: task 2 gives 3 things to pick the best and the worst of and task 1 4; each "
                             "task gives a set of the same size (<Choices name='funny_best'> (config.xml:4))"]
    # Label Studio lets one headline be picked best and worst: it is named by task here and left out.
    tasks[1]["data"]["funny_choices"].append({"value": "Ducks unionise"})
    tasks[0]["annotations"][0]["result"][1]["value"]["choices"] = ["Man bites dog"]
    same = import_project(written["config.xml"].read_bytes(), name="config.xml", tasks=json.dumps(tasks).encode(),
                          tasks_name="tasks.json")
    assert same.ok and {entry.item: entry.answers.get("funny") for entry in same.given} == {"2": stored["2"]}
    assert same.warnings == ["tasks.json: task 1 (line 1): annotation 1's funny does not fit (the best and the worst "
                             "must be different options); left out"]


@pytest.mark.django_db
def test_a_pairwise_tie_goes_to_label_studio_as_a_choice_beside_the_pair_and_comes_back_as_the_tie(tmp_path):
    """Label Studio's Pairwise picks a side and has no tie: the tie is a single Choices of its own beside it,
    offering the tie's words (stored as the tie's value where that differs). Label Studio's checker takes the
    tasks and their answers; imported again, the two are one pairwise scheme with its tie, its question the header
    above the pair, with the same answers (a side as Label Studio names it). Both picked is named and left out."""
    version = design_version_save(source="""
title: Endings
items: {text_key: story}
annotation_schemes:
  - {annotation_type: pairwise, name: better, description: "Which ending is better?", items_key: endings,
     labels: [A, B], allow_tie: true, tie_labels: [Equally good, Equally bad], label_requirement: {required: true}}
  - {annotation_type: pairwise, name: reply, description: "Which reply is kinder?", items_key: replies,
     labels: [{name: A, description: Reply A}, {name: B, description: Reply B}], allow_tie: true,
     tie_label: No preference, tie_value: tie, tie_key: "0"}
""", name="endings.yaml")
    batch = batch_publish(batch=design_batch_create(version=version, name="endings", records=[
        Record(id=key, text=f"Story {key}", fields={"endings": [f"End {key}a", f"End {key}b"],
                                                   "replies": [f"Reply {key}a", f"Reply {key}b"]})
        for key in ("1", "2")]))
    given = {"1": {"better": "Equally bad", "reply": "tie"}, "2": {"better": "B", "reply": "A"}}
    worker = Worker.objects.create(provider="inhouse", external_id="w1")
    while (assignment := assignment_claim(batch=batch, worker=worker)) is not None:
        answers = {}
        for item in assignment.hit.ordered_items():
            answers |= {f"a-{item.pk}-{place}": given[record(item).id][name]
                        for place, name in enumerate(("better", "reply"))}
        assignment_submit(assignment=assignment, worker=worker, raw_answers=answers)
    assert {row["item"]: row["value"] for row in answer_rows(batch) if row["scheme"] == "better"} == {
        "1": "Equally bad", "2": "B"}

    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "out", formats=("labelstudio",))}
    config = written["config.xml"].read_text()
    assert ('<Pairwise name="better" toName="endings_left,endings_right"/>\n  <Choices name="better_tie" '
            'toName="endings_left" choice="single"><Choice value="Equally good"/><Choice value="Equally bad"/>'
            '</Choices>') in config  # not required: Label Studio cannot ask for one of two controls
    assert ('<Choices name="reply_tie" toName="replies_left" choice="single"><Choice value="No preference" '
            'alias="tie" hotkey="0"/></Choices>') in config and "left-out.txt" not in written
    tasks = json.loads(written["tasks.json"].read_text())
    assert {(task["data"]["id"], result["from_name"]): result["value"] for task in tasks
            for annotation in task["annotations"] for result in annotation["result"]} == {
        ("1", "better_tie"): {"choices": ["Equally bad"]}, ("1", "reply_tie"): {"choices": ["tie"]},
        ("2", "better"): {"selected": "right"}, ("2", "reply"): {"selected": "left"}}
    if LS_PYTHON:
        assert [entry["errors"] for entry in _validated(written)] == [[], []]
    again = _imported_again(written)
    better, reply = again.design.scheme("better"), again.design.scheme("reply")
    assert (better.annotation_type, better.description, better.allow_tie, better.tie_labels, better.tie_value) == (
        batch_design(batch.pk)[0].scheme("better").annotation_type, "Which ending is better?", True,
        ["Equally good", "Equally bad"], "")
    assert (reply.description, reply.allow_tie, reply.tie_label, reply.tie_value, reply.tie_key) == (
        "Which reply is kinder?", True, "No preference", "tie", "0")
    assert again.design.instructions == ""  # the questions are the pairs', not the study's
    assert again.schemes() == [
        {"name": "better", "type": better.annotation_type, "from": "<Pairwise> better, <Choices> better_tie"},
        {"name": "reply", "type": reply.annotation_type, "from": "<Pairwise> reply, <Choices> reply_tie"}]
    assert {entry.item: entry.answers for entry in again.given} == {
        "1": {"better": "Equally bad", "reply": "tie"}, "2": {"better": "right", "reply": "left"}}
    # Label Studio lets a side be clicked and the tie ticked too; what it then stores (its Pairwise result names
    # the control itself as to_name) is named by task here and left out.
    for result in tasks[1]["annotations"][0]["result"]:
        result["to_name"] = result["from_name"] if result["type"] == "pairwise" else result["to_name"]
    tasks[1]["annotations"][0]["result"].append({"from_name": "better_tie", "to_name": "endings_left",
                                                 "type": "choices", "value": {"choices": ["Equally good"]}})
    both = import_project(written["config.xml"].read_bytes(), name="config.xml", tasks=json.dumps(tasks).encode(),
                          tasks_name="tasks.json")
    assert both.ok and {entry.item: entry.answers for entry in both.given}["2"] == {"reply": "left"}
    assert both.warnings == ["tasks.json: task 2 (line 1): annotation 1's better does not fit (a side and the tie "
                             "are both picked; pick one); left out"]


def test_a_pairwise_scale_goes_to_label_studio_as_a_row_of_points_and_comes_back_as_the_scale(tmp_path):
    """Label Studio's Pairwise only picks a side: a scale between the two things is a single Choices of its points
    in a row, on the first thing, just below both, its question saying what its ends mean. Label Studio's checker
    takes the tasks and answers; imported again, it is the same scale between the same two things, with the same
    answers. Points on objects not named as the export names a pair stay a pick of their own."""
    design = load_text("""
title: Endings
items: {text_key: story}
annotation_schemes:
  - {annotation_type: pairwise, name: better, description: "Which ending is better?", mode: scale, items_key: endings,
     scale: {min: -3, max: 3, min_label: A much better, max_label: B much better}, label_requirement: {required: true}}
  - {annotation_type: pairwise, name: kinder, mode: scale, items_key: replies,
     scale: {min: -4, max: 4, step: 2, min_label: A is Kinder}}
""", name="endings.yaml")
    config, _, left_out, _ = config_of(design)
    assert left_out == []
    assert ('<Text name="endings_left" value="$endings_left"/>\n  <Text name="endings_right" value="$endings_right"/>'
            '\n  <Header value="Which ending is better? (-3 = A much better, 3 = B much better)"/><Choices '
            'name="better" toName="endings_left" choice="single" showInline="true" required="true"><Choice value="-3"/>'
            '<Choice value="-2"/><Choice value="-1"/><Choice value="0"/><Choice value="1"/><Choice value="2"/><Choice '
            'value="3"/></Choices>') in config
    assert '<Header value="-4 = A is Kinder, 4 = the second is better"/>' in config  # no question: its ends alone
    given = {1: {"better": -2, "kinder": 4}, 2: {"better": 3, "kinder": -4}}
    tasks = [{"id": number, "data": {"story": f"Story {number}", "endings_left": f"End {number}a",
                                     "endings_right": f"End {number}b", "replies_left": f"Reply {number}a",
                                     "replies_right": f"Reply {number}b"},
              "annotations": [{"completed_by": 1, "result": [
                  {"id": f"{number}-{name}", "from_name": name, "to_name": f"{side}_left", "type": "choices",
                   "value": {"choices": [str(answers[name])]}} for name, side in (("better", "endings"),
                                                                                  ("kinder", "replies"))]}]}
             for number, answers in given.items()]
    (tmp_path / "config.xml").write_text(config)
    (tmp_path / "tasks.json").write_text(json.dumps(tasks))
    if LS_PYTHON:
        checked = _validated({"config.xml": tmp_path / "config.xml", "tasks.json": tmp_path / "tasks.json"})
        assert [entry["errors"] for entry in checked] == [[], []]
    found = import_project(config.encode(), name="config.xml", tasks=json.dumps(tasks).encode(),
                           tasks_name="tasks.json")
    assert found.ok, found.errors
    assert found.design.scheme("better") == design.scheme("better").model_copy(update={
        "description": "Which ending is better? (-3 = A much better, 3 = B much better)", "items_key": "better_pair",
        "scale": design.scheme("better").scale.model_copy(update={"min_label": "", "max_label": ""})})
    assert (found.design.scheme("kinder").scale.min, found.design.scheme("kinder").scale.step) == (-4, 2)
    assert found.design.instructions == "" and found.design.items.show == ["story"]
    assert "<Choices> better (line 5): the points of a scale from endings_left to endings_right, as this platform's " \
           "export writes a pairwise scale" in found.notes
    assert {entry.item: entry.answers for entry in found.given} == {"1": given[1], "2": given[2]}
    assert [record.fields["better_pair"] for record in found.records] == [["End 1a", "End 1b"], ["End 2a", "End 2b"]]
    # The same points on objects an imported project named otherwise: a pick of its own, the two things shown.
    own = config.replace('name="endings_left"', 'name="first"').replace('name="endings_right"', 'name="second"')
    own = own.replace('toName="endings_left"', 'toName="first"')
    apart = import_project(own.encode(), name="config.xml", tasks=json.dumps(tasks).encode(), tasks_name="tasks.json")
    assert apart.ok, apart.errors
    assert apart.design.scheme("better").annotation_type == RadioType.name
    assert (apart.design.items.text_key, apart.design.items.show_after[0]) == ("endings_left", "endings_right")


@pytest.mark.django_db
def test_a_cloze_goes_to_label_studio_as_its_passage_and_a_box_a_blank_and_comes_back_as_one(tmp_path):
    """Label Studio has no blanks in a text: the passage is a Header, each blank "___ (1)", its key never going out,
    and each blank a one-line TextArea named as Potato names the blank. Label Studio's checker takes the tasks and
    answers; imported again, they are one cloze of the same passage (its blanks without keys), with the same
    answers. A cloze whose passage is each item's own has no such form, and is left out."""
    version = design_version_save(source="""
title: Pets
items: {text_key: text}
annotation_schemes:
  - {annotation_type: cloze, name: fill, description: "Fill in the blanks",
     text: "The [[cat|kitten]] sat on the [[mat]].", label_requirement: {required: true}}
  - {annotation_type: cloze, name: own, source_field: passage}
""", name="pets.yaml")
    batch = batch_publish(batch=design_batch_create(version=version, name="pets", records=[
        Record(id=key, text=f"Story {key}", fields={"passage": "A [[dog]] barked."}) for key in ("1", "2")]))
    given = {"1": ("Kitten", "rug"), "2": ("dog", "mat")}
    worker = Worker.objects.create(provider="inhouse", external_id="w1")
    while (assignment := assignment_claim(batch=batch, worker=worker)) is not None:
        answers = {}
        for item in assignment.hit.ordered_items():
            first, second = given[record(item).id]
            answers |= {f"a-{item.pk}-0-1": first, f"a-{item.pk}-0-2": second, f"a-{item.pk}-1-1": "cat"}
        assignment_submit(assignment=assignment, worker=worker, raw_answers=answers)
    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "out", formats=("labelstudio",))}
    config = written["config.xml"].read_text()
    assert ('<Header value="Fill in the blanks"/>\n  <Header value="The ___ (1) sat on the ___ (2)." size="6"/>'
            '<TextArea name="fill_blank_1" toName="text" rows="1" placeholder="Blank 1" required="true"/><TextArea '
            'name="fill_blank_2" toName="text" rows="1" placeholder="Blank 2" required="true"/>') in config
    assert "kitten" not in config  # the keys stay here
    assert written["left-out.txt"].read_text().splitlines()[-1].endswith(": own")
    tasks = json.loads(written["tasks.json"].read_text())
    assert {(task["data"]["id"], result["from_name"]): result["value"]["text"] for task in tasks
            for annotation in task["annotations"] for result in annotation["result"]} == {
        ("1", "fill_blank_1"): ["Kitten"], ("1", "fill_blank_2"): ["rug"], ("2", "fill_blank_1"): ["dog"],
        ("2", "fill_blank_2"): ["mat"]}
    if LS_PYTHON:
        assert [entry["errors"] for entry in _validated(written)] == [[], []]
    again = _imported_again(written)
    fill = again.design.scheme("fill")
    assert (fill.annotation_type, fill.description, fill.text, fill.required) == (
        batch_design(batch.pk)[0].scheme("fill").annotation_type, "Fill in the blanks", "The [[]] sat on the [[]].",
        True)
    assert again.design.instructions == "" and again.ignored == [] and again.schemes() == [
        {"name": "fill", "type": fill.annotation_type, "from": "<TextArea> fill_blank_1, fill_blank_2"}]
    # A TextArea's placeholder of its own is the box's here, and goes back so.
    words = import_project(b'<View><Text name="text" value="$text"/><TextArea name="why" toName="text" '
                           b'placeholder="Say why"/></View>', name="config.xml", tasks=b'[{"text": "A."}]',
                           tasks_name="tasks.json")
    assert words.ok and words.ignored == [] and words.design.scheme("why").placeholder == "Say why"
    assert 'placeholder="Say why"' in config_of(words.design)[0]
    assert {entry.item: entry.answers["fill"] for entry in again.given} == {
        key: {"blank_1": first, "blank_2": second} for key, (first, second) in given.items()}
    # Where another control has the cloze's name, the blanks stay boxes of their own.
    taken = config.replace("</View>", '<TextArea name="fill" toName="text"/>\n</View>')
    apart = import_project(taken.encode(), name="config.xml", tasks=written["tasks.json"].read_bytes(),
                           tasks_name="tasks.json")
    assert apart.ok, apart.errors
    assert [scheme.name for scheme in apart.design.annotation_schemes] == ["fill_blank_1", "fill_blank_2", "fill"]


def test_a_pairwise_tie_or_scale_shown_on_a_condition_comes_back_with_it():
    """A View with Label Studio's visibleWhen holds a pair and its tie, or a scale: imported again, each is one
    pairwise scheme again, shown on the same condition."""
    design = load_text("""
title: Endings
items: {text_key: story}
annotation_schemes:
  - {annotation_type: radio, name: read, labels: ["yes", "no"]}
  - {annotation_type: pairwise, name: better, description: "Which is better?", items_key: endings, allow_tie: true,
     display_logic: {show_when: [{schema: read, operator: equals, value: "yes"}]}}
  - {annotation_type: pairwise, name: kinder, description: "Which is kinder?", mode: scale, items_key: replies,
     display_logic: {show_when: [{schema: read, operator: equals, value: "yes"}]}}
""", name="endings.yaml")
    config, _, left_out, always = config_of(design)
    assert left_out == always == [] and config.count('<View visibleWhen="choice-selected" whenTagName="read"') == 2
    tasks = json.dumps([{"id": 1, "data": {"story": "S", "endings_left": "E1", "endings_right": "E2",
                                           "replies_left": "R1", "replies_right": "R2"}}]).encode()
    again = import_project(config.encode(), name="config.xml", tasks=tasks, tasks_name="tasks.json")
    assert again.ok, again.errors
    assert [(scheme.name, scheme.annotation_type) for scheme in again.design.annotation_schemes] == [
        (scheme.name, scheme.annotation_type) for scheme in design.annotation_schemes]
    for name in ("better", "kinder"):
        assert again.design.scheme(name).display_logic == design.scheme(name).display_logic
    assert again.design.scheme("better").allow_tie and again.design.scheme("kinder").mode == "scale"


def test_a_header_above_the_objects_a_control_shows_by_itself_is_its_question():
    """The export writes a pair's or a list's question above the objects its control shows: imported again, it is
    that control's question, not the study's instructions. A header above objects some other control is about
    stays the instructions."""
    design = load_text("""
title: Replies
items: {text_key: text}
annotation_schemes:
  - {annotation_type: ranking, name: order, description: "Order the replies, best first", items_key: replies}
  - {annotation_type: pairwise, name: kinder, description: "Which is kinder?", items_key: pair}
""", name="replies.yaml")
    config, *_ = config_of(design)
    replies = [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}]
    tasks = json.dumps([{"id": 1, "data": {"text": "Q", "replies": replies, "pair_left": "Hi",
                                           "pair_right": "Go away"}}]).encode()
    again = import_project(config.encode(), name="config.xml", tasks=tasks, tasks_name="tasks.json")
    assert again.ok, again.errors
    assert [(scheme.name, scheme.description) for scheme in again.design.annotation_schemes] == [
        ("order", "Order the replies, best first"), ("kinder", "Which is kinder?")]
    assert again.design.instructions == ""
    # The pair's objects, then a question about the text: the header above the pair heads the study.
    other = config.replace('<Pairwise name="kinder" toName="pair_left,pair_right"/>',
                           '<Pairwise name="kinder" toName="pair_left,pair_right"/><Choices name="sure" toName="text" '
                           'choice="single"><Choice value="yes"/></Choices>')
    moved = re.sub(r'(<Header value="Which is kinder\?"/>\n  <Text name="pair_left" value="\$pair_left"/>\n  '
                   r'<Text name="pair_right" value="\$pair_right"/>\n  )(<Pairwise[^>]*>)(<Choices.*</Choices>)',
                   r"\1\3\2", other)
    assert moved != other
    apart = import_project(moved.encode(), name="config.xml", tasks=tasks, tasks_name="tasks.json")
    assert apart.ok, apart.errors
    assert apart.design.scheme("sure").description == "" and apart.design.instructions == "Which is kinder?"


@pytest.mark.django_db
def test_potato_s_best_worst_sets_go_to_label_studio_as_lines_to_read_and_choices_to_pick(tmp_path, capsys):
    """Potato's best-worst draws its sets from single items, each set an item whose text is the set: the export's
    Text shows it a headline a line (Label Studio's Text would join a list's entries with commas), and the picks
    offer the same set, in its order."""
    from tests.designs.fixtures import potato_project

    project = potato_project(Path(__file__).parent / "potato_side_by_side" / "headlines" / "config.yaml", capsys)
    written = {path.name: path for path in export_batch(batch=project.batches.get(), out=tmp_path / "out",
                                                        formats=("labelstudio",))}
    tasks = json.loads(written["tasks.json"].read_text())
    assert [task["data"]["text"].split("\n") == [entry["value"] for entry in task["data"]["positive_choices"]]
            for task in tasks] == [True, True]
    assert len(tasks[0]["data"]["text"].split("\n")) == 4
    if LS_PYTHON:
        assert [entry["errors"] for entry in _validated(written)] == [[], []]
