"""A design that uses every scheme type, and its items, for the design tests."""

import json

EVERY_TYPE = """\
title: Every scheme type
description: A test study.
instructions: Read and answer.
items: {id_key: id, text_key: text, noun: post, show: [source]}
annotation_schemes:
  - annotation_type: radio
    name: sentiment
    description: How does it sound?
    labels:
      - {name: positive, key_value: "1"}
      - {name: negative, key_value: "2"}
      - {name: neutral, key_value: "3"}
    label_requirement: {required: true}
  - annotation_type: span
    name: targets
    description: Underline what it is about.
    labels: [target, cause]
    one_per_label: true
    display_logic:
      show_when: [{schema: sentiment, operator: not_equals, value: neutral}]
  - {annotation_type: multiselect, name: topics, labels: [money, health, politics]}
  - {annotation_type: select, name: language, labels: [en, de]}
  - {annotation_type: likert, name: clarity, size: 5, min_label: unclear, max_label: clear}
  - {annotation_type: slider, name: confidence, min_value: 0, max_value: 100, step: 5}
  - {annotation_type: number, name: count, min: 0, max: 10}
  - {annotation_type: text, name: note, min_words: 2, max_words: 10, must_differ_from: text}
  - {annotation_type: pairwise, name: better, items_key: pair, allow_tie: true}
  - {annotation_type: bws, name: extremes, items_key: four, tuple_size: 4}
  - {annotation_type: multirate, name: aspects, options: [tone, facts], labels: [good, bad]}
  - {annotation_type: pure_display, name: thanks, description: Thank you.}
hits: {items_per_hit: 2, assignments_per_hit: 2, reward: "0.20"}
"""


def items_jsonl(count=2):
    rows = [{"id": f"p{n}", "text": f"Prices <b>rose</b> {n} times =SUM(A1)", "source": "<script>x()</script>",
             "pair": [f"answer A{n}", f"answer B{n}"], "four": ["w", "x", "y", "z"]} for n in range(count)]
    return "".join(json.dumps(row) + "\n" for row in rows).encode()


def full_answer(item_pk, text):
    """Form fields answering every scheme of EVERY_TYPE on one item (scheme numbers are their places)."""
    start = text.index("rose")
    return {f"a-{item_pk}-0": "negative", f"a-{item_pk}-1": json.dumps([[start, start + 4, "target"]]),
            f"a-{item_pk}-2-1": "1", f"a-{item_pk}-2-3": "1", f"a-{item_pk}-3": "en", f"a-{item_pk}-4": "4",
            f"a-{item_pk}-5": "35", f"a-{item_pk}-6": "3", f"a-{item_pk}-7": "rising prices again",
            f"a-{item_pk}-8": "B", f"a-{item_pk}-9-best": "2", f"a-{item_pk}-9-worst": "4",
            f"a-{item_pk}-10-1": "good", f"a-{item_pk}-10-2": "bad"}


def potato_project(config, capsys):
    """The project `manage.py design import-potato CONFIG --json` makes, as an organizer would run it."""
    from django.core.management import call_command

    from projects.models import Project

    call_command("design", "import-potato", str(config), "--json")
    return Project.objects.get(pk=json.loads(capsys.readouterr().out)["project"])


def project_annotator(project, username):
    """An annotator account (password pass-word-1), a member of the project."""
    from django.contrib.auth.models import User

    from accounts import roles
    from projects.people import member_add

    annotator = User.objects.create_user(username, password="pass-word-1")
    annotator.groups.add(roles.group(roles.ANNOTATOR))
    member_add(project=project, user=annotator)
    return annotator


def hit_page(chromium, live_server, username, device):
    """A browser context on `device` (tests.test_accessibility's DESKTOP or PHONE) and its page, the annotator
    logged in and on their first HIT's first item, as they meet it after *Take a HIT*."""
    from tests.browser import log_in

    context = chromium.new_context(**device)
    page = context.new_page()
    log_in(page, live_server, username, "pass-word-1", "/work/")
    page.click("text=Take a HIT")
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    return context, page
