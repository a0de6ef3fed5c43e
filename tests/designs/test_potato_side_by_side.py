"""Potato projects run here as they were run in Potato 2.12.1: the same choices, made by keyboard on our page (a
span by the mouse, as Potato marks characters), and our export in Potato's own format (designs.export's potato)
says what Potato's export said (potato_side_by_side/README.md)."""

import csv
import io
import json
from pathlib import Path

from playwright.sync_api import expect

from designs.export import export_batch
from designs.task_type import DESIGN
from hits.models import Assignment
from hits.services import batch_publish
from tests.browser import drag_characters, screenshot
from tests.designs.fixtures import hit_page, potato_project, project_annotator
from tests.test_accessibility import DESKTOP, PHONE, _check

FOLDER = Path(__file__).parent / "potato_side_by_side"


def _without_user(record: dict) -> dict:
    return {key: value for key, value in record.items() if key != "user_id"}


def _jsonl(text: str) -> dict[str, dict]:
    """Records by item, without the annotator's name (ours are pseudonyms)."""
    return {record["instance_id"]: _without_user(record) for record in map(json.loads, text.splitlines())}


def _csv(text: str) -> tuple[set[str], dict[str, dict]]:
    rows = list(csv.DictReader(io.StringIO(text)))
    return set(rows[0]), {row["instance_id"]: _without_user(row) for row in rows}


def _tick(page, control):
    """A radio or box chosen from the keyboard: reached (as Tab reaches it) and Space pressed."""
    control.focus()
    page.keyboard.press("Space")
    assert control.is_checked()


def _type(page, box, text):
    box.focus()
    page.keyboard.type(text)


def _pick(page, select, option):
    """An option of a drop-down chosen by typing its first letters, as a keyboard does."""
    select.focus()
    page.keyboard.type(option)
    assert select.input_value() == option


def _next(page):
    page.get_by_role("button", name="Next →").focus()
    page.keyboard.press("Enter")


def _start(project_name, chromium, live_server, capsys, device=DESKTOP):
    """The Potato config imported and published, and its annotator on the first item."""
    project = potato_project(FOLDER / project_name / "config.yaml", capsys)
    batch = batch_publish(batch=project.batches.get())
    project_annotator(project, "ada")
    context, page = hit_page(chromium, live_server, "ada", device)
    return batch, context, page


def _submit_and_compare(page, context, live_server, batch, project_name, out):
    page.locator("#cf-submit").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/work/")
    context.close()
    assert Assignment.objects.get(hit__batch=batch).state == Assignment.State.SUBMITTED
    written = {path.name: path for path in export_batch(batch=batch, out=out, formats=("potato",))}
    ours = written["annotations.jsonl"].read_text()
    assert {json.loads(line)["user_id"] for line in ours.splitlines()} == {"W1"}  # a pseudonym, as elsewhere
    assert _jsonl(ours) == _jsonl((FOLDER / project_name / "potato-annotations.jsonl").read_text())
    assert _csv(written["annotations.csv"].read_text()) == _csv(
        (FOLDER / project_name / "potato-annotations.csv").read_text())


def test_radio_span_multiselect_likert_and_text_save_what_potato_saves(chromium, live_server, tmp_path, capsys):
    batch, context, page = _start("weather", chromium, live_server, capsys)
    first = page.locator(".task-item").first
    assert first.locator(".design-text").inner_text() == "Finally some rain today"  # the file's order, as Potato
    page.keyboard.press("h")
    for start, end in ((0, 5), (13, 17)):  # Potato marks as the mouse selects; here the label's key follows
        drag_characters(page, first.locator(".span-text"), start, end)
        page.keyboard.press("c")
    page.keyboard.press("1")
    _tick(page, first.locator("[data-scheme=sure] input[value='4']"))
    _type(page, first.locator("[data-scheme=comment] input[type=text], [data-scheme=comment] textarea").first,
          "nothing odd")
    _next(page)
    page.keyboard.press("u")
    page.keyboard.press("3")
    _submit_and_compare(page, context, live_server, batch, "weather", tmp_path / "export")


def test_pairwise_multirate_slider_select_and_number_save_what_potato_saves(chromium, live_server, tmp_path,
                                                                            capsys):
    """The same on a 390 px phone: the two replies side by side become one above the other."""
    batch, context, page = _start("replies", chromium, live_server, capsys, device=PHONE)
    first, second = page.locator(".task-item").nth(0), page.locator(".task-item").nth(1)
    page.keyboard.press("2")  # Reply B
    _tick(page, first.locator("[data-scheme=quality] tr:has-text('clarity') input[value='3']"))
    _tick(page, first.locator("[data-scheme=quality] tr:has-text('tone') input[value='1']"))
    first.locator("input[type=range]").focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    _pick(page, first.locator("select"), "billing")
    _type(page, first.locator("input[type=number]"), "4")
    screenshot(page, "potato-replies-phone")
    _next(page)
    page.keyboard.press("0")  # the tie
    _tick(page, second.locator("[data-scheme=quality] tr:has-text('clarity') input[value='2']"))
    _tick(page, second.locator("[data-scheme=quality] tr:has-text('tone') input[value='2']"))
    _pick(page, second.locator("select"), "shipping")
    _submit_and_compare(page, context, live_server, batch, "replies", tmp_path / "export")


def test_pairwise_scales_look_key_and_save_as_potato_s_sliders(chromium, live_server, tmp_path, capsys):
    """Potato's scale is a slider under what its ends and middle mean ("Reply A: Reply A is better", "Equal" unless
    named), starting where `default` says and saved only once moved; the same keys here save the same."""
    batch, context, page = _start("scales", chromium, live_server, capsys)
    first, second = page.locator(".task-item").nth(0), page.locator(".task-item").nth(1)
    assert first.locator("[data-scheme=how_much] .pair-scale-ends").inner_text().split("\n") == [
        "Reply A: Reply A is better", "Equal", "Reply B: Reply B is better"]
    assert first.locator("[data-scheme=kinder] .pair-scale-ends").inner_text().split("\n") == [
        "A: A is much kinder", "As kind", "B: B is much kinder"]
    assert [first.locator(f"[data-scheme={name}] input[type=range]").input_value()
            for name in ("how_much", "kinder")] == ["0", "1"]
    assert first.locator("[data-scheme=how_much] output").inner_text() == "not set"
    first.locator("[data-scheme=how_much] input[type=range]").focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    first.locator("[data-scheme=kinder] input[type=range]").focus()
    page.keyboard.press("ArrowLeft")  # on a slider the arrows are its own, not the page's
    assert first.locator("[data-scheme=kinder] output").inner_text() == "0"
    screenshot(page, "potato-scales")
    _next(page)
    second.locator("[data-scheme=kinder] input[type=range]").focus()
    page.keyboard.press("Home")
    _submit_and_compare(page, context, live_server, batch, "scales", tmp_path / "export")


def test_best_worst_sets_drawn_by_bws_config_save_what_potato_saves(chromium, live_server, tmp_path, capsys):
    batch, context, page = _start("headlines", chromium, live_server, capsys)
    first = page.locator(".task-item").first
    assert "Factory closes, 300 jobs lost" in first.inner_text()  # the same sets as Potato draws, in its order
    page.keyboard.press("1")  # best: A
    page.keyboard.press("r")  # worst: D
    _next(page)
    page.keyboard.press("2")  # best: B
    page.keyboard.press("q")  # worst: A
    _submit_and_compare(page, context, live_server, batch, "headlines", tmp_path / "export")


def test_range_constant_sum_soft_label_and_cloze_save_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's range slider is dragged there and set by keys here (two sliders, each a keyboard reaches); its
    soft label's sliders move each other by the same rule, key press by key press."""
    batch, context, page = _start("budgets", chromium, live_server, capsys)
    first, second = page.locator(".task-item").nth(0), page.locator(".task-item").nth(1)
    low, high = first.locator("[data-scheme=plausible] input[type=range]").all()
    low.focus()
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    high.focus()
    for _ in range(8):
        page.keyboard.press("ArrowLeft")
    assert first.locator("[data-scheme=plausible] output").all_inner_texts() == ["20", "60"]
    for box, points in zip(first.locator("[data-scheme=blame] input[type=number]").all(), "631", strict=True):
        _type(page, box, points)
    assert first.locator("[data-scheme=blame] .points-status").inner_text() == "Shared out: 10 of 10 · left: 0"
    stance = first.locator("[data-scheme=stance] input[type=range]")
    stance.first.focus()
    for _ in range(6):
        page.keyboard.press("ArrowRight")
    assert [slider.input_value() for slider in stance.all()] == ["40", "30", "30"]  # as Potato's moved
    blanks = first.locator("[data-scheme=fill] input")
    _type(page, blanks.nth(0), "kitten")
    _type(page, blanks.nth(1), "rug")
    page.mouse.wheel(0, 400)
    screenshot(page, "potato-budgets", full_page=False)
    _next(page)
    _type(page, second.locator("[data-scheme=blame] input[type=number]").first, "10")
    second.locator("[data-scheme=stance] input[type=range]").nth(2).focus()
    page.keyboard.press("End")
    _type(page, second.locator("[data-scheme=fill] input").nth(0), "Dog")
    _type(page, second.locator("[data-scheme=fill] input").nth(1), "mat")
    _submit_and_compare(page, context, live_server, batch, "budgets", tmp_path / "export")


def test_types_ours_run_save_in_their_own_potato_form(chromium, live_server, tmp_path, capsys):
    """A triage, vas, confidence, semantic differential, hierarchical multiselect, text edit and extractive answer,
    run by our radio, slider, likert, grid, boxes, text box and span, answered by keyboard only; the potato export
    writes each in its own Potato type's form, as Potato 2.12.1 exported the same answers
    (potato_side_by_side/README.md)."""
    batch, context, page = _start("verdicts", chromium, live_server, capsys, device=PHONE)
    item = page.locator(".task-item").first
    keep = item.locator("[data-scheme=keep] input[value=reject]")
    assert keep.get_attribute("aria-keyshortcuts") == "2"  # Potato's triage keys: 1 Keep, 2 Discard, 3 Unsure
    page.keyboard.press("2")
    assert keep.is_checked()
    item.locator("[data-scheme=certainty] input[type=range]").focus()
    page.keyboard.press("Home")
    for _ in range(7):
        page.keyboard.press("ArrowRight")
    for locator in (item.locator("[data-scheme=sure] input[value='3']"),
                    item.locator("[data-scheme=tone] tr:has-text('cold') input[value='2']"),
                    item.locator("[data-scheme=tone] tr:has-text('dull') input[value='5']"),
                    item.locator("[data-scheme=topic] input[data-label='Science › Biology']"),
                    item.locator("[data-scheme=topic] input[data-label='Politics']")):
        locator.focus()
        page.keyboard.press("Space")
        assert locator.is_checked()
    # The text edit starts as the item's text: the annotator adds a word at its end.
    fixed = item.locator("[data-scheme=fixed] textarea")
    fixed.focus()
    page.keyboard.press("Control+End")
    page.keyboard.type(" Really")
    # The extractive answer: "human faces" marked on the text by arrow keys, then its label's button.
    item.locator(".span-text").focus()
    for key in ("ArrowRight",) * 4 + ("Shift+ArrowRight",):
        page.keyboard.press(key)
    item.locator("[data-scheme=answer] button.span-label").focus()
    page.keyboard.press("Enter")
    assert "human faces" in item.locator("[data-scheme=answer] .span-list").inner_text()
    screenshot(page, "potato-verdicts-phone")
    page.locator("#cf-submit").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/work/")
    context.close()
    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "export", formats=("potato",))}
    assert _csv(written["annotations.csv"].read_text()) == _csv(
        (FOLDER / "verdicts" / "potato-annotations.csv").read_text())
    assert _jsonl(written["annotations.jsonl"].read_text()) == _jsonl(
        (FOLDER / "verdicts" / "potato-annotations.jsonl").read_text())


def test_error_spans_save_as_potato_s_mqm_record(chromium, live_server, tmp_path, capsys):
    """Potato's error_span (MQM): each error dragged over with the mouse, its type's button and its severity from
    the keyboard; our potato export holds Potato's record of the errors and the score from its default weights."""
    batch, context, page = _start("errors", chromium, live_server, capsys)
    marks = {0: [(12, 14, "Accuracy: Mistranslation", "Minor"), (30, 34, "Fluency: Grammar", "Major")],
             1: [(17, 24, "Fluency: Spelling", "Minor")]}
    for index, errors in marks.items():
        item = page.locator(".task-item").nth(index)
        for start, end, kind, severity in errors:
            drag_characters(page, item.locator(".span-text"), start, end)
            item.locator("[data-scheme=errors] .span-label", has_text=kind).click()
            text = item.locator(".span-text").inner_text()[start:end]
            picker = item.get_by_role("combobox", name=f"severity of {kind} “{text}”")
            picker.focus()
            for _ in range(["Minor", "Major", "Critical"].index(severity) + 1):  # down from "pick one"
                page.keyboard.press("ArrowDown")
            assert picker.input_value() == severity
        # Potato's quality score beside them: 100 less 1 a Minor and 5 a Major, as Potato showed it (94, then 99).
        assert item.locator(".span-score").inner_text() == ("Score: 94 / 100" if index == 0 else "Score: 99 / 100")
        if index == 0:
            screenshot(page, "potato-errors-desktop")
            _next(page)
    _submit_and_compare(page, context, live_server, batch, "errors", tmp_path / "export")


def test_bids_beliefs_and_randomized_responses_save_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's bdm, belief_elicitation (a probability, and points over ranges) and randomized_response (forced and
    crosswise), run by our number, slider, constant sum and radio, answered by keyboard only at 390 px: shown with
    their instructions and the randomizer's rule as Potato shows them, and exported in their own Potato form
    (JSON in one input; the crosswise answer stored as written, shown humanized)."""
    batch, context, page = _start("surveys", chromium, live_server, capsys, device=PHONE)
    first, second = page.locator(".task-item").nth(0), page.locator(".task-item").nth(1)
    bid = first.locator("[data-scheme=bid]")
    assert "Your bid: any amount from $0.00 to $10.00." in bid.inner_text()
    assert "A price will be drawn at random after you finish." in bid.inner_text()
    _type(page, bid.locator("input[type=number]"), "4.5")
    rain = first.locator("[data-scheme=rain] input[type=range]")
    assert rain.input_value() == "50"
    rain.focus()
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    assert rain.input_value() == "70"
    for box, points in zip(first.locator("[data-scheme=temp] input[type=number]").all(), ("20", "50", "30"),
                           strict=True):
        _type(page, box, points)
    cheat = first.locator("[data-scheme=cheat]")
    assert "If it is January or February, answer Yes." in cheat.inner_text()
    assert "Have you ever cheated in an exam?" in cheat.inner_text()
    _tick(page, cheat.locator("input[value=Yes]"))
    cross = first.locator("[data-scheme=cross]")
    assert "2. My mother was born in January, February or March." in cross.inner_text()
    assert "Exactly One Statement Is True" in cross.inner_text()  # humanized, as Potato shows a radio's labels
    _tick(page, cross.locator("input[value='Exactly one statement is true']"))
    screenshot(page, "potato-surveys-phone")
    _next(page)
    _type(page, second.locator("[data-scheme=bid] input[type=number]"), "2")
    _tick(page, second.locator("[data-scheme=cheat] input[value=No]"))
    _submit_and_compare(page, context, live_server, batch, "surveys", tmp_path / "export")


def test_a_grid_whose_rows_are_each_item_s_own_saves_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's multirate with options_from_data: each item's own steps are the grid's rows (texts, or objects by
    their label, else their name), rated by keyboard; saved under each step as Potato saves them."""
    batch, context, page = _start("steps", chromium, live_server, capsys)
    first, second = page.locator(".task-item").nth(0), page.locator(".task-item").nth(1)
    assert first.locator("[data-scheme=step_ratings] tbody th").all_inner_texts() == [
        "Search restaurants near the user", "Call the booking API", "Confirm with the user"]
    assert second.locator("[data-scheme=step_ratings] tbody th").all_inner_texts() == ["Look up Oslo",
                                                                                        "Answer: sunny"]
    for item, ratings in ((first, (("Search restaurants", "Correct"), ("Call the booking", "Questionable"),
                                   ("Confirm with", "Correct"))),
                          (second, (("Look up Oslo", "Correct"), ("Answer: sunny", "Incorrect")))):
        for step, rating in ratings:
            _tick(page, item.locator(f"[data-scheme=step_ratings] tr:has-text('{step}') input[value={rating}]"))
        if item == first:
            screenshot(page, "potato-steps-desktop", full_page=False)
            _next(page)
    _submit_and_compare(page, context, live_server, batch, "steps", tmp_path / "export")


def test_choices_each_item_narrows_save_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's dynamic_options: a radio shows the labels its item lists under visible_labels (a list, or one text),
    boxes those under their own dynamic_options_field, all of them where the item lists none; chosen by keyboard
    (Space on each), saved as Potato saves them."""
    batch, context, page = _start("options", chromium, live_server, capsys, device=PHONE)
    first, second = page.locator(".task-item").nth(0), page.locator(".task-item").nth(1)

    def values(item, scheme):
        return item.locator(f"[data-scheme={scheme}] input[type=radio], [data-scheme={scheme}] "
                            f"input[type=checkbox]").evaluate_all("els => els.map(e => e.dataset.label || e.value)")

    assert (values(first, "answer"), values(first, "tags")) == (["Paris", "Lyon"], ["geography", "politics"])
    assert (values(second, "answer"), values(second, "tags")) == (["Berlin"], ["geography", "history", "politics"])
    for locator in (first.locator("[data-scheme=answer] input[value=Paris]"),
                    first.locator("[data-scheme=tags] input[data-label=geography]"),
                    first.locator("[data-scheme=tags] input[data-label=politics]")):
        _tick(page, locator)
    screenshot(page, "potato-options-phone", full_page=False)
    _next(page)
    for locator in (second.locator("[data-scheme=answer] input[value=Berlin]"),
                    second.locator("[data-scheme=tags] input[data-label=history]")):
        _tick(page, locator)
    _submit_and_compare(page, context, live_server, batch, "options", tmp_path / "export")


def test_process_rewards_save_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's process_reward: each step of the item's trace a row, Correct or Wrong. per_step: each rated by
    keyboard; first_error (Potato's default): one Wrong, on the second step, picks Correct on the first and Wrong on
    the third, as Potato's click did; saved as Potato's JSON of each step's reward."""
    batch, context, page = _start("rewards", chromium, live_server, capsys)
    item = page.locator(".task-item").first
    assert item.locator("[data-scheme=per] tbody th").all_inner_texts() == [
        "Step 1: Subtract 3: 2x = 4", "Step 2: Divide by 2: x = 3", "Step 3: Answer: x = 3"]
    per = item.locator("[data-scheme=per] tbody tr")
    for row, value in ((0, "1"), (1, "-1"), (2, "-1")):
        _tick(page, per.nth(row).locator(f"input[value='{value}']"))
    first = item.locator("[data-scheme=first] tbody tr")
    _tick(page, first.nth(1).locator("input[value='-1']"))
    assert [row.locator("input:checked").get_attribute("value") for row in first.all()] == ["1", "-1", "-1"]
    screenshot(page, "potato-rewards-desktop", full_page=False)
    _submit_and_compare(page, context, live_server, batch, "rewards", tmp_path / "export")


def _cells(row):
    return [" ".join(text.split()) for text in row.locator("th, td").all_inner_texts()]


def test_price_lists_save_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's price_list: Holt & Laury's ten lotteries with one switch point, a time preference and two rows
    written out, each option worded as Potato words it; chosen by keyboard at 390 px (a B picks B on every later
    row, an A picks A on every earlier one, as Potato's clicks did), the status line said as Potato says it, and
    saved as Potato's JSON of the choices and their switches."""
    batch, context, page = _start("prices", chromium, live_server, capsys, PHONE)

    def choose(scheme, row, side):
        _tick(page, page.locator(f".task-item:visible [data-scheme={scheme}] tbody tr").nth(row).locator(
            f"input[value={side}]"))

    risk = page.locator(".task-item:visible [data-scheme=risk]")
    # The widget's own stylesheet, on the pages that ask a price list only (designs/static/designs/price_list.css),
    # written into an MTurk question, which stands alone.
    assert risk.locator(".price-side").first.evaluate("side => getComputedStyle(side).fontWeight") == "700"
    hit = batch.hits.get()
    assert "<style>table.price-list td" in DESIGN.html_question(hit, hit.ordered_items())
    assert _cells(risk.locator("tbody tr").first) == [
        "1", "A 10% chance of $2.00, 90% chance of $1.60", "B 10% chance of $3.85, 90% chance of $0.10"]
    assert _cells(risk.locator("tbody tr").last) == ["10", "A $2.00 for sure", "B $3.85 for sure"]
    for row, side in ((3, "B"), (1, "A"), (2, "A")):
        choose("risk", row, side)
    assert risk.locator(".price-status").inner_text() == (
        "10 of 10 decisions made. You switch to Option B at decision 4.")
    for scheme, choices in (("wait", "ABB"), ("bets", "BA")):
        for row, side in enumerate(choices):
            choose(scheme, row, side)
    assert _cells(page.locator(".task-item:visible [data-scheme=bets] tbody tr").first) == [
        "1", "A £5.00 for sure", "B 50% chance of £12.00, 50% chance of £0.00"]
    _check(page, "potato-prices", "phone")  # axe, no sideways scroll, controls 44 px tall
    _next(page)
    for row, side in ((9, "A"), (5, "B")):
        choose("risk", row, side)
    for scheme, choices in (("wait", "BBB"), ("bets", "AB")):
        for row, side in enumerate(choices):
            choose(scheme, row, side)
    _submit_and_compare(page, context, live_server, batch, "prices", tmp_path / "export")


def test_conjoint_choices_show_and_save_what_potato_does(chromium, live_server, tmp_path, capsys):
    """Potato's conjoint: profiles drawn from the attributes' levels as Potato's page draws them (the same cards
    for the same item), and each item's own profiles in the order Potato shows their attributes, a level a profile
    lacks shown as "—"; a card or "None of these" chosen by keyboard, saved as the card's number or "none"."""
    batch, context, page = _start("conjoint", chromium, live_server, capsys)

    def cards(scheme):
        return [[" ".join(text.split()) for text in card.locator("caption, th, td").all_inner_texts()]
                for card in page.locator(f".task-item:visible [data-scheme={scheme}] .conjoint-card").all()]

    # What Potato 2.12.1 showed on item c1 (potato_side_by_side/README.md).
    assert cards("laptop") == [
        ["Option 1", "Brand", "Dell", "Price", "$1999", "Battery", "12 hours"],
        ["Option 2", "Brand", "Apple", "Price", "$1999", "Battery", "12 hours"],
        ["Option 3", "Brand", "Lenovo", "Price", "$1999", "Battery", "12 hours"]]
    assert cards("trip") == [["Option 1", "City", "Lisbon", "Cost", "€400", "Nights", "3"],
                             ["Option 2", "City", "Oslo", "Cost", "€650", "Nights", "2"]]
    item = page.locator(".task-item:visible")
    _tick(page, item.locator("[data-scheme=laptop] input[value='2']"))
    _tick(page, item.locator("[data-scheme=trip] input[value='1']"))
    assert item.locator("[data-scheme=trip] input[value=none]").count() == 0  # show_none_option: false
    _check(page, "potato-conjoint", "desktop")
    _next(page)
    assert cards("laptop")[0] == ["Option 1", "Brand", "Apple", "Price", "$999", "Battery", "8 hours"]
    assert cards("trip")[0] == ["Option 1", "City", "Rome", "Cost", "€300", "Nights", "—"]
    page.set_viewport_size(PHONE["viewport"])  # the cards one under another
    _check(page, "potato-conjoint", "phone")
    item = page.locator(".task-item:visible")
    _tick(page, item.locator("[data-scheme=laptop] input[value=none]"))
    _tick(page, item.locator("[data-scheme=trip] input[value='2']"))
    _submit_and_compare(page, context, live_server, batch, "conjoint", tmp_path / "export")


def _untimed(records: dict[str, dict]) -> dict[str, dict]:
    """Records with each free list's clock as its shape (one time per item, in order), which differs run to run."""
    def shape(value):
        found = json.loads(value) if isinstance(value, str) and value.startswith('{"items"') else None
        if found is None:
            return value
        times = found.pop("timings_ms")
        assert len(times) == len(found["items"]) and times == sorted(times) and found["elapsed_ms"] >= times[-1]
        return {**found, "elapsed_ms": "ms"}
    return {item: {**record, "labels": {scheme: {key: shape(value) for key, value in inputs.items()}
                                        for scheme, inputs in record["labels"].items()}}
            for item, record in records.items()}


def test_free_lists_save_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's free_list by keyboard at 390 px: each item typed and added with Enter, a duplicate refused with
    Potato's words (unless allowed), one deleted and put back in its place by "Undo delete", the box closed at the
    most items; saved as Potato's JSON of the items and when each came."""
    batch, context, page = _start("lists", chromium, live_server, capsys, PHONE)
    fruit = page.locator(".task-item:visible [data-scheme=fruit]")
    words = page.locator(".task-item:visible [data-scheme=words]")

    def add(where, text):
        _type(page, where.locator(".free-list-box"), text)
        page.keyboard.press("Enter")

    for text in ("apple", "  Pear  ", "APPLE"):
        add(fruit, text)
    assert fruit.locator(".free-list-status").inner_text() == "“APPLE” is already on your list."
    add(fruit, "plum")
    fruit.get_by_role("button", name="Delete “Pear”").focus()
    page.keyboard.press("Enter")
    assert fruit.locator(".free-list-text").all_inner_texts() == ["apple", "plum"]
    fruit.get_by_role("button", name="Undo delete").focus()
    page.keyboard.press("Enter")
    add(fruit, "kiwi")
    assert fruit.locator(".free-list-text").all_inner_texts() == ["apple", "Pear", "plum", "kiwi"]
    assert fruit.locator(".free-list-count").inner_text() == "4 items (2 to 4)"
    assert fruit.locator(".free-list-box").is_disabled()
    assert fruit.locator(".free-list-box").get_attribute("placeholder") == "The list is full"
    for text in ("snow", "Snow"):
        add(words, text)
    _check(page, "potato-lists", "phone")
    _next(page)
    add(fruit, "fig")  # one of at least 2: an optional list is not held to it, as on Potato's page
    assert fruit.get_attribute("data-invalid") is None and fruit.get_attribute("data-required") is None
    add(fruit, "date")
    page.locator("#cf-submit").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/work/")
    context.close()
    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "export", formats=("potato",))}
    assert _untimed(_jsonl(written["annotations.jsonl"].read_text())) == _untimed(
        _jsonl((FOLDER / "lists" / "potato-annotations.jsonl").read_text()))
    columns, rows = _csv(written["annotations.csv"].read_text())
    theirs_columns, theirs = _csv((FOLDER / "lists" / "potato-annotations.csv").read_text())
    assert columns == theirs_columns
    assert {item: {key: (json.loads(value)["items"] if value else "") for key, value in row.items()
                   if key != "instance_id"} for item, row in rows.items()} == {
        item: {key: (json.loads(value)["items"] if value else "") for key, value in row.items() if key != "instance_id"}
        for item, row in theirs.items()}


def _sort(page, card, key):
    """A card sent to a group as on Potato's page: the card reached (as Tab reaches it) and the group's number
    pressed (0 the unsorted cards)."""
    page.locator(f".task-item:visible .sort-card[data-card='{card}']").focus()
    page.keyboard.press(key)


def _piles(page, scheme):
    box = page.locator(f".task-item:visible [data-scheme={scheme}]")
    return box.locator(".sort-zone").evaluate_all(
        "zones => zones.map(z => [z.querySelector('.sort-head').innerText.replace(/\\s+/g, ' ').trim(), "
        "[...z.querySelectorAll('.sort-card')].map(c => c.dataset.card)])")


def test_a_closed_card_sort_saves_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's closed card_sort: the item's cards unsorted beside the scheme's groups, as Potato lays them out; a
    card sent to a group by its number from the keyboard; saved as Potato's JSON of every group and its cards."""
    batch, context, page = _start("cards", chromium, live_server, capsys, PHONE)
    assert _piles(page, "sort") == [["0 Unsorted", ["Search", "Dark mode", "Sync", "Stickers"]],
                                    ["1 Must have 0", []], ["2 Nice to have 0", []], ["3 Not needed 0", []]]
    assert page.locator(".task-item:visible .sort-new").count() == 0  # a closed sort's groups are the scheme's
    for card, key in (("Search", "1"), ("Dark mode", "2"), ("Sync", "1"), ("Stickers", "3")):
        _sort(page, card, key)
    assert _piles(page, "sort")[1] == ["1 Must have 2", ["Search", "Sync"]]
    _check(page, "potato-cards", "phone")
    _next(page)
    _sort(page, "Themes", "3")
    page.locator(".task-item:visible .sort-card[data-card='Transfers']").focus()
    page.keyboard.press("Enter")  # picked up, then put in a group by Enter on the group
    page.locator(".task-item:visible .sort-zone[data-group='Must have']").focus()
    page.keyboard.press("Enter")
    _submit_and_compare(page, context, live_server, batch, "cards", tmp_path / "export")


def test_an_open_card_sort_makes_its_groups_as_potato_s_does(chromium, live_server, tmp_path, capsys):
    """Potato's open card_sort: groups added by name beside the scheme's (Enter in the name box), numbered in page
    order, and laid out again from a draft; a group removed puts its cards back; the sort saved as Potato saves
    it, the groups in page order."""
    batch, context, page = _start("piles", chromium, live_server, capsys)
    name = page.locator(".task-item:visible .sort-new-name")
    for group in ("Vegetable", "Fish"):
        _type(page, name, group)
        page.keyboard.press("Enter")
    for card, key in (("apple", "1"), ("carrot", "2"), ("pear", "1"), ("salmon", "3")):
        _sort(page, card, key)
    assert _piles(page, "piles") == [["0 Unsorted", []], ["1 Fruit 2", ["apple", "pear"]],
                                     ["2 Vegetable 1 ×", ["carrot"]], ["3 Fish 1 ×", ["salmon"]]]
    _check(page, "potato-piles", "desktop")
    page.set_viewport_size(PHONE["viewport"])
    _check(page, "potato-piles", "phone")
    page.set_viewport_size(DESKTOP["viewport"])
    page.reload()  # the draft's sort laid out again, the groups the annotator made too
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    page.get_by_role("button", name="← Previous").click()  # the page opens on the first item not yet answered
    assert _piles(page, "piles") == [["0 Unsorted", []], ["1 Fruit 2", ["apple", "pear"]],
                                     ["2 Vegetable 1 ×", ["carrot"]], ["3 Fish 1 ×", ["salmon"]]]
    _next(page)
    name = page.locator(".task-item:visible .sort-new-name")
    for group in ("Sea", "Other"):
        _type(page, name, group)
        page.keyboard.press("Enter")
    _type(page, name, "Sea")
    page.keyboard.press("Enter")  # a name taken: said, not added
    assert page.locator(".task-item:visible .sort-status").inner_text() == "There is a group Sea already."
    _sort(page, "tuna", "2")
    _sort(page, "leek", "3")
    page.get_by_role("button", name="Remove the group Other").focus()
    page.keyboard.press("Enter")  # leek back among the unsorted
    _sort(page, "plum", "1")
    assert _piles(page, "piles") == [["0 Unsorted", ["leek"]], ["1 Fruit 1", ["plum"]], ["2 Sea 1 ×", ["tuna"]]]
    _submit_and_compare(page, context, live_server, batch, "piles", tmp_path / "export")


def test_a_timed_free_list_locks_when_its_time_is_up_as_potato_s_does(chromium, live_server, tmp_path, capsys):
    """Potato's free_list with time_limit_s: closed until Start, locked at 0:00 with two items of the three asked,
    which are then taken, and saved with time_up, as Potato did."""
    batch, context, page = _start("timed", chromium, live_server, capsys)
    animals = page.locator(".task-item:visible [data-scheme=animals]")
    box = animals.locator(".free-list-box")
    assert box.is_disabled() and animals.locator(".free-list-clock").inner_text() == "0:04"
    animals.get_by_role("button", name="Start (0:04)").focus()
    page.keyboard.press("Enter")
    for text in ("cow", "hen"):
        _type(page, box, text)
        page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('.free-list-clock').textContent === '0:00'", timeout=8000)
    assert animals.locator(".free-list-status").inner_text() == "Time is up. Your list has been saved."
    assert box.is_disabled() and animals.get_by_role("button", name="Delete “cow”").is_disabled()
    page.locator("#cf-submit").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/work/")
    context.close()
    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "export", formats=("potato",))}
    ours = _jsonl(written["annotations.jsonl"].read_text())
    assert json.loads(ours["t1"]["labels"]["animals"]["animals"])["elapsed_ms"] == 4000
    assert _untimed(ours) == _untimed(_jsonl((FOLDER / "timed" / "potato-annotations.jsonl").read_text()))


def test_a_dialogue_s_turn_ratings_save_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """A dialogue display's per_turn_ratings: each Bot turn rated on each rating scheme, by keyboard at 390 px,
    under the dialogue turn by turn; a point picked again is taken back; a turn left unrated is left out, as Potato
    leaves it; saved as Potato's JSON of {turn: point} per rating scheme."""
    batch, context, page = _start("turns", chromium, live_server, capsys, PHONE)
    item = page.locator(".task-item:visible")
    # The dialogue, the item's text, turn by turn with its speakers, as Potato's dialogue display draws it.
    assert item.locator(".design-text.dialogue .turn").all_inner_texts() == [
        "User: Hi, can you help?", "Bot: Of course.", "User: What time is it?", "Bot: I cannot tell."]
    helpful = item.locator("[data-scheme=helpful]")
    assert helpful.locator(".turn-said").all_inner_texts() == ["[2] Bot: Of course.", "[4] Bot: I cannot tell."]
    assert helpful.locator(".turn-end").all_inner_texts() == ["Useless", "Perfect"] * 2
    _tick(page, helpful.locator("input[name$='-1'][value='4']"))
    # A point picked again is taken back (Potato's second click clears it): the turn is unrated again.
    _tick(page, helpful.locator("input[name$='-3'][value='5']"))
    page.keyboard.press("Space")
    assert helpful.locator("input[name$='-3']:checked").count() == 0
    _tick(page, helpful.locator("input[name$='-3'][value='2']"))
    _tick(page, item.locator("[data-scheme=polite] input[name$='-1'][value='3']"))
    _tick(page, item.locator("[data-scheme=overall] input[value=good]"))
    _check(page, "potato-turns", "phone")
    _next(page)
    item = page.locator(".task-item:visible")
    _tick(page, item.locator("[data-scheme=polite] input[name$='-0'][value='2']"))
    _tick(page, item.locator("[data-scheme=polite] input[name$='-0'][value='1']"))
    _tick(page, item.locator("[data-scheme=overall] input[value=bad]"))
    _submit_and_compare(page, context, live_server, batch, "turns", tmp_path / "export")


def _refer(page, select, turn):
    """A turn referred to, chosen from its drop-down by typing the option's first letters ("turn #1")."""
    select.focus()
    page.keyboard.type(f"turn #{turn}")
    assert select.input_value() == str(turn - 1)


def test_discussion_acts_and_uses_of_context_save_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's consensus_tracking and context_attribution: each turn a card with its acts, an act that refers
    naming its turn (a drop-down here, a click on the card there), an act picked again taken back; by keyboard at
    390 px; saved as Potato's JSON of the tags, each with its turn's agent."""
    batch, context, page = _start("debates", chromium, live_server, capsys, PHONE)
    item = page.locator(".task-item:visible")
    acts, memory = item.locator("[data-scheme=acts]"), item.locator("[data-scheme=memory]")
    assert acts.locator(".turn-name").all_inner_texts() == ["#1 planner", "#2 critic", "#3 planner", "#4 critic"]
    assert memory.locator(".turn-card").first.locator("input").evaluate_all("inputs => inputs.map(i => i.value)") == [
        "used_context_correctly", "hallucinated_context", "ignored_context"]  # context_attribution's acts
    assert acts.locator(".turn-ref:visible").count() == 0  # asked only of an act that refers
    assert page.locator("#cf-progress").inner_text() == "0 of 2 answered"
    _tick(page, acts.locator("input[name$='-0'][value=proposal]"))
    _tick(page, acts.locator("input[name$='-1'][value=disagreement]"))
    assert acts.locator(".turn-acts-status").inner_text() == "turn #2 still needs the turn it refers to"
    _refer(page, acts.locator("select[name$='-1-ref']"), 1)
    assert acts.locator(".turn-acts-status").inner_text() == ""
    _tick(page, acts.locator("input[name$='-2'][value=decision]"))
    _tick(page, acts.locator("input[name$='-2'][value=proposal]"))
    _tick(page, acts.locator("input[name$='-3'][value=agreement]"))
    _refer(page, acts.locator("select[name$='-3-ref']"), 3)
    _tick(page, memory.locator("input[name$='-2'][value=used_context_correctly]"))
    _refer(page, memory.locator("select[name$='-2-ref']"), 2)
    _tick(page, memory.locator("input[name$='-3'][value=ignored_context]"))
    _check(page, "potato-debates", "phone")
    _next(page)
    item = page.locator(".task-item:visible")
    acts, memory = item.locator("[data-scheme=acts]"), item.locator("[data-scheme=memory]")
    assert acts.locator(".turn-name").all_inner_texts() == ["#1 lead", "#2", "#3 tester"]  # a turn that is text
    _tick(page, acts.locator("input[name$='-0'][value=proposal]"))
    _tick(page, acts.locator("input[name$='-1'][value=agreement]"))
    _refer(page, acts.locator("select[name$='-1-ref']"), 1)
    concession = acts.locator("input[name$='-2'][value=concession]")
    _tick(page, concession)
    _refer(page, acts.locator("select[name$='-2-ref']"), 1)
    concession.focus()
    page.keyboard.press("Space")  # picked again: taken back, the turn it referred to with it
    assert not concession.is_checked() and acts.locator("select[name$='-2-ref']").input_value() == ""
    _tick(page, memory.locator("input[name$='-1'][value=hallucinated_context]"))
    _refer(page, memory.locator("select[name$='-1-ref']"), 1)
    _submit_and_compare(page, context, live_server, batch, "debates", tmp_path / "export")


def _retype(page, box, text):
    """A box's text replaced from the keyboard: all of it selected, then the new text typed."""
    box.focus()
    page.keyboard.press("Control+a")
    page.keyboard.type(text)


def test_interlinear_glosses_save_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's interlinear_gloss: each word a column, its segmentation starting as the word (or the item's), the
    checks said as they are typed (boundaries that do not line up, labels not in the Leipzig list), Enter to the
    same line of the next word and from the last to the translation; an item's analysis kept untouched; by
    keyboard; saved as Potato's JSON of the words and the translation."""
    batch, context, page = _start("glosses", chromium, live_server, capsys)
    igt = page.locator(".task-item:visible [data-scheme=igt]")
    cell = lambda word, line: igt.locator(f"input[name$='-{word}-{line}']")  # noqa: E731
    issue = lambda word: igt.locator(".igt-issue").nth(word)  # noqa: E731
    summary = igt.locator(".igt-summary")
    assert igt.locator(".igt-source").all_inner_texts() == ["Evlerde", "kediler", "var"]  # the sentence's words
    assert [cell(word, "morphemes").input_value() for word in range(3)] == ["Evlerde", "kediler", "var"]
    assert summary.inner_text() == "3 words · all aligned · 3 not yet glossed"
    assert page.locator("#cf-progress").inner_text() == "1 of 2 answered"  # the second brings its own analysis
    _retype(page, cell(0, "morphemes"), "Ev-ler-de")
    page.keyboard.press("Tab")
    page.keyboard.type("house-PL")
    assert issue(0).inner_text() == "Misaligned: segmentation has 2 boundaries (- -), gloss has 1 boundary (-)"
    assert summary.inner_text() == "3 words · 1 misaligned · 2 not yet glossed"
    page.keyboard.type("-LOC")
    assert igt.locator(".igt-render").nth(1).text_content() == "house-PL-LOC"  # the labels in small caps
    assert igt.locator(".igt-render .igt-cat").all_text_contents() == ["PL", "LOC"]
    page.keyboard.press("Tab")
    page.keyboard.type("n")  # the pos tier
    _retype(page, cell(1, "morphemes"), "kedi-ler")
    page.keyboard.press("Tab")
    page.keyboard.type("cat-PL.XYZ")
    assert issue(1).inner_text() == "Unknown label: XYZ"
    assert summary.inner_text() == "3 words · all aligned · 1 not yet glossed · 1 with unknown labels"
    for _ in ".XYZ":
        page.keyboard.press("Backspace")
    page.keyboard.press("Enter")  # to the gloss of the next word
    page.keyboard.type("exist")
    page.keyboard.press("Enter")  # from the last word, to the translation
    page.keyboard.type("There are cats in the houses.")
    assert summary.inner_text() == "3 words · all aligned"
    _check(page, "potato-glosses", "desktop")
    _next(page)
    assert [cell(word, "morphemes").input_value() for word in range(2)] == ["kitab-ı", "oku-du-m"]  # the item's
    assert igt.locator("textarea").input_value() == "I read the book"
    page.set_viewport_size(PHONE["viewport"])
    _check(page, "potato-glosses", "phone")
    _submit_and_compare(page, context, live_server, batch, "glosses", tmp_path / "export")


def test_triad_tests_save_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's triad_test, a domain in the config and one in each item: the same triads, in the same order and
    places, as Potato showed the same annotator (its order is seeded by who answers, the item and the scheme), one
    at a time; 1, 2 and 3 choose and move on; a test left half done is kept with its open triads, as Potato keeps
    it; saved as Potato's JSON of the design and the triads as shown."""
    batch, context, page = _start("triads", chromium, live_server, capsys)
    item = page.locator(".task-item:visible")
    fruit, animals = item.locator("[data-scheme=fruit]"), item.locator("[data-scheme=animals]")
    shown = lambda test: test.locator(".tt-triad:visible .tt-item").all_inner_texts()  # noqa: E731
    progress = lambda test: test.locator(".tt-progress").inner_text()  # noqa: E731

    def choose(test, key):
        test.locator(".tt-triad:visible input[type=radio]").first.focus()
        page.keyboard.press(key)
        page.wait_for_timeout(450)  # the next triad comes after a moment, as in Potato

    assert (progress(fruit), shown(fruit)) == ("Triad 1 of 4 · 0 answered", ["banana", "apple", "lime"])
    assert page.locator("#cf-progress").inner_text() == "0 of 2 answered"
    choose(fruit, "1")
    assert (progress(fruit), shown(fruit)) == ("Triad 2 of 4 · 1 answered", ["banana", "lime", "pear"])
    for key in "231":
        choose(fruit, key)
    assert progress(fruit) == "Triad 4 of 4 · 4 answered"
    assert fruit.locator(".tt-done").inner_text() == "All 4 triads answered."
    assert (progress(animals), shown(animals)) == ("Triad 1 of 4 · 0 answered", ["goat", "shark", "horse"])
    for key in "3321":
        choose(animals, key)
    _check(page, "potato-triads", "desktop")
    _next(page)
    item = page.locator(".task-item:visible")
    fruit, animals = item.locator("[data-scheme=fruit]"), item.locator("[data-scheme=animals]")
    assert shown(fruit) == ["pear", "banana", "lime"]
    for key in "12":
        choose(fruit, key)
    assert (progress(animals), shown(animals)) == ("Triad 1 of 1 · 0 answered", ["cat", "dog", "goldfish"])
    choose(animals, "3")
    page.set_viewport_size(PHONE["viewport"])
    _check(page, "potato-triads", "phone")
    _submit_and_compare(page, context, live_server, batch, "triads", tmp_path / "export")


def test_a_threaded_dialogue_is_drawn_as_potato_draws_it(chromium, live_server, tmp_path, capsys):
    """A dialogue display's indent_replies, show_timestamps, max_height and turn_meta_fields: each post indented by
    its depth in the thread (counted up its reply_to chain), its time from the first post and its metadata, in a box
    of 220 px that scrolls and that a keyboard can scroll (it takes the focus), as Potato drew the same thread."""
    batch, context, page = _start("threads", chromium, live_server, capsys)
    thread = page.locator(".task-item:visible").get_by_role("region", name="The dialogue (it scrolls)")
    posts = thread.locator(".turn")
    assert [post.get_attribute("data-depth") or "0" for post in posts.all()] == ["0", "1", "2", "3", "1", "2"]
    assert thread.locator(".turn-stamp").all_inner_texts() == [
        "start · score: 0.873 · flagged: false", "+5m · score: 3", "+1h · flagged: true", "+1h", "+1d", "+1d"]
    assert posts.nth(3).locator(".turn-depth").inner_text() == "↳ depth 3"
    indents = [post.evaluate("node => parseFloat(getComputedStyle(node).marginLeft)") for post in posts.all()]
    assert indents == [0, 22, 44, 66, 22, 44]
    height, scrolled = thread.evaluate("box => [box.clientHeight, box.scrollHeight]")
    assert height <= 220 < scrolled
    thread.focus()
    page.keyboard.press("PageDown")
    page.wait_for_function("document.activeElement.scrollTop > 0", timeout=3000)
    _tick(page, page.locator(".task-item:visible input[value=civil]"))
    _check(page, "potato-threads", "desktop")
    _next(page)
    _tick(page, page.locator(".task-item:visible input[value=uncivil]"))
    page.set_viewport_size(PHONE["viewport"])
    _check(page, "potato-threads", "phone")
    _submit_and_compare(page, context, live_server, batch, "threads", tmp_path / "export")


def test_a_failure_attribution_saves_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's failure_attribution: the agents offered are the scheme's, then any other acting in the run, the
    steps the run's own, numbered and named by their agent; a partial answer kept, as Potato keeps it; by keyboard
    at 390 px; saved as Potato's JSON of the agent, the step (from 0) and the reason."""
    batch, context, page = _start("failures", chromium, live_server, capsys, PHONE)
    blame = page.locator(".task-item:visible [data-scheme=blame]")
    agent, step = blame.get_by_label("Responsible agent"), blame.get_by_label("Decisive error step")
    assert agent.locator("option").all_inner_texts() == ["— select —", "planner", "coder", "tester"]
    assert step.locator("option").all_inner_texts() == [
        "— select —", "1. [planner] Split the work: parse, then test.", "2. [coder] Parsed dates as MM/DD.",
        "3. [tester] Tests pass on US dates only.", "4. [planner] Ship it."]
    _pick(page, agent, "coder")
    step.focus()
    page.keyboard.type("2")
    assert step.input_value() == "1"
    _type(page, blame.locator("textarea"), "Read dates as MM/DD.")
    _check(page, "potato-failures", "phone")
    _next(page)
    blame = page.locator(".task-item:visible [data-scheme=blame]")
    agent = blame.get_by_label("Responsible agent")
    assert agent.locator("option").all_inner_texts() == ["— select —", "planner", "coder", "tester", "reader",
                                                         "writer"]
    _pick(page, agent, "writer")
    _submit_and_compare(page, context, live_server, batch, "failures", tmp_path / "export")


def test_a_tool_call_review_saves_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's tool_call_review: a card per call of the trace (a step's tool_calls, a step that is a call), its
    arguments as Potato prints them; a verdict picked again taken back, a call with only notes kept; by keyboard;
    saved as Potato's JSON of the judged calls."""
    batch, context, page = _start("tools", chromium, live_server, capsys)
    review = page.locator(".task-item:visible [data-scheme=calls]")
    cards = review.locator(".tool-call")
    assert [" ".join(card.locator(".tool-call-head").inner_text().split()) for card in cards.all()] == [
        "search_restaurants step 1", "get_weather step 1", "book_table step 3"]
    assert cards.nth(2).locator("pre").inner_text() == '{\n  "day": "Thursday",\n  "restaurant": "Casa Ó"\n}'
    assert cards.nth(0).locator("label:has(input[type=radio])").all_inner_texts() == [
        "correct", "wrong tool", "wrong args"]
    _tick(page, cards.nth(0).locator("input[value=correct]"))
    wrong_tool = cards.nth(1).locator("input[value=wrong_tool]")
    _tick(page, wrong_tool)
    _tick(page, cards.nth(2).locator("input[value=correct]"))
    _tick(page, cards.nth(2).locator("input[value=wrong_args]"))
    _type(page, cards.nth(2).get_by_label("Notes"), "Friday, not Thursday.")
    wrong_tool.focus()
    page.keyboard.press("Space")  # picked again: taken back
    assert not wrong_tool.is_checked()
    _type(page, cards.nth(1).get_by_label("Notes"), "not needed")
    _check(page, "potato-tools", "desktop")
    _next(page)
    card = page.locator(".task-item:visible [data-scheme=calls] .tool-call")
    assert card.locator("pre").inner_text() == "12*7"
    _tick(page, card.locator("input[value=correct]"))
    page.set_viewport_size(PHONE["viewport"])
    _check(page, "potato-tools", "phone")
    _submit_and_compare(page, context, live_server, batch, "tools", tmp_path / "export")


def test_a_code_review_saves_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's code_review: the coding trace shown with its calls; a verdict, comments added and one removed (the
    later one moving up), each file the trace touches rated; a comment added and left empty not kept; by keyboard;
    saved as Potato's JSON of the review."""
    batch, context, page = _start("reviews", chromium, live_server, capsys)
    item = page.locator(".task-item:visible")
    # Each display under its label, as Potato heads them (display-field-label): the text's too.
    assert item.locator(".design-text-title").inner_text() == "Task"
    assert "- return n // size\n+ return -(-n // size)\n→ ok" in item.locator(".turn-calls").nth(1).inner_text()
    review = item.locator("[data-scheme=review]")
    assert review.locator(".review-verdict").all_inner_texts() == ["Approve", "Request Changes", "Comment Only"]
    assert review.locator(".review-file-path").all_inner_texts() == ["src/pager.py", "tests/test_pager.py"]
    _tick(page, review.locator("input[value=request_changes]"))
    add = review.get_by_role("button", name="+ Add comment")
    cards = review.locator(".review-card")
    for place, (category, path, line, text) in enumerate((
            ("bug", "src/pager.py", "2", "Negative floor division is hard to read."),
            ("question", "", "", "Why not math.ceil?"),
            ("style", "tests/test_pager.py", "", "Test an exact multiple too."))):
        add.focus()
        page.keyboard.press("Enter")
        card = cards.nth(place)
        assert card.locator("select").evaluate("select => select === document.activeElement")
        _pick(page, card.locator("select"), category)
        for box, typed in ((card.get_by_label("File", exact=True), path), (card.get_by_label("Line", exact=True), line),
                           (card.get_by_label("Comment", exact=True), text)):
            if typed:
                _type(page, box, typed)
    cards.nth(1).get_by_role("button", name="Remove comment 2").focus()
    page.keyboard.press("Enter")
    assert cards.nth(1).get_by_label("Comment", exact=True).input_value() == "Test an exact multiple too."  # moved up
    assert cards.nth(1).get_by_label("File", exact=True).input_value() == "tests/test_pager.py"
    assert not cards.nth(2).is_visible()
    rating = lambda name: review.get_by_role("radiogroup", name=name)  # noqa: E731
    _tick(page, rating("src/pager.py: correctness").locator("input[value='4']"))
    _tick(page, rating("src/pager.py: readability").locator("input[value='2']"))
    _tick(page, rating("tests/test_pager.py: correctness").locator("input[value='5']"))
    _check(page, "potato-reviews", "desktop")
    _next(page)
    review = page.locator(".task-item:visible [data-scheme=review]")
    assert review.locator(".review-file-path").all_inner_texts() == ["app/config.py"]
    _tick(page, review.locator("input[value=approve]"))
    _tick(page, review.get_by_role("radiogroup", name="app/config.py: correctness").locator("input[value='5']"))
    review.get_by_role("button", name="+ Add comment").focus()
    page.keyboard.press("Enter")
    page.set_viewport_size(PHONE["viewport"])
    _check(page, "potato-reviews", "phone")
    _submit_and_compare(page, context, live_server, batch, "reviews", tmp_path / "export")


def test_a_tool_contention_saves_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's tool_contention: the run's calls on a timeline, a lane per agent (a call naming only its role and
    name placed by them); each overlap of two agents' calls on one resource a card in the order they begin (one
    agent's own calls overlapping none); a label picked again taken back; by keyboard at 390 px; saved as Potato's
    JSON of the contentions classified."""
    batch, context, page = _start("contentions", chromium, live_server, capsys, PHONE)
    locks = page.locator(".task-item:visible [data-scheme=locks]")
    assert locks.locator(".contention-agent").all_inner_texts() == ["writer", "auditor", "reporter"]
    assert locks.locator(".contention-lane").nth(2).text_content() == "send_report, 9–10s"
    cards = locks.locator(".contention")
    assert [" ".join(" ".join(card.locator("p").all_inner_texts()).split()) for card in cards.all()] == [
        "ledger 2.0–4.0s writer:lock_ledger ⟷ auditor:read_ledger",
        "ledger 2.0–3.0s auditor:read_ledger ⟷ writer:read_ledger",
        "cache 6.5–8.0s writer:write_cache ⟷ auditor:flush_cache"]
    assert cards.nth(0).locator("label").all_inner_texts() == ["deadlock", "circular wait", "race condition", "benign"]
    _tick(page, cards.nth(0).locator("input[value=race_condition]"))
    benign = cards.nth(1).locator("input[value=benign]")
    _tick(page, benign)
    _tick(page, cards.nth(2).locator("input[value=deadlock]"))
    benign.focus()
    page.keyboard.press("Space")  # picked again: taken back
    assert not benign.is_checked()
    _check(page, "potato-contentions", "phone")
    _next(page)
    locks = page.locator(".task-item:visible [data-scheme=locks]")
    assert locks.locator(".muted").inner_text() == "No shared-resource contention detected."
    _submit_and_compare(page, context, live_server, batch, "contentions", tmp_path / "export")


def test_an_agent_interaction_graph_saves_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's agent_interaction_graph: an agent per node in the order they first act (by agent, else speaker,
    else "agent 7"), an arrow per handoff with how often; agents marked on the critical path in order (one pressed
    again taken off), arrows pressed on from normal to critical to problematic and back; by keyboard (Tab and Enter
    or Space); saved as Potato's JSON of the path and the flagged arrows in the order first flagged."""
    batch, context, page = _start("graphs", chromium, live_server, capsys)
    graph = page.locator(".task-item:visible [data-scheme=graph]")
    node = lambda name: graph.locator(f".graph-node[data-node='{name}']")  # noqa: E731
    edge = lambda one, other: graph.locator(f".graph-edge[data-from='{one}'][data-to='{other}']")  # noqa: E731
    assert [found.get_attribute("aria-label") for found in graph.locator(".graph-node").all()] == [
        "Agent planner", "Agent writer", "Agent checker", "Agent agent 7"]
    assert [found.get_attribute("aria-label") for found in graph.locator(".graph-edge").all()] == [
        "planner to writer (1 message), status: normal", "writer to checker (2 messages), status: normal",
        "checker to writer (1 message), status: normal", "checker to planner (1 message), status: normal",
        "planner to agent 7 (1 message), status: normal"]
    for name, key in (("writer", "Enter"), ("planner", " "), ("checker", "Enter"), ("writer", "Enter")):
        node(name).focus()
        page.keyboard.press(key)
    assert node("writer").get_attribute("aria-pressed") == "false"
    for (one, other), times in ((("writer", "checker"), 2), (("planner", "writer"), 1), (("checker", "writer"), 3),
                                (("checker", "planner"), 1)):
        edge(one, other).focus()
        for _ in range(times):
            page.keyboard.press("Enter")
    assert edge("writer", "checker").get_attribute("aria-label") == (
        "writer to checker (2 messages), status: problematic")
    assert graph.locator(".graph-summary").inner_text() == (
        "Critical path: planner · checker. Flagged: writer → checker (problematic) · planner → writer (critical) · "
        "checker → planner (critical).")
    assert page.locator(".task-item:visible .design-text").inner_text() == "Plan, write and check a summary."
    _check(page, "potato-graphs", "desktop")
    _next(page)
    graph = page.locator(".task-item:visible [data-scheme=graph]")
    assert graph.locator(".graph-edge").count() == 0
    graph.locator(".graph-node").focus()
    page.keyboard.press(" ")
    page.set_viewport_size(PHONE["viewport"])
    _check(page, "potato-graphs", "phone")
    _submit_and_compare(page, context, live_server, batch, "graphs", tmp_path / "export")


def test_a_trajectory_edit_saves_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's trajectory_edit: each step's action in a box starting as it was (a step that is a text is its
    action; an action that is not text is its JSON, keys in order; a step without one has no box), the words and
    characters changed and the words taken out and put in as typed, a box typed in and Reset kept as not edited, a
    reason asked of each edit (marked while missing), the final answer corrected; by keyboard; saved as
    Potato's JSON of the boxes typed in, the steps edited and the characters changed."""
    batch, context, page = _start("edits", chromium, live_server, capsys)
    fix = page.locator(".task-item:visible [data-scheme=fix]")
    boxes = fix.locator(".traj-edit-box")
    assert fix.locator(".traj-edit-was").all_inner_texts() == [
        "search(from=LIS, to=OPO)", "book(flight=TP1944)", "answer(done)", "Booked TP1944."]
    first = boxes.nth(0).locator("textarea")
    first.focus()
    page.keyboard.press("End")
    page.keyboard.press("Backspace")
    page.keyboard.type(", day=Fri)")
    assert boxes.nth(0).locator(".traj-edit-flag").inner_text() == "✎ edited"
    boxes.nth(0).get_by_role("button", name="Reset").focus()
    page.keyboard.press("Enter")
    assert first.input_value() == "search(from=LIS, to=OPO)"
    for place, (old, new, reason) in enumerate((("1944)", "1950)", "TP1944 was full."),
                                                ("done)", "booked TP1950)", "Say what was booked."))):
        area = boxes.nth(place + 1).locator("textarea")
        area.focus()
        page.keyboard.press("End")
        for _ in old:
            page.keyboard.press("Backspace")
        page.keyboard.type(new)
        if place == 0:
            assert boxes.nth(1).locator(".traj-edit-stats").inner_text() == "Words changed: 1 Chars changed: 2"
            assert boxes.nth(1).locator("del").all_inner_texts() == ["book(flight=TP1944) "]
            missing = boxes.nth(1).get_by_label("Reason for edit")
            assert missing.get_attribute("aria-invalid") == "true"  # marked; not required, so not held (as Potato)
        _type(page, boxes.nth(place + 1).get_by_label("Reason for edit"), reason)
    final = boxes.nth(3).locator("textarea")
    final.focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("Booked TP1950 for Friday.")
    assert fix.locator(".traj-edit-summary").inner_text().split() == [
        "Steps", "edited:", "3", "Total", "edit", "distance:", "26"]
    _check(page, "potato-edits", "desktop")
    _next(page)
    fix = page.locator(".task-item:visible [data-scheme=fix]")
    area = fix.locator("textarea")
    assert area.count() == 1 and area.input_value() == '{"args":{"op":"+","x":2,"y":2},"tool":"calc"}'
    assert fix.locator(".traj-edit-thought").inner_text() == "Thought: No action here."
    area.focus()
    page.keyboard.press("End")
    for _ in "},\"tool\":\"calc\"}":
        page.keyboard.press("ArrowLeft")
    page.keyboard.press("Backspace")
    page.keyboard.type("3")
    _type(page, fix.get_by_label("Reason for edit"), "The sum asked is 2 + 3.")
    page.set_viewport_size(PHONE["viewport"])
    _check(page, "potato-edits", "phone")
    _submit_and_compare(page, context, live_server, batch, "edits", tmp_path / "export")


def test_a_trajectory_evaluation_saves_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's trajectory_eval: each step a card with what it did (its step_text_key) and its thought; a step not
    correct asks its error type (subtypes in groups), severity and rationale, cleared when it is called correct or
    taken back; the score line as Potato's; by keyboard; saved as Potato's JSON of the steps and the score (null,
    with score_complete false, while a step is unjudged)."""
    batch, context, page = _start("trajectories", chromium, live_server, capsys)
    run = page.locator(".task-item:visible [data-scheme=steps]")
    step = lambda place: run.locator(".traj-step").nth(place)  # noqa: E731
    assert [" ".join(step(place).inner_text().split()) for place in range(2)] == [
        "Step 1 open_site(flights.example) Thought: Start at the search page. Correct Incorrect Partially Correct",
        "Step 2 click(book) Thought: Book the first one. Correct Incorrect Partially Correct"]
    assert step(1).locator("option").all_inner_texts() == [
        "-- select error type --", "wrong_goal", "skipped_step", "tool_misuse"]
    assert [text.strip() for text in step(1).locator(".traj-severity label").all_inner_texts()] == [
        "minor (-1)", "major (-5)", "critical (-10)"]
    assert not step(1).locator(".traj-error").is_visible()  # asked only of a step that is not correct
    _tick(page, step(0).locator("input[value=correct]"))
    _tick(page, step(1).locator("input[value=incorrect]"))
    assert run.locator(".traj-score").inner_text() == (
        "Score: 100 / 100 — not final: 1 step marked wrong with no severity yet")
    step(1).locator("select").focus()
    page.keyboard.type("skipped")
    assert step(1).locator("select").input_value() == "planning::skipped_step"
    _tick(page, step(1).locator("input[value=major]"))
    _type(page, step(1).locator("textarea"), "Skipped the search.")
    _tick(page, step(2).locator("input[value=partially_correct]"))
    _tick(page, step(2).locator("input[value=minor]"))
    _tick(page, step(3).locator("input[value=correct]"))
    assert run.locator(".traj-score").inner_text() == "Score: 94 / 100"
    assert step(2).locator(".traj-status").inner_text().lower() == "partially correct"
    _check(page, "potato-trajectories", "desktop")
    _next(page)
    run = page.locator(".task-item:visible [data-scheme=steps]")
    _tick(page, step(0).locator("input[value=incorrect]"))
    _pick(page, step(0).locator("select"), "tool_misuse")
    _tick(page, step(0).locator("input[value=critical]"))
    correct = step(1).locator("input[value=correct]")
    _tick(page, correct)
    page.keyboard.press("Space")  # picked again: taken back, the step unjudged
    assert not correct.is_checked()
    assert run.locator(".traj-score").inner_text() == "Score: 90 / 100"
    page.set_viewport_size(PHONE["viewport"])
    _check(page, "potato-trajectories", "phone")
    _submit_and_compare(page, context, live_server, batch, "trajectories", tmp_path / "export")


def test_an_agent_scorecard_saves_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's agent_scorecard: each agent acting in the run (by its agent, else its speaker) scored on each agent
    dimension, the team on its own, the milestones ticked; a point picked again taken back; by keyboard at 390 px;
    saved as Potato's JSON of the cells scored."""
    batch, context, page = _start("scorecards", chromium, live_server, capsys, PHONE)
    card = page.locator(".task-item:visible [data-scheme=card]")
    assert card.locator(".scorecard-name").all_inner_texts() == ["lead", "writer", "critic"]
    row = lambda name: card.get_by_role("radiogroup", name=name)  # noqa: E731
    _tick(page, row("lead: contribution").locator("input[value='3']"))
    _tick(page, row("lead: coordination").locator("input[value='2']"))
    taken = row("writer: contribution").locator("input[value='2']")
    _tick(page, taken)
    page.keyboard.press("Space")  # picked again: taken back
    assert not taken.is_checked()
    _tick(page, row("critic: coordination").locator("input[value='1']"))
    _tick(page, row("The team: efficiency").locator("input[value='2']"))
    _tick(page, card.get_by_label("plan agreed"))
    _check(page, "potato-scorecards", "phone")
    _next(page)
    card = page.locator(".task-item:visible [data-scheme=card]")
    assert card.locator(".scorecard-name").all_inner_texts() == ["solo"]
    _tick(page, card.get_by_role("radiogroup", name="The team: efficiency").locator("input[value='3']"))
    _submit_and_compare(page, context, live_server, batch, "scorecards", tmp_path / "export")


def test_a_handoff_review_saves_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's handoff_review: a card wherever the acting agent changes (by its agent, else its speaker), issues
    ticked and a quality rated; a quality picked again taken back; by keyboard at 390 px; saved as Potato's JSON of
    the handoffs reviewed."""
    batch, context, page = _start("handoffs", chromium, live_server, capsys, PHONE)
    cards = page.locator(".task-item:visible [data-scheme=handoffs] .tool-call")
    assert [" ".join(card.locator(".tool-call-head").inner_text().split()) for card in cards.all()] == [
        "planner → writer step 3", "writer → checker step 4", "checker → writer step 5"]
    _tick(page, cards.nth(0).get_by_label("info loss"))
    _tick(page, cards.nth(0).get_by_label("dropped constraint"))
    _tick(page, cards.nth(0).locator("input[type=radio][value='1']"))
    best = cards.nth(1).locator("input[type=radio][value='3']")
    _tick(page, best)
    page.keyboard.press("Space")  # picked again: taken back
    assert not best.is_checked()
    _tick(page, cards.nth(1).locator("input[type=radio][value='2']"))
    drift = cards.nth(2).get_by_label("goal drift")
    _tick(page, drift)
    page.keyboard.press("Space")
    assert not drift.is_checked()
    _check(page, "potato-handoffs", "phone")
    _next(page)
    _tick(page, page.locator(".task-item:visible [data-scheme=handoffs]").get_by_label("garbling"))
    _submit_and_compare(page, context, live_server, batch, "handoffs", tmp_path / "export")


def test_emergent_behaviours_save_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's emergent_behavior: for each behaviour the turns taking part ticked (numbered, with their agent) and
    a note; a behaviour with only a note kept, one with nothing left out; by keyboard at 390 px; saved as Potato's
    JSON of the behaviours tagged, their turns in order."""
    batch, context, page = _start("behaviours", chromium, live_server, capsys, PHONE)
    tags = page.locator(".task-item:visible [data-scheme=collective]")
    block = lambda name: tags.locator("li").filter(has=page.locator(f"legend:text-is('{name}')"))  # noqa: E731
    assert tags.locator(".behavior-turns legend").all_text_contents() == [
        "collusion", "groupthink", "cascading error", "role drift"]
    assert [text.strip() for text in block("groupthink").locator("label").all_inner_texts()[:4]] == [
        "1 a", "2 b", "3 c", "4 a"]
    assert page.locator("#cf-progress").inner_text() == "0 of 2 answered"  # a box unticked answers nothing
    for turn in ("3 c", "2 b", "1 a"):
        _tick(page, block("groupthink").get_by_label(turn, exact=True))
    _type(page, block("groupthink").get_by_label("Note"), "All agree at once.")
    drift = block("role drift").get_by_label("4 a", exact=True)
    _tick(page, drift)
    page.keyboard.press("Space")
    assert not drift.is_checked()
    _type(page, block("collusion").get_by_label("Note"), "none seen")
    _check(page, "potato-behaviours", "phone")
    _next(page)
    tags = page.locator(".task-item:visible [data-scheme=collective]")
    for turn in ("1 ops", "2 dev"):
        _tick(page, block("cascading error").get_by_label(turn, exact=True))
    _submit_and_compare(page, context, live_server, batch, "behaviours", tmp_path / "export")


def test_events_over_spans_save_what_potato_s_page_keeps(chromium, live_server, tmp_path, capsys):
    """Potato's event_annotation: the spans dragged over with the mouse and labelled; then an ATTACK made from the
    keyboard with its trigger, attacker and instrument, and made again on the same trigger with the attacker and the
    target, which replaces the first as on Potato's page. The spans export as Potato's export wrote them; the event
    as Potato's page kept it (its id aside: Potato's are random); Potato's export writes no events."""
    batch, context, page = _start("events", chromium, live_server, capsys)
    item = page.locator(".task-item").first
    for start, end, label in ((0, 6, "ACTOR"), (7, 15, "TRIGGER"), (20, 24, "PLACE"), (30, 37, "WEAPON")):
        drag_characters(page, item.locator(".span-text"), start, end)
        item.locator("[data-scheme=entities] .span-label", has_text=label).click()
    widget = item.locator(".event-widget")
    # Only a TRIGGER may be the trigger, only an ACTOR the attacker: each picker offers just those spans.
    assert widget.locator(".event-trigger option").all_inner_texts() == ["TRIGGER: “attacked”"]
    assert widget.get_by_role("combobox", name="attacker").locator("option").all_inner_texts() == [
        "(none)", "ACTOR: “Rebels”"]
    add = widget.get_by_role("button", name="Add the event")
    add.focus()
    page.keyboard.press("Enter")
    assert widget.locator(".event-note").inner_text() == "Pick the attacker first."
    # The instrument picked before the attacker: kept in that order, as Potato's page keeps an event's arguments
    # (in the order their roles were filled).
    for role in ("instrument", "attacker"):
        widget.get_by_role("combobox", name=role).focus()
        page.keyboard.press("ArrowDown")
    add.focus()
    page.keyboard.press("Enter")
    assert widget.locator(".event-list li").first.inner_text().startswith(
        "ATTACK: TRIGGER: “attacked”, instrument = WEAPON: “rockets”, attacker = ACTOR: “Rebels”")
    for role in ("attacker", "target"):
        widget.get_by_role("combobox", name=role).focus()
        page.keyboard.press("ArrowDown")
    add.focus()
    page.keyboard.press("Enter")
    assert widget.locator(".event-note").inner_text() == "The ATTACK event on that trigger is replaced."
    assert widget.locator(".event-list li").count() == 1
    _check(page, "potato-events", "desktop")
    page.set_viewport_size(PHONE["viewport"])
    _check(page, "potato-events", "phone")
    page.set_viewport_size(DESKTOP["viewport"])
    page.reload()  # the draft's event listed again, over the spans marked again
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    assert page.locator(".event-list li").all_inner_texts() == [
        "ATTACK: TRIGGER: “attacked”, attacker = ACTOR: “Rebels”, target = PLACE: “town” Remove"]
    page.locator("#cf-submit").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/work/")
    context.close()
    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "export", formats=("potato",))}
    ours = _jsonl(written["annotations.jsonl"].read_text())
    events = ours["e1"].pop("events")["events"]
    assert ours == _jsonl((FOLDER / "events" / "potato-annotations.jsonl").read_text())
    columns, rows = _csv(written["annotations.csv"].read_text())
    assert json.loads(rows["e1"].pop("events._events")) == events
    assert (columns - {"events._events"}, rows) == _csv((FOLDER / "events" / "potato-annotations.csv").read_text())
    stored = json.loads((FOLDER / "events" / "potato-stored-events.json").read_text())["e1"]
    kept = list(stored.values())[-1]  # the one its page kept: Potato's store also keeps the one it replaced
    assert [{**event, "id": ""} for event in events] == [{**kept, "id": ""}]


def test_a_conversation_tree_s_nodes_and_path_save_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's tree_annotation on a conversation_tree display: the root and Bot A put on the path, Bot A rated 4,
    Bot B rated 2, Bot B put on the path and taken off again, all by keyboard. The path is Potato's; each node keeps
    its own rating, where Potato 2.12.1's page gave every node it had opened the last rating given (its README)."""
    batch, context, page = _start("trees", chromium, live_server, capsys)
    item = page.locator(".task-item").first
    assert item.locator(".design-text").count() == 0  # the tree is drawn once, by the scheme, not as the text too
    assert item.locator(".tree-said").all_inner_texts() == [
        "User: How do I boil an egg? (2 replies)", "Bot A: Put it in boiling water for 8 minutes. (1 reply)",
        "User: Soft or hard?", "Bot B: Use a microwave."]
    node = {name: item.locator(f".tree-node[data-node='{name}']") for name in ("root", "a", "a1", "b")}

    def on_path(name):
        node[name].get_by_role("button", name="On the path").focus()
        page.keyboard.press("Enter")

    on_path("root")
    on_path("a")
    _tick(page, node["a"].locator("input[value='4']"))
    _tick(page, node["b"].locator("input[value='2']"))
    on_path("b")
    assert item.locator(".tree-path-nodes").inner_text() == "User (root) → Bot A (a) → Bot B (b)"
    on_path("b")
    assert item.locator(".tree-path-nodes").inner_text() == "User (root) → Bot A (a)"
    assert node["a"].get_by_role("button", name="On the path").get_attribute("aria-pressed") == "true"
    _check(page, "potato-trees", "desktop")
    page.set_viewport_size(PHONE["viewport"])
    _check(page, "potato-trees", "phone")
    page.set_viewport_size(DESKTOP["viewport"])
    page.reload()  # the draft's ratings and path marked again
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    assert item.locator(".tree-path-nodes").inner_text() == "User (root) → Bot A (a)"
    assert node["a"].locator("input[value='4']").is_checked()
    page.locator("#cf-submit").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/work/")
    context.close()
    assert next(iter(Assignment.objects.get(hit__batch=batch).answers.values()))["quality"] == {
        "nodes": {"a": 4, "b": 2}, "path": ["root", "a"]}
    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "export", formats=("potato",))}
    ours = _jsonl(written["annotations.jsonl"].read_text())["t1"]["labels"]["quality"]
    potato = _jsonl((FOLDER / "trees" / "potato-annotations.jsonl").read_text())["t1"]["labels"]["quality"]
    assert ours["selected_path"] == potato["selected_path"] == '["root","a"]'
    assert json.loads(ours["node_annotations"]) == {"a": {"quality_node": "4"}, "b": {"quality_node": "2"}}
    assert json.loads(potato["node_annotations"]) == {node: {"quality_node": "2"} for node in ("root", "a", "b")}
    columns, _ = _csv(written["annotations.csv"].read_text())
    assert columns == _csv((FOLDER / "trees" / "potato-annotations.csv").read_text())[0]


def test_a_list_experiment_shows_each_condition_its_own_list_and_saves_what_potato_saves(chromium, live_server,
                                                                                         tmp_path, capsys):
    """Potato's list_experiment under round-robin conditions: the first annotator is in control and their page
    holds no sensitive statement at all (not hidden: absent from the HTML), the second in treatment sees it second;
    each types a count from the keyboard, and a question asked of the treatment condition only (display logic on
    condition.list) is shown to the second, who answers it. The answers, and the participants' conditions, are what
    Potato wrote."""
    project = potato_project(FOLDER / "counts" / "config.yaml", capsys)
    batch = batch_publish(batch=project.batches.get())
    sensitive = "Labelled data for a paper without reading the guidelines"
    seen = {}
    for name, count, device in (("ada", "2", DESKTOP), ("bea", "3", PHONE)):
        project_annotator(project, name)
        context, page = hit_page(chromium, live_server, name, device)
        item = page.locator(".task-item").first
        seen[name] = item.locator(".list-experiment-items li").all_inner_texts()
        assert (sensitive in page.content()) == (name == "bea")
        _check(page, f"potato-counts-{name}", "desktop" if device is DESKTOP else "phone")
        why = item.locator("[data-scheme=why]")
        assert why.is_visible() == (name == "bea")
        if name == "bea":
            _tick(page, why.get_by_role("radio", name="a"))
        box = item.get_by_role("spinbutton", name="How many?")
        assert box.get_attribute("max") == "4"
        _type(page, box, count)
        page.keyboard.press("Tab")  # the box's change is what a draft keeps
        page.reload()  # the same condition again, and the draft's count
        page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
        assert item.locator(".list-experiment-items li").all_inner_texts() == seen[name]
        assert box.input_value() == count
        page.locator("#cf-submit").focus()
        page.keyboard.press("Enter")
        page.wait_for_url(f"{live_server.url}/work/")
        context.close()
    assert seen == {"ada": ["Voted in a local election", "Given money to a charity", "Read a novel"],
                    "bea": ["Voted in a local election", sensitive, "Given money to a charity", "Read a novel"]}
    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "export", formats=("potato",))}
    ours = [json.loads(line) for line in written["annotations.jsonl"].read_text().splitlines()]
    potato = [json.loads(line) for line in (FOLDER / "counts" / "potato-annotations.jsonl").read_text().splitlines()]
    assert [_without_user(record) for record in ours] == [_without_user(record) for record in potato]
    assert [record["user_id"] for record in ours] == ["W1", "W2"]
    def rows(text):  # each annotator's row, in order, without their name
        return [{key: value for key, value in row.items() if key != "user_id"}
                for row in csv.DictReader(io.StringIO(text))]

    assert rows(written["annotations.csv"].read_text()) == rows(
        (FOLDER / "counts" / "potato-annotations.csv").read_text())
    potato_people = rows((FOLDER / "counts" / "potato-participants.csv").read_text())
    ours_people = rows(written["participants.csv"].read_text())
    assert list(ours_people[0]) == list(potato_people[0])  # Potato's columns, in its order
    assert [{key: row[key] for key in ("condition_list", "condition_ordinal", "cell_ordinal")}
            for row in ours_people] == [{key: row[key] for key in ("condition_list", "condition_ordinal",
                                                                    "cell_ordinal")} for row in potato_people]


def test_events_across_documents_are_kept_and_saved_as_potato_keeps_them(chromium, live_server, tmp_path, capsys):
    """Potato's multi_document_event: on d1 an event made, named and its place filled and cited, all by keyboard; the
    answer (the document's events) and the registry are what Potato kept, ids and times aside. Then a second
    annotator finds the event listed on d2 and puts d2 in it: one event, two documents."""
    from designs.models import SharedEvent

    batch, context, page = _start("storms", chromium, live_server, capsys)
    item = page.locator(".task-item.current")
    widget = item.locator(".mde")
    expect_listed = widget.locator(".mde-events li")
    expect_listed.first.wait_for()  # read from the site once the page is there
    assert expect_listed.all_inner_texts() == ["No events yet."]
    widget.get_by_role("button", name="New event").focus()
    page.keyboard.press("Enter")
    name = widget.get_by_label("Event name")
    name.wait_for(state="visible")
    assert page.evaluate("document.activeElement.classList.contains('mde-title')")
    page.keyboard.type("Galway storm")
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('.task-item.current .mde-status').textContent === 'Name saved.'")
    place = widget.get_by_role("textbox", name="place", exact=True)
    _type(page, place, "Galway")
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('.task-item.current .mde-status').textContent === 'place saved.'")
    _type(page, widget.locator(".mde-slot[aria-label=place] .mde-quote"), "Galway")
    page.keyboard.press("Enter")
    widget.locator(".mde-citations li").wait_for()
    assert widget.locator(".mde-citations li").inner_text().startswith("“Galway” (d1)")
    assert widget.get_by_label("This document belongs to this event").is_checked()
    assert widget.locator(".mde-confirm").is_hidden()  # her own changes are her answer already
    assert expect_listed.all_inner_texts() == ["Galway storm\n1 document, this one"]
    _check(page, "potato-storms", "desktop")
    page.set_viewport_size(PHONE["viewport"])
    _check(page, "potato-storms", "phone")
    page.set_viewport_size(DESKTOP["viewport"])
    _next(page)
    # d2: the storm made on d1 is listed (Potato's page lists none). Potato's page let the annotator go on without a
    # word; ours asks each document be answered, so it is said to be in no event (written to the potato export as
    # [], where Potato wrote nothing).
    listed = page.locator(".task-item.current .mde .mde-events li")
    page.locator(".task-item.current .mde .mde-events li:not(.mde-none)").first.wait_for(state="visible")
    expect(listed).to_have_text(["Galway storm\n1 document"], use_inner_text=True)  # once drawn
    nothing = page.locator(".task-item.current .mde").get_by_role("button", name="It is in no event")
    nothing.focus()
    page.keyboard.press("Enter")
    _submit_and_compare_shared(page, context, live_server, batch, tmp_path)

    from projects.models import Project

    project_annotator(Project.objects.get(batches=batch), "bea")
    context, page = hit_page(chromium, live_server, "bea", DESKTOP)
    widget = page.locator(".task-item.current .mde")
    confirm = widget.get_by_role("button", name="It is in this event")
    confirm.focus()  # d1 is in the storm already (ada put it there): bea says so
    page.keyboard.press("Enter")
    _next(page)  # to d2
    widget = page.locator(".task-item.current .mde")
    widget.locator(".mde-events li").first.wait_for()
    expect(widget.locator(".mde-events li")).to_have_text(["Galway storm\n1 document"], use_inner_text=True)
    widget.get_by_role("button", name="Galway storm").focus()
    page.keyboard.press("Enter")
    _tick(page, widget.get_by_label("This document belongs to this event"))
    page.wait_for_function("document.querySelector('.task-item.current .mde-status').textContent"
                           " === 'This document is in the event.'")
    page.locator("#cf-submit").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/work/")
    context.close()
    event = SharedEvent.objects.get(batch=batch)
    assert event.members == ["d1", "d2"]
    second = Assignment.objects.get(hit__batch=batch, worker__user__username="bea")
    assert [answer.get("storms") for answer in second.answers.values()] == [[event.key], [event.key]]


def _submit_and_compare_shared(page, context, live_server, batch, tmp_path):
    page.locator("#cf-submit").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/work/")
    context.close()
    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "export", formats=("potato",))}
    ours = _jsonl(written["annotations.jsonl"].read_text())
    potato = _jsonl((FOLDER / "storms" / "potato-annotations.jsonl").read_text())
    assert set(potato) == {"d1"} and ours["d2"]["labels"] == {"storms": {"storms": "[]"}}
    ours_ids, potato_ids = (json.loads(found["d1"]["labels"]["storms"]["storms"]) for found in (ours, potato))
    assert len(ours_ids) == len(potato_ids) == 1 and ours_ids[0].startswith("evt_") and len(ours_ids[0]) == 16
    registry = json.loads(written["event_registry.json"].read_text())
    kept = json.loads((FOLDER / "storms" / "potato-event-registry.json").read_text())
    assert list(registry["events"]) == ours_ids and registry["version"] == kept["version"]

    def same(event):  # ids, times and who aside
        return {**{key: value for key, value in event.items() if key not in ("id", "created_at", "updated_at",
                                                                            "created_by", "evidence")},
                "evidence": [{key: value for key, value in citation.items() if key not in ("created_at", "created_by")}
                             for citation in event["evidence"]]}

    assert [same(event) for event in registry["events"].values()] == [same(event) for event in kept["events"].values()]
    assert next(iter(registry["events"].values()))["created_by"] == "W1"


def test_ego_networks_save_what_potato_saves(chromium, live_server, tmp_path, capsys):
    """Potato's ego_network by keyboard: people typed and picked from a roster, asked about, paired and placed on
    the sociogram (moved by the arrow keys, a tie taken off through a person's list of ties); saved as Potato's
    JSON of the network."""
    batch, context, page = _start("networks", chromium, live_server, capsys)
    network = page.locator(".task-item:visible [data-scheme=network]")

    def press(role, name, where=network):
        control = where.get_by_role(role, name=name, exact=True)
        control.focus()
        page.keyboard.press("Enter")

    network.locator(".ego-name").focus()
    for name in ("Ann", "Bob", "Cy", "ann"):
        page.keyboard.type(name)
        page.keyboard.press("Enter")
    assert network.locator(".ego-message").inner_text() == "Ann is already on this list."
    assert page.locator(".task-item.current").count() == 1  # Enter named a person: it neither moved on nor sent
    press("button", "Next: At work →")
    press("button", "Eve")
    press("button", "Add Bob to this list")
    assert network.get_by_role("button", name="Eve", exact=True).get_attribute("aria-pressed") == "true"
    press("button", "Next: About each person →")
    for who, choice in (("Ann", "Very close"), ("Bob", "Not close"), ("Cy", "Very close"), ("Eve", "Not close")):
        press("radio", choice, network.locator(f".ego-card:has(h4:text-is('{who}'))"))
    _type(page, network.locator(".ego-card:has(h4:text-is('Ann')) input"), "12")
    page.keyboard.press("Tab")
    press("button", "Next: Who knows whom →")
    for choice in ("Strong", "No", "Weak", "No", "No", "Strong"):
        press("radio", choice)
    assert network.locator(".ego-count").inner_text() == "Pair 6 of 6 · 6 answered"
    screenshot(page, "potato-networks")
    press("button", "Next: Arrange your network →")
    network.locator(".ego-node").first.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Shift+ArrowDown")
    network.locator(".ego-node").nth(2).focus()
    page.keyboard.press("Enter")
    cy_eve = network.get_by_role("checkbox", name="Eve")
    assert cy_eve.get_attribute("aria-checked") == "true"  # the census's tie
    cy_eve.focus()
    page.keyboard.press("Space")
    assert network.get_by_role("checkbox", name="Eve").get_attribute("aria-checked") == "false"
    press("button", "Done with Cy")
    assert network.locator(".ego-tie").count() == 2
    _check(page, "potato-networks", "desktop")
    page.locator("#cf-submit").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/work/")
    context.close()
    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "export", formats=("potato",))}
    ours, potato = (_jsonl(text) for text in (written["annotations.jsonl"].read_text(),
                                              (FOLDER / "networks" / "potato-annotations.jsonl").read_text()))
    # The same network, read as JSON: an object's keys in the order the page wrote them is not kept (PostgreSQL
    # keeps an answer's objects with their keys sorted).
    network = json.loads(ours["n1"]["labels"]["network"]["network"])
    assert network == json.loads(potato["n1"]["labels"]["network"]["network"])
    assert list(network) == ["alters", "attributes", "ties", "positions", "census", "tie_attributes"]
    assert {**ours["n1"], "labels": {}} == {**potato["n1"], "labels": {}}
    columns, _ = _csv(written["annotations.csv"].read_text())
    assert columns == _csv((FOLDER / "networks" / "potato-annotations.csv").read_text())[0]
