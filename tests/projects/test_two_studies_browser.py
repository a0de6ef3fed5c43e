"""Two studies on one site, in headless Chromium: an organizer makes two projects on the design page, invites one
annotator to each on its People page, and each annotator, joining by the link with the keyboard only (one at
desktop width, one on a 390 px phone), sees and does only their own project's work. axe-core finds nothing
serious on the People page, the join page or the work list."""

import json

import pytest
from django.contrib.auth.models import User

from accounts import roles
from hits.models import Assignment
from projects.models import Member, Project
from tests.browser import axe_clean, log_in, screenshot
from tests.designs.test_design_browser import _publish
from tests.test_accessibility import DESKTOP, PHONE

pytestmark = [pytest.mark.django_db(transaction=True)]


def _rows(word):
    return [{"id": f"{word}{n}", "premise": f"The {word} broke number {n}.", "question": "What was the cause?",
             "alternatives": ["It fell.", "It sang."], "answer": "1", "subset": "original"} for n in range(1, 3)]


def _project(page, live_server, tmp_path, name, word):
    """A project from the shipped Balanced COPA design, its items about `word`, published in-house."""
    items = tmp_path / f"{word}.jsonl"
    items.write_text("".join(json.dumps(row) + "\n" for row in _rows(word)))
    page.goto(f"{live_server.url}/projects/designs/new/?start=bcopa")
    page.wait_for_selector("#design-status:has-text('Valid')")
    source = page.input_value("#design-source")
    page.fill("#design-source", source.replace("items_per_hit: 10", "items_per_hit: 2").replace(
        "assignments_per_hit: 3", "assignments_per_hit: 1"))
    page.wait_for_selector("#design-status:has-text('Valid')")
    page.set_input_files("#design-items", str(items))
    page.fill("#design-name", name)
    page.select_option("#design-provider", "inhouse")
    page.click("#design-create")
    project = Project.objects.get(name=name)
    page.wait_for_url(f"{live_server.url}/projects/{project.slug}/")
    assert "this project's members only" in page.inner_text("#who-may-work")
    _publish(page, live_server, project)
    return project


def _invite(page, live_server, project, email):
    page.goto(f"{live_server.url}/projects/{project.slug}/people/")
    page.fill("#id_people", email)
    page.get_by_role("button", name="Make invite links").click()
    page.wait_for_selector("#invites")
    return page.input_value(".invite-link")


def _join_and_work(chromium, viewport, link, username, own_word, other_word):
    """Follow the invite by keyboard only, then take and answer the one HIT shown, by keys."""
    context = chromium.new_context(**viewport)
    page = context.new_page()
    page.goto(link)
    page.focus("#id_username")
    page.keyboard.press("Control+A")
    page.keyboard.type(username)
    page.keyboard.press("Tab")
    page.keyboard.type("a-long-pass-phrase-1")
    page.keyboard.press("Tab")
    page.keyboard.type("a-long-pass-phrase-1")
    page.keyboard.press("Enter")
    page.wait_for_url("**/work/")
    work = page.inner_text("main")
    assert own_word in work.lower() or "take a hit" in work.lower()
    assert other_word not in work.lower()
    cards = page.locator(".work-card")
    assert cards.count() == 1
    axe_clean(page, f"two-studies-work-{username}")
    cards.first.get_by_role("button").focus()
    page.keyboard.press("Enter")
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    text = page.inner_text("main")
    assert f"The {own_word} broke" in text and f"The {other_word} broke" not in text
    for _ in range(page.locator(".task-item").count()):
        page.keyboard.press("1")
    screenshot(page, f"two-studies-task-{username}", full_page=False)
    page.keyboard.press("Enter")
    page.wait_for_url("**/work/")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the work list scrolls sideways by {overflow} px"
    context.close()


def test_two_projects_each_annotator_sees_and_does_only_their_own(chromium, live_server, tmp_path):
    organizer = User.objects.create_user("lab", password="pass-word-1")
    organizer.groups.add(roles.group(roles.ORGANIZER))
    context = chromium.new_context(**DESKTOP)
    page = context.new_page()
    log_in(page, live_server, "lab", "pass-word-1", "/projects/")
    mood = _project(page, live_server, tmp_path, "My mood study", "vase")
    reviews = _project(page, live_server, tmp_path, "Product reviews", "kettle")
    first = _invite(page, live_server, mood, "ada@example.org")
    axe_clean(page, "two-studies-people", docs="people-roles")
    second = _invite(page, live_server, reviews, "bob@example.org")

    _join_and_work(chromium, DESKTOP, first, "ada", "vase", "kettle")
    _join_and_work(chromium, PHONE, second, "bob", "kettle", "vase")

    ada, bob = User.objects.get(username="ada"), User.objects.get(username="bob")
    assert list(Member.objects.filter(user=ada).values_list("project__name", "role")) == [("My mood study",
                                                                                          "annotator")]
    assert not ada.groups.exists() and not bob.groups.exists()  # a member of that project only, not of the site
    done = {(a.worker.user.username, a.hit.batch.projects.get().name)
            for a in Assignment.objects.filter(state="submitted").select_related("worker__user", "hit__batch")}
    assert done == {("ada", "My mood study"), ("bob", "Product reviews")}

    # The organizer opens one project to the site: every annotator of the site sees its work, and it says so.
    page.goto(f"{live_server.url}/projects/{reviews.slug}/people/")
    page.check("#id_open_to_site")
    page.get_by_role("button", name="Save who may work").click()
    page.wait_for_selector("#who-may-work:has-text('every annotator of this site')")
    batch = reviews.batches.get()
    page.goto(f"{live_server.url}/projects/{reviews.slug}/batches/{batch.pk}/")
    assert "every annotator of this site (the project is open to the site)" in page.inner_text("#filters")
    context.close()


def test_the_join_page_is_clean(chromium, live_server):
    from projects.people import invites_create
    from projects.services import project_create

    project = project_create(name="Open call")
    (invite,) = invites_create(project=project, people=[("Ada", "ada@example.org")], role="researcher")
    for viewport, name in ((DESKTOP, "join-desktop"), (PHONE, "join-phone")):
        context = chromium.new_context(**viewport)
        page = context.new_page()
        page.goto(f"{live_server.url}/join/{invite.token}/")
        assert "Open call" in page.inner_text("main")
        axe_clean(page, name)
        context.close()
