"""The organizer's design path in headless Chromium, as a new organizer walks it: pick a shipped design, see it
checked as they type (a typo named with its line), preview the task page for real items, make the project,
publish it, let an annotator answer, watch agreement per scheme and download the export. Then the same for a
Potato project uploaded on the design page: the check's report, the import, and the annotator using the keys
the config sets. axe-core finds nothing serious; the editor fits a 390 px phone."""

import io
import json
import re
import zipfile

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from playwright.sync_api import expect

from accounts import roles
from designs.models import DesignBatch
from hits.models import Assignment, Batch
from projects.models import Project
from tests.browser import axe_clean, drag_characters, log_in, screenshot
from tests.test_accessibility import DESKTOP, PHONE

pytestmark = [pytest.mark.django_db(transaction=True)]

COPA = [{"id": f"q{n}", "premise": f"The man broke his toe number {n}.", "question": "What was the cause?",
         "alternatives": ["He dropped a hammer on his foot.", "He got a hole in his sock."], "answer": "1",
         "subset": "original"} for n in range(1, 4)]

POTATO = """\
annotation_task_name: Tweets about the weather
task_dir: .
data_files: [data/tweets.jsonl]
item_properties: {id_key: tweet_id, text_key: tweet}
num_annotators_per_item: 1
port: 8000
site_dir: default
alert_time_each_instance: 600
annotation_schemes:
  - annotation_type: radio
    name: stance
    description: Is the writer happy with the weather?
    labels:
      - {name: happy, key_value: h}
      - {name: unhappy, key_value: u}
      - {name: unclear, key_value: x}
    label_requirement: {required: true}
  - annotation_type: span
    name: cause
    description: Underline what they are happy or unhappy about.
    labels: [{name: cause, key_value: c}]
    display_logic:
      show_when: [{schema: stance, operator: not_equals, value: unclear}]
  - annotation_type: multiselect
    name: topics
    description: What is it about?
    labels: [rain, heat, wind]
    sequential_key_binding: true
  - annotation_type: likert
    name: sure
    description: How sure are you?
    size: 5
    min_label: guessing
    max_label: certain
  - annotation_type: text
    name: comment
    description: Anything odd about it?
"""
TWEETS = [{"tweet_id": 1, "tweet": "Finally some <b>rain</b> today"},
          {"tweet_id": 2, "tweet": "Who knows what tomorrow brings"}]


def _people(tag):
    organizer = User.objects.create_user(f"boss{tag}", password="pass-word-1")
    organizer.groups.add(roles.group(roles.ORGANIZER))
    annotator = User.objects.create_user(f"rater{tag}", password="pass-word-1")
    annotator.groups.add(roles.group(roles.ANNOTATOR))


def _add_annotator(page, live_server, project, username):
    """The organizer makes someone with an account here an annotator of the project, on its People page (a project
    made in the browser is its members' only)."""
    page.goto(f"{live_server.url}/projects/{project.slug}/people/")
    page.fill("#id_who", username)
    page.select_option("#id_role", "annotator")
    page.get_by_role("button", name="Add to this project").click()
    page.wait_for_selector(f"#members:has-text('{username}')")


def _publish(page, live_server, project):
    page.goto(f"{live_server.url}/projects/{project.slug}/")
    page.get_by_role("link", name="Publish (confirm the cost)").click()
    page.check("#id_confirm")
    page.get_by_role("button", name="Publish").click()
    # The form lands on the batch page, which reloads itself while the publish job runs: wait for it and for
    # the job, then open the page afresh, so no late navigation replaces the next page the test goes to.
    page.wait_for_url(re.compile(r".*/batches/\d+/$"))
    batch = project.batches.get()
    for _ in range(100):
        batch.refresh_from_db()
        if batch.state == Batch.State.PUBLISHED:
            page.goto(f"{live_server.url}/projects/{project.slug}/batches/{batch.pk}/")
            return batch
        page.wait_for_timeout(100)
    raise AssertionError(f"batch {batch.pk} is {batch.state}, not published")


@override_settings(JOBS_RUNNER="thread")
def test_a_new_organizer_makes_a_project_from_a_shipped_design_and_exports_it(chromium, live_server, tmp_path):
    _people("1")
    items = tmp_path / "copa.jsonl"
    items.write_text("".join(json.dumps(row) + "\n" for row in COPA))
    context = chromium.new_context(**DESKTOP)
    page = context.new_page()
    log_in(page, live_server, "boss1", "pass-word-1", "/projects/")
    page.click("#new-from-design")
    page.get_by_role("link", name="Which alternative is more plausible?").click()
    page.wait_for_selector("#design-status:has-text('Valid: Which alternative is more plausible?')")
    # A typo: the check names its line as it is typed, and a click on the line selects it in the text.
    source = page.input_value("#design-source")
    page.fill("#design-source", source.replace("  items_per_hit: 10", "  items_per_hit: 10\n  rewrd: 1"))
    problem = page.wait_for_selector(".design-problems li:has-text('rewrd')")
    assert "hits.rewrd: unknown key 'rewrd'; did you mean 'reward'?" in problem.inner_text()
    line = source.splitlines().index("  items_per_hit: 10") + 2
    page.get_by_role("button", name=f"line {line}").click()
    assert page.evaluate("(() => { const t = document.getElementById('design-source');"
                         " return t.value.slice(t.selectionStart, t.selectionEnd); })()") == "  rewrd: 1"
    axe_clean(page, "design-editor-desktop", docs="organizer-design-editor")
    page.fill("#design-source", source.replace("items_per_hit: 10", "items_per_hit: 2").replace(
        "assignments_per_hit: 3", "assignments_per_hit: 1"))
    page.wait_for_selector("#design-status:has-text('Valid')")
    page.set_input_files("#design-items", str(items))
    page.select_option("#design-provider", "inhouse")
    with context.expect_page() as opened:
        page.click("#design-preview")
    preview = opened.value
    preview.wait_for_selector("#preview-banner")
    # The first HIT as the batch will pack it: 2 items a HIT, so 2 of the 3 (not simply the file's first few).
    assert "first HIT, packed as the batch packs it: 2 questions of the 3 in copa.jsonl" in " ".join(
        preview.inner_text("#preview-banner").split())
    assert preview.locator(".task-item").count() == 2
    previewed = [preview.inner_text(f".task-item >> nth={n} >> .design-text") for n in range(2)]
    preview.keyboard.press("1")  # the keys work as on the real page, nothing is sent
    assert preview.is_disabled("#cf-submit")
    axe_clean(preview, "design-preview", docs="organizer-preview")
    preview.close()
    page.click("#design-create")
    page.wait_for_url(f"{live_server.url}/projects/which-alternative-is-more-plausible/")
    project = Project.objects.get()
    assert project.design == "design-file" and DesignBatch.objects.get().version.slug == "bcopa"
    batch = _publish(page, live_server, project)
    assert batch.provider == "inhouse" and batch.hits.count() == 2
    assert previewed == [item.content.text for item in batch.hits.get(index=0).ordered_items()]
    _add_annotator(page, live_server, project, "rater1")

    worker = chromium.new_context(**DESKTOP)
    annotator = worker.new_page()
    log_in(annotator, live_server, "rater1", "pass-word-1", "/work/")
    for _ in range(2):
        annotator.click("text=Take a HIT")
        annotator.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
        for _ in range(annotator.locator(".task-item").count()):
            annotator.keyboard.press("1")
        screenshot(annotator, "design-task-answered", full_page=False, docs="organizer-task-page")
        annotator.keyboard.press("Enter")
        annotator.wait_for_url(f"{live_server.url}/work/")
    assert Assignment.objects.filter(hit__batch=batch, state="submitted").count() == 2
    worker.close()

    page.goto(f"{live_server.url}/projects/{project.slug}/")
    # A job computes the figures and the page reloads when it is done. One answer an item: the step says why there
    # is no agreement yet, instead of an unexplained dash.
    page.wait_for_selector("#step-report:has-text('choice: no agreement yet (each item has one answer so far; "
                           "agreement needs two)')")
    # Locators, not element handles: the page reloads itself as its jobs end, and a locator finds the new element.
    page.locator("#step-export button:has-text('Export answers and labels (zip)')").click()
    # The export is a job too: the page follows it and links the zip it wrote.
    link = page.locator("#step-export a:has-text('Download the export of')")
    link.wait_for()
    # The page reloads itself while a job of it runs (static/js/live.js): the link can show on a page that reloads
    # once more as the report's job ends. Wait for the page that no longer follows a job, then for its link.
    expect(page.locator("#live[data-busy='true']")).to_have_count(0, timeout=60_000)
    link.wait_for()
    page.locator("#step-report").scroll_into_view_if_needed()
    screenshot(page, "design-project-report", docs="organizer-report")
    with page.expect_download() as download:
        link.click()
    archive = zipfile.ZipFile(io.BytesIO(download.value.path().read_bytes()))
    answers = [name for name in archive.namelist() if name.endswith("/answers.csv")]
    assert answers and archive.read(answers[0]).decode().count("\n") == 4  # a header and three answers
    context.close()


def test_the_design_editor_fits_a_390_px_phone(chromium, live_server):
    _people("2")
    context = chromium.new_context(**PHONE)
    page = context.new_page()
    log_in(page, live_server, "boss2", "pass-word-1", "/projects/designs/new/?start=semeval-subtask2")
    page.wait_for_selector("#design-status:has-text('Valid')")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow} px"
    axe_clean(page, "design-editor-phone")
    context.close()


@override_settings(JOBS_RUNNER="thread")
def test_a_potato_project_uploaded_in_the_browser_runs_with_its_own_keys(chromium, live_server, tmp_path):
    _people("3")
    folder = tmp_path / "weather"
    (folder / "data").mkdir(parents=True)
    (folder / "config.yaml").write_text(POTATO)
    (folder / "data" / "tweets.jsonl").write_text("".join(json.dumps(row) + "\n" for row in TWEETS))
    zipped = tmp_path / "weather.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        for path in folder.rglob("*"):
            archive.write(path, path.relative_to(tmp_path))
    context = chromium.new_context(**DESKTOP)
    page = context.new_page()
    log_in(page, live_server, "boss3", "pass-word-1", "/projects/designs/new/")
    page.set_input_files("#potato-files", str(zipped))
    page.click("#potato-check")
    report = page.wait_for_selector(".potato-report")
    text = report.inner_text()
    assert "weather/config.yaml: ready, with 1 warning" in text and "2 items" in text
    assert "stance (radio), cause (span), topics (multiselect), sure (likert), comment (text)" in text
    assert "Ignored (Potato's own server and pages): port, site_dir" in text
    # What changes the study is named, with what happens here instead: never a silent "ready".
    assert report.query_selector(".potato-warnings li").inner_text().startswith(
        "alert_time_each_instance: there is no \"still there?\" alert")
    assert not Project.objects.exists()  # a check makes nothing
    report.scroll_into_view_if_needed()
    axe_clean(page, "potato-check", docs="potato-check")
    page.click("#potato-import")
    page.wait_for_url(f"{live_server.url}/projects/tweets-about-the-weather/")
    project = Project.objects.get()
    batch = _publish(page, live_server, project)
    _add_annotator(page, live_server, project, "rater3")

    worker = chromium.new_context(**DESKTOP)
    annotator = worker.new_page()
    log_in(annotator, live_server, "rater3", "pass-word-1", "/work/")
    annotator.click("text=Take a HIT")
    annotator.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    first = annotator.locator(".task-item").first
    assert first.locator(".scheme-span").is_hidden()
    # The text is shown once, before the questions, and is the text the span scheme marks when it shows.
    assert first.locator(".design-text").inner_text() == "Finally some <b>rain</b> today"  # read before answering
    assert first.locator(".design-text").count() == 1 and first.evaluate(
        "item => !!(item.querySelector('.design-text').compareDocumentPosition(item.querySelector('.scheme')) & 4)")
    annotator.keyboard.press("h")  # happy: the config's key; the span scheme now shows and marks that text
    assert first.locator(".scheme-span").is_visible() and first.locator(".span-text").is_visible()
    first.locator(".span-text").focus()
    for key in ("ArrowRight", "ArrowRight", "ArrowRight", *["Shift+ArrowRight"] * 7):
        annotator.keyboard.press(key)  # "<b>rain</b>": its marks are words of their own
    annotator.keyboard.press("c")
    assert "cause: <b>rain</b>" in first.locator(".span-list").inner_text()
    # As in Potato, a span marks the characters selected with the mouse, not only whole words.
    drag_characters(annotator, first.locator(".span-text"), 0, 5)
    annotator.keyboard.press("c")
    assert first.locator(".span-list").inner_text().startswith("cause: Final")
    screenshot(annotator, "potato-spans-on-the-text")
    # No key does two things on one item: topics is numbered 1-3, so sure (also numbered) gets the next row of
    # the keyboard, q-t, as Potato allots them; each control says its key.
    assert first.locator("[data-type=likert] [aria-keyshortcuts]").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-keyshortcuts'))") == ["q", "w", "e", "r", "t"]
    annotator.keyboard.press("1")  # topics: rain
    annotator.keyboard.press("r")  # sure: 4 of 5
    first.locator("textarea, input[type=text]").first.fill("nothing odd")
    # As in Potato, one item at a time, in the file's order: Next (or →, once out of the text box) shows the next.
    second = annotator.locator(".task-item").nth(1)
    assert second.is_hidden()
    annotator.get_by_role("button", name="Next →").click()
    assert first.is_hidden() and second.is_visible() and annotator.inner_text("#item-place") == "Item 2 of 2"
    annotator.keyboard.press("ArrowLeft")
    assert first.is_visible() and second.is_hidden()
    annotator.keyboard.press("ArrowRight")
    annotator.keyboard.press("x")  # unclear: no span asked
    assert second.locator(".scheme-span").is_hidden() and second.locator(".design-text").is_visible()
    second.locator("label:has-text('wind')").click()
    axe_clean(annotator, "potato-task")
    annotator.click("#cf-submit")
    annotator.wait_for_url(f"{live_server.url}/work/")
    worker.close()
    assignment = Assignment.objects.get(hit__batch=batch)
    items = assignment.hit.ordered_items()
    answer = assignment.answers[str(items[0].pk)]
    assert answer["stance"] == "happy" and answer["topics"] == ["rain"] and answer["sure"] == 4
    assert answer["cause"] == [{"start": 0, "end": 5, "label": "cause", "text": "Final"},
                               {"start": 13, "end": 24, "label": "cause", "text": "<b>rain</b>"}]
    assert answer["comment"] == "nothing odd"
    assert assignment.answers[str(items[1].pk)] == {"stance": "unclear", "topics": ["wind"]}

    page.goto(f"{live_server.url}/projects/{project.slug}/")
    page.wait_for_selector("#step-report:has-text('sure: no agreement yet')")  # once the figures job is done
    summary = page.inner_text("#step-report")
    assert "stance: no agreement yet" in summary and "sure: no agreement yet" in summary
    context.close()


def _hit_of(chromium, live_server, number, device, source, items):
    """A design's batch of `items` (JSON Lines) published, and annotator `rater<number>` on its first HIT."""
    from designs.items import read_items
    from designs.services import design_batch_create, design_version_save
    from hits.services import batch_publish

    _people(number)
    version = design_version_save(source=source, slug=f"study-{number}")
    records = read_items(items, name="items.jsonl", design=version.design)
    batch = batch_publish(batch=design_batch_create(version=version, records=records, name=f"study-{number}"))
    context = chromium.new_context(**device)
    page = context.new_page()
    log_in(page, live_server, f"rater{number}", "pass-word-1", "/work/")
    page.click("text=Take a HIT")
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    return batch, context, page


def test_a_boxs_key_ticks_and_unticks_it_and_stays_on_the_item(chromium, live_server):
    """As in Potato: the keys of a multiselect tick several boxes of one item; j moves on."""
    batch, context, page = _hit_of(chromium, live_server, "4", DESKTOP, "title: Topics\nannotation_schemes:\n  - "
                                   "{annotation_type: multiselect, name: topics, labels: [rain, heat, wind], "
                                   "sequential_key_binding: true}\n",
                                   b'{"id": "a", "text": "Hot and windy."}\n{"id": "b", "text": "Rain all day."}\n')
    first = page.locator(".task-item.current").get_attribute("data-item")
    for key in ("2", "3", "1", "1"):  # heat, wind, rain, rain again: untick
        page.keyboard.press(key)
    assert page.locator(".task-item.current").get_attribute("data-item") == first  # still on the first item
    page.keyboard.press("j")
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/work/")
    context.close()
    assignment = Assignment.objects.get(hit__batch=batch)
    answers = {item.content.text: assignment.answers[str(item.pk)]["topics"] for item in assignment.hit.ordered_items()}
    first_text = next(item.content.text for item in assignment.hit.ordered_items() if str(item.pk) == first)
    assert answers[first_text] == ["heat", "wind"]
    assert sorted(answers.values()) == [["heat", "wind"], ["rain"]]


def test_a_question_no_key_picks_is_answered_by_the_arrows_on_a_phone(chromium, live_server):
    """A question whose choices have no keys is reached by Tab at one of them, as any group of radios: by keyboard
    alone, ↑ and ↓ move its pick (not to another item), on a question keys pick too, as Potato leaves them; j moves
    on."""
    batch, context, page = _hit_of(chromium, live_server, "5", PHONE, """title: Endings
annotation_schemes:
  - {annotation_type: radio, name: tone, description: "Its tone?", labels: [warm, cold, flat, odd, sad]}
  - {annotation_type: radio, name: sure, description: "Sure?", labels: [yes, no], sequential_key_binding: true}
""", b'{"id": "a", "text": "One."}\n{"id": "b", "text": "Two."}\n')
    first = page.locator(".task-item.current").get_attribute("data-item")
    assert page.locator(".task-item.current [data-scheme=tone]").get_attribute("data-keys") == "{}"
    page.locator(".task-item.current [data-scheme=tone] input[type=radio]").first.focus()
    page.keyboard.press("Space")
    for _ in range(4):  # warm, then four on: sad
        page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowUp")  # and one back: odd
    assert page.locator(".task-item.current").get_attribute("data-item") == first
    page.keyboard.press("Tab")  # the next question, which keys pick: ↓ moves its pick too
    assert page.evaluate("document.activeElement.closest('[data-scheme]').dataset.scheme") == "sure"
    page.keyboard.press("ArrowDown")
    assert page.locator(".task-item.current").get_attribute("data-item") == first
    page.keyboard.press("j")
    assert page.locator(".task-item.current").get_attribute("data-item") != first
    page.keyboard.press("1")  # the second item: sure, yes
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/work/")
    context.close()
    assignment = Assignment.objects.get(hit__batch=batch)
    second = next(key for key in assignment.answers if key != first)
    assert assignment.answers == {first: {"tone": "odd", "sure": "no"}, second: {"sure": "yes"}}


def test_a_potato_best_worst_set_is_answered_by_its_keys(chromium, live_server):
    """Potato's best-worst keys: 1–4 pick the best row, q/w/e/r the worst; → shows the next set. Every key is
    declared on its control (aria-keyshortcuts)."""
    from designs.potato import UploadedFolder, import_config
    from designs.services import design_batch_create, design_version_save
    from hits.services import batch_publish

    _people("5")
    items = "".join(json.dumps({"id": f"s{n}", "text": f"sentence {n}"}) + "\n" for n in range(8)).encode()
    found = import_config(b"annotation_task_name: Most positive\ndata_files: [items.jsonl]\n"
                          b"bws_config: {tuple_size: 4, num_tuples: 2}\nannotation_schemes:\n"
                          b"  - {annotation_type: bws, name: bw, best_description: Most, worst_description: Least}\n",
                          name="config.yaml", folder=UploadedFolder({"items.jsonl": items}))
    version = design_version_save(source=found.source(), slug="bws-keys")
    batch = batch_publish(batch=design_batch_create(version=version, records=found.records, name="bws"))
    context = chromium.new_context(**DESKTOP)
    page = context.new_page()
    log_in(page, live_server, "rater5", "pass-word-1", "/work/")
    page.click("text=Take a HIT")
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    current = page.locator(".task-item.current")
    assert current.locator("[aria-keyshortcuts]").evaluate_all("els => els.map(e => e.getAttribute("
                                                               "'aria-keyshortcuts'))") == [
        "1", "q", "2", "w", "3", "e", "4", "r"]
    first = current.get_attribute("data-item")
    page.keyboard.press("2")  # the best: the second row
    page.keyboard.press("r")  # the worst: the fourth row; answered. One set at a time, as in Potato: → moves on
    assert page.locator(".task-item.current").get_attribute("data-item") == first
    page.keyboard.press("ArrowRight")
    assert page.locator(".task-item.current").get_attribute("data-item") != first
    page.keyboard.press("1")
    page.keyboard.press("q")  # best and worst on one row: the page says so at once, as the server would refuse it
    assert page.inner_text(".task-item.current .pick-note") == "The best and the worst must be different options."
    assert page.inner_text("#cf-progress") == "1 of 2 answered"
    axe_clean(page, "bws-keys")
    page.keyboard.press("w")  # ... so the worst moves to the second row: a key changes a pick
    assert page.inner_text(".task-item.current .pick-note") == ""
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/work/")
    context.close()
    assignment = Assignment.objects.get(hit__batch=batch)
    answers = {}
    for item in assignment.hit.ordered_items():
        options = item.content.fields["text"]
        answer = assignment.answers[str(item.pk)]["bw"]
        answers[str(item.pk)] = (options.index(answer["best"]) + 1, options.index(answer["worst"]) + 1)
    assert answers[first] == (2, 4) and sorted(answers.values()) == [(1, 2), (2, 4)]


def test_a_potato_zip_with_saved_work_says_what_came_over_on_a_phone_too(chromium, live_server, tmp_path):
    """The weather project zipped with the work Potato saved for it: the check's report says how many answers came
    over and from where, and what of them could not be read, at 1280 px and on a 390 px phone."""
    from pathlib import Path

    _people("9")
    here = Path(__file__).parent
    state = json.loads((here / "potato_saved" / "weather" / "ada" / "user_state.json").read_text())
    state["instance_id_to_label_to_value"]["t2"].append([{"schema": "stance", "name": "stormy"}, "stormy"])
    zipped = tmp_path / "weather.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        for name in ("config.yaml", "data/tweets.jsonl"):
            archive.write(here / "potato_side_by_side" / "weather" / name, f"weather/{name}")
        archive.writestr("weather/annotation_output/ada/user_state.json", json.dumps(state))
    for device, name in ((DESKTOP, "potato-saved-work-desktop"), (PHONE, "potato-saved-work-phone")):
        context = chromium.new_context(**device)
        page = context.new_page()
        log_in(page, live_server, "boss9", "pass-word-1", "/projects/designs/new/")
        page.set_input_files("#potato-files", str(zipped))
        page.click("#potato-check")
        report = page.wait_for_selector(".potato-report")
        text = " ".join(report.inner_text().split())
        assert ("2 annotations by 1 annotator came with the project's saved work (annotation_output): kept as "
                "their answers beside the crowd's") in text
        # Two stances on t2 where the scheme takes one: named with its file, that answer left out.
        assert "annotation_output/ada/user_state.json: ada's stance on item 't2' does not fit" in text
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the page scrolls sideways by {overflow} px"
        report.scroll_into_view_if_needed()
        axe_clean(page, name)
        context.close()
