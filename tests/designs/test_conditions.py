"""Between-subjects conditions and the list experiment: a cell given once per person and batch as Potato gives it,
a page that holds only what the person's cell allows, MTurk refused for it, and the estimate in the report and the
export."""

import json
from collections import Counter

from django.contrib.auth.models import User
from django.core.management import call_command
from django.urls import reverse

from accounts import roles
from core.errors import InputError
from designs.conditions import Conditions, difference_in_means, shown
from designs.export import export_batch
from designs.items import read_items
from designs.loader import DesignError, load_text
from designs.models import ConditionCell
from designs.services import design_batch_create, design_version_save
from emulators.mturk import MTurkEmulator
from hits.models import Assignment, Batch
from hits.providers import use_provider
from hits.providers.mturk import MTurkProvider
from hits.services import batch_publish
from hits.services.errors import CrowdError
from tests.base import BaseTestCase

DESIGN = """\
title: Counts
conditions:
  factors: {list: [control, treatment]}
  assignment: round_robin
annotation_schemes:
  - annotation_type: list_experiment
    name: count
    description: How many of these have you done?
    items: [Voted, Given to a charity, Read a novel]
    sensitive_item: Skipped the guidelines
    treatment: {factor: list, level: treatment}
hits: {items_per_hit: 1, assignments_per_hit: 6}
"""
SENSITIVE = "Skipped the guidelines"


def test_a_level_yaml_reads_as_true_or_false_is_refused_with_its_line():
    try:
        load_text(DESIGN.replace("[control, treatment]", "[yes, no]"), name="counts.yaml")
    except DesignError as error:
        assert "counts.yaml:3: conditions.factors:" in str(error) and "quote the level names" in str(error)
    else:
        raise AssertionError("a yes/no level passed")


def test_a_list_experiment_whose_factor_is_not_declared_is_refused():
    try:
        load_text(DESIGN.replace("factor: list", "factor: lists"), name="counts.yaml")
    except DesignError as error:
        assert "treatment.factor" in str(error) and "'lists' is not a factor" in str(error) and "list" in str(error)
    else:
        raise AssertionError("an undeclared factor passed")
    try:
        load_text(DESIGN.replace("level: treatment", "level: treated"), name="counts.yaml")
    except DesignError as error:
        assert "'treated' is not a level of list (control, treatment)" in str(error)
    else:
        raise AssertionError("an undeclared level passed")


def test_a_cell_naming_an_unknown_level_is_refused():
    try:
        Conditions(factors={"list": ["a", "b"]}, cells=[{"list": "c"}])
    except ValueError as error:
        assert "cells[0].list: 'c' is not one of its levels (a, b)" in str(error)
    else:
        raise AssertionError("an unknown level passed")


def _arrivals(conditions, people):
    counts = [0] * len(conditions.all_cells())
    for ordinal in range(people):
        counts[conditions.choose(f"p{ordinal}", ordinal, counts)] += 1
    return counts


def test_cells_are_given_as_potato_gives_them():
    two = {"feedback": ["none", "now"], "font": ["serif", "sans"]}
    assert [cell.levels for cell in Conditions(factors=two).all_cells()] == [
        {"feedback": "none", "font": "serif"}, {"feedback": "none", "font": "sans"},
        {"feedback": "now", "font": "serif"}, {"feedback": "now", "font": "sans"}]
    in_turn = Conditions(factors={"list": ["a", "b", "c"]}, assignment="round_robin")
    assert [in_turn.choose(f"p{n}", n, [0, 0, 0]) for n in range(5)] == [0, 1, 2, 0, 1]
    # balanced: each cell its weighted share, whoever arrives
    weighted = Conditions(factors={"list": ["a", "b"]}, cells=[{"list": "a", "weight": 2}, {"list": "b"}])
    assert _arrivals(weighted, 30) == [20, 10]
    # a full cell takes no one while another has room, then the least filled
    capped = Conditions(factors={"list": ["a", "b"]}, max_per_cell=2, assignment="round_robin")
    assert capped.choose("p", 0, [2, 0]) == 1 and capped.choose("p", 1, [2, 0]) == 1
    # random: the same person the same cell; by weight over many
    drawn = Conditions(factors={"list": ["a", "b"]}, assignment="random", cells=[{"list": "a", "weight": 3},
                                                                                 {"list": "b"}])
    assert drawn.choose("ada", 0, [0, 0]) == drawn.choose("ada", 7, [5, 1])
    share = Counter(drawn.choose(f"p{n}", n, [0, 0]) for n in range(2000))
    assert 0.7 < share[0] / 2000 < 0.8


def test_a_page_holds_only_what_the_cell_allows():
    page = ('<ul><li>Voted</li><li data-condition-only="list=treatment">Skipped</li>'
            '<li data-condition-only="list=a &amp; b">Both</li></ul>')
    assert shown(page, {"list": "control"}) == "<ul><li>Voted</li></ul>"
    assert shown(page, {"list": "treatment"}) == '<ul><li>Voted</li><li data-condition-only="list=treatment">' \
                                                 'Skipped</li></ul>'
    assert "Both" in shown(page, {"list": "a & b"})


def test_the_difference_in_means_and_its_error():
    found = difference_in_means([2, 3, 3, 4], [1, 2, 2, 3])
    # means 3 and 2; variances 2/3 and 2/3: error sqrt(2/3/4 + 2/3/4) = 0.5774
    assert found["estimate"] == 1.0 and found["standard_error"] == 0.5774
    assert found["interval"] == [round(1 - 1.96 * 0.57735, 4), round(1 + 1.96 * 0.57735, 4)]
    assert difference_in_means([2], [1, 2])["estimate"] is None


class People(BaseTestCase):
    """A published batch of `source` with one item, and people who take its HIT."""

    source = DESIGN

    def setUp(self):
        self.version = design_version_save(source=self.source, slug="counts")
        records = read_items(b'{"id": "q1", "text": "About your last year."}\n', name="q.jsonl",
                             design=self.version.design)
        self.batch = batch_publish(batch=design_batch_create(version=self.version, records=records, name="counts"))

    def person(self, name):
        user = User.objects.create_user(name, password="pw")
        user.groups.add(roles.group(roles.ANNOTATOR))
        self.client.force_login(user)
        self.assertEqual(self.client.post(reverse("hits:claim", args=[self.batch.pk])).status_code, 302)
        return Assignment.objects.get(worker__user=user, hit__batch=self.batch)

    def page(self, assignment):
        return self.client.get(reverse("hits:assignment", args=[assignment.pk])).content.decode()

    def statements(self, assignment):
        page = self.page(assignment)
        return page[page.index('<ul class="list-experiment-items">'):].split("</ul>")[0]


class ListExperimentTests(People):

    def test_each_person_keeps_a_cell_and_the_other_cell_s_statement_is_not_in_their_page(self):
        pages = {}
        for name in ("ada", "bea", "cai"):
            assignment = self.person(name)
            pages[name] = self.statements(assignment)
            self.assertEqual(self.statements(assignment), pages[name])  # a reload: the same cell, not a new draw
        self.assertNotIn(SENSITIVE, pages["ada"])
        self.assertIn(SENSITIVE, pages["bea"])
        self.assertNotIn(SENSITIVE, pages["cai"])
        self.assertEqual(list(ConditionCell.objects.order_by("ordinal").values_list("levels", "cell_ordinal")),
                         [({"list": "control"}, 0), ({"list": "treatment"}, 0), ({"list": "control"}, 1)])

    def test_the_report_and_the_export_give_the_estimate(self):
        for name, count in (("ada", 1), ("bea", 3), ("cai", 2), ("dan", 2), ("eve", 1), ("fay", 3)):
            assignment = self.person(name)
            self.page(assignment)
            item = assignment.hit.ordered_items()[0]
            response = self.client.post(reverse("hits:submit", args=[assignment.pk]), {f"a-{item.pk}-0": str(count)})
            self.assertEqual(response.status_code, 302, response.content.decode()[:800])
        # control (ada, cai, eve): 1, 2, 1; treatment (bea, dan, fay): 3, 2, 3
        out = self.run_command("report", str(self.batch.pk), "--json")
        estimate = json.loads(out)["conditions"]["estimates"]["count"]
        self.assertEqual((estimate["treated"], estimate["control"], estimate["estimate"]), (3, 3, 1.3333))
        text = self.run_command("report", str(self.batch.pk))
        self.assertIn("condition list=treatment: 3 given it, 3 answered", text)
        self.assertIn("count: treated 3, others 3; the sensitive statement's share, by the difference in mean "
                      "counts: 1.333", text)
        written = {path.name: path for path in export_batch(batch=self.batch, out=self.tmp / "out")}
        rows = written["conditions.csv"].read_text().splitlines()
        self.assertEqual(rows[:3], ["annotator,list,ordinal,cell_ordinal", "W1,control,0,0", "W2,treatment,1,0"])
        self.assertEqual(json.loads(written["conditions.json"].read_text())["estimates"]["count"]["estimate"], 1.3333)

    def test_a_count_above_the_longest_list_is_refused(self):
        assignment = self.person("ada")
        item = assignment.hit.ordered_items()[0]
        response = self.client.post(reverse("hits:submit", args=[assignment.pk]), {f"a-{item.pk}-0": "5"})
        self.assertIn("4", response.content.decode())
        assignment.refresh_from_db()
        self.assertEqual(assignment.state, Assignment.State.CLAIMED)

    def run_command(self, *args):
        from io import StringIO

        out = StringIO()
        call_command("design", *args, stdout=out)
        return out.getvalue()

    @property
    def tmp(self):
        import tempfile
        from pathlib import Path

        folder = Path(tempfile.mkdtemp())
        self.addCleanup(__import__("shutil").rmtree, folder, True)
        return folder


class MTurkConditionsTests(BaseTestCase):
    def test_a_batch_with_conditions_is_not_published_on_mturk(self):
        emulator = MTurkEmulator(seed=5).start()
        self.addCleanup(emulator.stop)
        previous = use_provider("mturk", MTurkProvider(emulator.client()))
        self.addCleanup(use_provider, "mturk", previous)
        version = design_version_save(source=DESIGN, slug="counts")
        records = read_items(b'{"id": "q1", "text": "About your last year."}\n', name="q.jsonl",
                             design=version.design)
        why = ("MTurk shows every worker of a HIT the same page, and its design's conditions give each person the "
               "page of their own condition")
        with self.assertRaisesRegex(InputError, why):
            design_batch_create(version=version, records=records, name="counts", provider="mturk")
        self.assertFalse(Batch.objects.exists())  # nothing half made
        # a batch that reached MTurk some other way is refused before anything is published
        batch = design_batch_create(version=version, records=records, name="counts")
        Batch.objects.filter(pk=batch.pk).update(provider="mturk")
        with self.assertRaisesRegex(CrowdError, why):
            batch_publish(batch=Batch.objects.get(pk=batch.pk))
        self.assertEqual(emulator.account.hits, {})


ASKED_OF_TREATMENT = DESIGN.replace("hits:", """\
  - annotation_type: radio
    name: why
    description: Did the sensitive statement make you stop?
    labels: ["yes", "no"]
    label_requirement: {required: true}
    display_logic:
      show_when: [{schema: condition.list, operator: equals, value: treatment}]
hits:""")


def test_display_logic_on_a_condition_names_a_declared_factor_and_level():
    try:
        load_text(ASKED_OF_TREATMENT.replace("schema: condition.list", "schema: condition.lists"), name="c.yaml")
    except DesignError as error:
        assert "show_when.0.schema: 'condition.lists' names no factor of the design's conditions (list)" in str(error)
    else:
        raise AssertionError("an undeclared factor passed")
    try:
        load_text(ASKED_OF_TREATMENT.replace("value: treatment}", "value: treated}"), name="c.yaml")
    except DesignError as error:
        assert "show_when.0.value: 'treated' is not a level of list (control, treatment)" in str(error)
    else:
        raise AssertionError("an undeclared level passed")


class ConditionLogicTests(People):
    """A question asked only of the treatment condition (Potato's display logic on condition.<factor>): the page
    carries the person's condition for its script, and the server reads the answer with it."""

    source = ASKED_OF_TREATMENT

    def test_the_question_is_required_of_the_treatment_condition_only(self):
        control, treated = self.person("ada"), self.person("bea")
        for assignment, levels in ((control, "control"), (treated, "treatment")):
            self.client.force_login(assignment.worker.user)
            self.assertIn(f'<script id="design-conditions" type="application/json">{{"list": "{levels}"}}</script>',
                          self.page(assignment))
        item = control.hit.ordered_items()[0]
        count, why = f"a-{item.pk}-0", f"a-{item.pk}-1"
        self.client.force_login(treated.worker.user)
        refused = self.client.post(reverse("hits:submit", args=[treated.pk]), {count: "3"})
        self.assertIn("not answered yet", refused.content.decode())
        self.client.post(reverse("hits:submit", args=[treated.pk]), {count: "3", why: "yes"})
        self.client.force_login(control.worker.user)
        self.client.post(reverse("hits:submit", args=[control.pk]), {count: "2", why: "no"})  # not asked of them
        control.refresh_from_db()
        treated.refresh_from_db()
        self.assertEqual(treated.answers[str(item.pk)], {"count": 3, "why": "yes"})
        self.assertEqual(control.answers[str(item.pk)], {"count": 2})


class CompletedBalanceTests(People):
    """balance_on: completed counts only those who submitted, so a dropout's cell is filled again."""

    source = DESIGN.replace("assignment: round_robin", "assignment: balanced\n  balance_on: completed")

    def test_a_dropout_s_cell_is_given_again(self):
        first = self.person("ada")
        self.page(first)
        item = first.hit.ordered_items()[0]
        self.client.post(reverse("hits:submit", args=[first.pk]), {f"a-{item.pk}-0": "1"})
        dropout = self.person("bea")
        self.page(dropout)  # opened, never submitted
        cells = dict(ConditionCell.objects.values_list("worker__user__username", "levels"))
        self.assertNotEqual(cells["ada"], cells["bea"])  # one submitted in ada's cell, none in bea's
        self.page(self.person("cai"))
        cells = dict(ConditionCell.objects.values_list("worker__user__username", "levels"))
        self.assertEqual(cells["cai"], cells["bea"])  # bea is not counted: her cell is still the emptier
