"""The design page's endpoints refuse what they must, by name: the live check answers with lines, a zip that
reaches outside its folder or is no zip, an upload with no Potato config, an organizer-only page for
everyone else; text from an upload is escaped."""

import io
import zipfile

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile

from accounts import roles
from projects.models import Project

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer(client):
    user = User.objects.create_user("boss", password="pass-word-1")
    user.groups.add(roles.group(roles.ORGANIZER))
    client.force_login(user)
    return client


def _zip(entries):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in entries.items():
            archive.writestr(name, text)
    return SimpleUploadedFile("project.zip", buffer.getvalue())


def _broken(upload, *, encrypted=False):
    """The zip with its first member marked encrypted (the flag in both of its headers), or with the CRC its
    central directory gives that member wrong (zipfile raises RuntimeError and BadZipFile reading it)."""
    data = bytearray(upload.read())
    local, central = data.find(b"PK\x03\x04"), data.find(b"PK\x01\x02")
    if encrypted:
        data[local + 6] |= 1
        data[central + 8] |= 1
    else:
        data[central + 16] ^= 0xFF
    return SimpleUploadedFile(upload.name, bytes(data))


def test_the_live_check_names_each_problem_with_its_line(organizer):
    found = organizer.post("/projects/designs/check.json", {
        "source": "title: t\nannotation_schemes:\n  - {annotation_type: radoi, name: a}\n", "file_name": "s.yaml"})
    body = found.json()
    assert body["valid"] is False
    assert body["problems"][0]["line"] == 3 and "did you mean 'radio'" in body["problems"][0]["message"]
    ok = organizer.post("/projects/designs/check.json", {
        "source": "title: t\nannotation_schemes:\n  - {annotation_type: text, name: a}\n"}).json()
    assert ok == {"valid": True, "title": "t", "problems": [], "schemes": [{"name": "a", "type": "text"}]}


@pytest.mark.parametrize("upload,expected", [
    (lambda: _zip({"../evil/config.yaml": "annotation_schemes: []"}), "a path outside the folder"),
    (lambda: SimpleUploadedFile("project.zip", b"not a zip"), "project.zip: is not a zip file"),
    (lambda: _broken(_zip({"config.yaml": "annotation_schemes: []"}), encrypted=True),
     "project.zip: 'config.yaml' is encrypted; zip the folder again without a password"),
    (lambda: _broken(_zip({"config.yaml": "annotation_schemes: []"})),
     "project.zip: 'config.yaml' cannot be unpacked (Bad CRC-32 for file 'config.yaml'): the zip is damaged"),
    (lambda: SimpleUploadedFile("notes.txt", b"hello"), "none of the uploaded files is a Potato config"),
])
def test_potato_uploads_that_cannot_be_read_are_refused_by_name(organizer, upload, expected):
    found = organizer.post("/projects/designs/potato/", {"files": upload(), "action": "import"},
                           HTTP_ACCEPT="application/json")
    assert found.status_code == 400 and expected in found.json()["error"]
    assert not Project.objects.exists()


def test_a_potato_report_escapes_what_the_upload_says(organizer):
    config = ("annotation_task_name: t\ndata_files: [items.jsonl]\nannotation_schemes:\n"
              "  - {annotation_type: '<script>alert(1)</script>', name: x}\n")
    found = organizer.post("/projects/designs/potato/", {
        "files": [_zip({"p/config.yaml": config, "p/items.jsonl": '{"id": 1, "text": "a"}\n'})], "action": "check"})
    page = found.content.decode()
    assert found.status_code == 200 and "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "not ready" in page


def test_the_design_pages_are_for_organizers_only(client):
    annotator = User.objects.create_user("rater", password="pass-word-1")
    annotator.groups.add(roles.group(roles.ANNOTATOR))
    client.force_login(annotator)
    assert client.get("/projects/designs/new/").status_code == 403
    assert client.post("/projects/designs/check.json", {"source": "title: t"}).status_code == 403


def test_a_potato_zip_with_its_saved_work_brings_the_answers(organizer):
    """The weather project zipped with its annotation_output/: the check says how many answers came over and from
    where; the import keeps them as the annotator's beside the crowd's."""
    from pathlib import Path

    from designs.models import OutsideAnswer

    runs, saved = Path(__file__).parent / "potato_side_by_side", Path(__file__).parent / "potato_saved"
    files = {"weather/config.yaml": (runs / "weather" / "config.yaml").read_text(),
             "weather/data/tweets.jsonl": (runs / "weather" / "data" / "tweets.jsonl").read_text(),
             "weather/annotation_output/ada/user_state.json": (saved / "weather" / "ada" / "user_state.json")
             .read_text()}
    check = organizer.post("/projects/designs/potato/", {"files": [_zip(files)], "action": "check"})
    assert ("2 annotations by 1 annotator came with the project's saved work (annotation_output): kept as their "
            "answers beside the crowd's") in " ".join(check.content.decode().split())
    organizer.post("/projects/designs/potato/", {"files": [_zip(files)], "action": "import"})
    stored = {answer.item.key: answer.answers for answer in OutsideAnswer.objects.filter(source="potato",
                                                                                          annotator="ada")}
    spans = [{"start": 0, "end": 5, "label": "cause", "text": "Final"},
             {"start": 13, "end": 17, "label": "cause", "text": "rain"}]
    assert stored == {"record:t1": {"stance": "happy", "cause": spans, "topics": ["rain"], "sure": 4,
                                    "comment": "nothing odd"},
                      "record:t2": {"stance": "unhappy", "topics": ["wind"]}}
