"""The pages annotators and reviewers use, checked in Chromium by axe-core (no violation of impact serious or
critical) on a desktop and on a 390 px phone, where nothing may scroll sideways and every control is at
least 44 px tall. Screenshots of each go to bench/out/pages for a person to look at."""

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth.models import User

from accounts import roles
from aggregation.services import batch_aggregate
from annotation.models import SpanAnnotation
from core.items import ChoiceItem
from designs.semeval import labeling_batch_create, spans_batch_create
from hits.models import Worker
from hits.services import assignment_claim, assignment_submit, batch_publish, worker_for_user
from qualification.models import QualificationTest, TestItem
from reproductions.copa import choice_batch_create
from reproductions.facts import fact_batch_create
from reproductions.rte import paragraph
from tests.browser import log_in, screenshot
from tests.hits.helpers import span_fields, spec

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}

# Controls a finger must hit; radios and checkboxes count by their label, which is what takes the tap.
CONTROLS = """() => [...document.querySelectorAll(
    "button, a.button, select, textarea, summary, input:not([type=hidden]):not([type=radio]):not([type=checkbox]), " +
    "label:has(> input[type=radio]), label:has(> input[type=checkbox]), nav a, [role=button]")]
  .filter(element => { const box = element.getBoundingClientRect(); return box.width > 0 && box.height > 0 &&
    getComputedStyle(element).visibility !== "hidden"; })
  .map(element => ({what: element.outerHTML.slice(0, 90), height: element.getBoundingClientRect().height}))"""


def _user(name, role, **extra):
    user = User.objects.create_user(name, password="pass-word-1", **extra)
    user.groups.add(roles.group(role))
    return user


@pytest.fixture
def site():
    """Work of every kind for one annotator: labels, spans, a batch behind a screening test, a graded test,
    and span annotations waiting for review."""
    annotator = _user("ann", roles.ANNOTATOR)
    _user("boss", roles.ORGANIZER, is_staff=True)
    worker = worker_for_user(annotator)
    labels = batch_publish(batch=labeling_batch_create(
        name="Finance news, round 1", assignments_per_hit=1, items_per_hit=6,
        items=[spec(f"l{n}", f"Had the bank not cut rates in March, sentence {n} would read otherwise.",
                    group="finance") for n in range(12)]))
    spans = batch_publish(batch=spans_batch_create(
        name="Spans, round 1", assignments_per_hit=1, items_per_hit=3,
        items=[spec("p0", "If the bill had passed, prices would have fallen."),
               spec("p1", "Had the Fed moved sooner, inflation would have peaked lower."),
               spec("p2", "If approved, it would be the first such drug.")]))
    test = QualificationTest.objects.create(
        name="screen", title="Counterfactual screening test", instructions="Read each sentence whole.",
        pass_threshold=80, examples=[{"sentence": "If X had been, Y would.", "answer": 1, "why": "X was not."}])
    for n, (text, answer) in enumerate([("Had I known, I would have sold.", 1), ("Shares rose 3%.", 0),
                                        ("I wish it were true.", 1)]):
        TestItem.objects.create(test=test, position=n, sentence_id=str(n), text=text, answer=answer,
                                why="Explained.")
    batch_publish(batch=labeling_batch_create(
        name="Screened work", requirements={"qualification": "screen"},
        items=[spec("q", "A sentence.")]))
    batch_publish(batch=choice_batch_create(name="Causes and effects", items_per_hit=2, assignments_per_hit=1, items=[
        ChoiceItem(premise="The man broke his toe.", alternative_1="He dropped a hammer on his foot.",
                   alternative_2="He got a hole in his sock.", item_id="1", answer=1),
        ChoiceItem(premise="The woman hummed to herself.", alternative_1="She was nervous.",
                   alternative_2="She was in a good mood.", item_id="2", asks_for="effect", answer=2)]))
    text = "Oracle had fought to keep the forms from being released, the court heard."
    facts = batch_publish(batch=fact_batch_create(name="Facts about companies", items_per_hit=1, assignments_per_hit=2,
                                                  items=[paragraph("o1", text, "Oracle")]))
    # Span annotations for the review page, from two other workers: the page shows both and their majority.
    other = worker_for_user(_user("other", roles.ANNOTATOR))
    reviewed = batch_publish(batch=spans_batch_create(
        name="Reviewed spans", assignments_per_hit=2, items_per_hit=2,
        items=[spec("r0", "If the bill had passed, prices would have fallen."), spec("r1", "Rates rose.")]))
    assignment = assignment_claim(batch=reviewed, worker=other)
    first, second = assignment.hit.ordered_items()
    assignment_submit(assignment=assignment, worker=other, raw_answers={
        **span_fields(first, ant="0:4", con="6:9"), **span_fields(second, cf="0", why="A plain fact.")})
    third = worker_for_user(_user("third", roles.ANNOTATOR))
    assignment_submit(assignment=assignment_claim(batch=reviewed, worker=third), worker=third, raw_answers={
        **span_fields(first, ant="1:4", con="6:9"), **span_fields(second, ant="0:1")})
    written = assignment_claim(batch=facts, worker=other)
    assignment_submit(assignment=written, worker=other, raw_answers={
        f"a-{written.hit.ordered_items()[0].pk}-0-1": "Oracle wanted the papers kept secret",
        "_evidence": '{"lines": {}, "blurs": 2}', "_elapsed_ms": "41000"})
    # A batch whose truth-inference run gives one worker a low skill: the spot-check page suggests them.
    voted = batch_publish(batch=labeling_batch_create(name="Skills", items_per_hit=4,
                                             assignments_per_hit=3,
                                             items=[spec(f"k{n}", f"Sentence {n}.") for n in range(4)]))
    for name, value in (("sk1", "1"), ("sk2", "1"), ("sk3", "0")):
        voter = Worker.objects.create(provider="inhouse", external_id=name)
        place = assignment_claim(batch=voted, worker=voter)
        assignment_submit(assignment=place, worker=voter,
                          raw_answers={f"a-{item.pk}-0": value for item in place.hit.ordered_items()})
    batch_aggregate(batch=voted, method="majority", samples=0)
    return {"labels": labels, "spans": spans, "worker": worker, "facts": facts,
            "review": SpanAnnotation.objects.order_by("pk").first()}


# The annotator's getting-started page shows these, as this walk finds them.
DOCS_PICTURES = {("work-list", "desktop"): "annotator-work-list", ("labeling", "desktop"): "annotator-labeling",
                 ("spans", "desktop"): "annotator-spans", ("spans", "phone"): "annotator-spans-phone",
                 ("qualification-test", "desktop"): "annotator-screening-test",
                 ("qualification-result", "desktop"): "annotator-screening-result",
                 ("span-review", "desktop"): "organizer-span-review"}


def _check(page, name, width):
    """axe at this size, then (on the phone) overflow and tap targets; a screenshot either way."""
    page.wait_for_load_state("networkidle")
    screenshot(page, f"{name}-{width}", docs=DOCS_PICTURES.get((name, width)))
    results = Axe().run(page)
    bad = [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
           for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    assert bad == [], f"{name} at {width}: {bad}"
    if width != "phone":
        return
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{name} scrolls sideways by {overflow} px on a phone"
    small = [control for control in page.evaluate(CONTROLS) if control["height"] < 44]
    assert small == [], f"{name}: controls under 44 px tall on a phone: {small}"
    hints = page.locator(".kbd-hint")
    assert all(not hints.nth(n).is_visible() for n in range(hints.count())), f"{name} shows key hints on a phone"


def _pages(chromium, live_server, site, size, width):
    context = chromium.new_context(**size)
    page = context.new_page()
    log_in(page, live_server, "ann", "pass-word-1", "/work/")
    page.wait_for_selector("#open-heading")
    _check(page, "work-list", width)

    page.click("button:has-text('Take a HIT of Finance news')")
    page.wait_for_selector("#cf-task")
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    page.locator(".task-item").first.locator("input[value='1']").check()
    _check(page, "labeling", width)

    page.goto(f"{live_server.url}/work/")
    page.click("button:has-text('Take a HIT of Spans')")
    page.wait_for_selector(".scheme-span", state="attached")
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    page.locator(".design-item").first.locator("input[type=radio][value='yes']").check()
    page.locator(".design-item").first.locator(".span-text .tok").nth(0).click()
    page.locator(".design-item").first.locator(".span-text .tok").nth(4).click()
    page.locator(".design-item").first.locator(".span-label[data-label=antecedent]").click()
    page.locator(".design-item").nth(1).locator("input[type=radio][value='no']").check()
    _check(page, "spans", width)

    page.goto(f"{live_server.url}/work/")
    page.click("button:has-text('Take a HIT of Causes and effects')")
    page.wait_for_selector(".pair-option")
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    page.keyboard.press("2")
    _check(page, "choice", width)

    page.goto(f"{live_server.url}/work/")
    page.click("button:has-text('Take a HIT of Facts about companies')")
    page.wait_for_selector(".design-item")
    page.locator(".text-input").first.fill("Oracle had fought to keep the forms")  # a refused line, its note shown
    _check(page, "facts", width)

    page.goto(f"{live_server.url}/qualification/screen/")
    page.wait_for_selector("#cf-task")
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    _check(page, "qualification-test", width)
    page.locator(".task-item").first.locator("input[value='1']").check()
    page.click("#cf-submit")
    page.click("#confirm-send")
    page.wait_for_selector("#feedback")
    _check(page, "qualification-result", width)
    context.close()

    context = chromium.new_context(**size)
    page = context.new_page()
    log_in(page, live_server, "boss", "pass-word-1", f"/review/spans/{site['review'].pk}/")
    page.wait_for_selector("#review-form")
    # Two answers: the majority keeps the words both put in a span ("If" was one annotator's).
    assert page.inner_text("#span-majority .ant") == "the bill had passed"
    assert page.locator(".span-answer").count() == 2
    _check(page, "span-review", width)
    page.goto(f"{live_server.url}/review/spans/?show=all")
    _check(page, "span-review-list", width)
    page.goto(f"{live_server.url}/review/spot-checks/")
    assert "majority skill 0.00" in page.inner_text("#sanction-suggestions")
    _check(page, "spot-checks", width)
    page.goto(f"{live_server.url}/review/writing/{site['facts'].pk}/")
    page.wait_for_selector(".evidence-card")
    _check(page, "writing-evidence", width)
    context.close()


def test_annotator_pages_pass_axe_on_a_desktop(chromium, live_server, site):
    _pages(chromium, live_server, site, DESKTOP, "desktop")


def test_annotator_pages_pass_axe_and_fit_a_390_px_phone(chromium, live_server, site):
    _pages(chromium, live_server, site, PHONE, "phone")
