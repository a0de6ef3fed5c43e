"""Events kept above the documents of a batch (a multi_document_event scheme): the widget's one URL lists and changes
them for a worker holding a claimed HIT of the batch, refuses a stale edit, another HIT's document and a stranger's
delete, makes the design's seeds once, and the export writes them as Potato's registry."""

import json
import tempfile
from pathlib import Path

from django.contrib.auth.models import User
from django.urls import reverse

from accounts import roles
from core.errors import InputError
from designs.export import export_batch
from designs.items import read_items
from designs.models import SharedEvent
from designs.services import design_batch_create, design_version_save
from emulators.mturk import MTurkEmulator
from hits.models import Assignment, Batch
from hits.providers import use_provider
from hits.providers.mturk import MTurkProvider
from hits.services import batch_publish
from hits.services.errors import CrowdError
from tests.base import BaseTestCase

DESIGN = """\
title: Storms
annotation_schemes:
  - annotation_type: multi_document_event
    name: storms
    description: Which storms does it tell of?
    template_name: storm
    slots: [{name: place, description: Where}, {name: date}]
    seed_events:
      - {id: evt_known, title: Known storm, member_doc_ids: [d3]}
hits: {items_per_hit: 1, assignments_per_hit: 2}
"""
ITEMS = (b'{"id": "d1", "text": "A storm hit Galway on Monday."}\n'
         b'{"id": "d2", "text": "Galway was flooded on Monday, the council said."}\n'
         b'{"id": "d3", "text": "Cork stayed dry."}\n')


class SharedEventTests(BaseTestCase):
    def setUp(self):
        version = design_version_save(source=DESIGN, slug="storms")
        records = read_items(ITEMS, name="docs.jsonl", design=version.design)
        self.batch = batch_publish(batch=design_batch_create(version=version, records=records, name="storms"))

    def person(self, name):
        user = User.objects.create_user(name, password="pw")
        user.groups.add(roles.group(roles.ANNOTATOR))
        self.client.force_login(user)
        self.assertEqual(self.client.post(reverse("hits:claim", args=[self.batch.pk])).status_code, 302)
        return Assignment.objects.get(worker__user=user, hit__batch=self.batch)

    def act(self, assignment, **fields):
        self.client.force_login(assignment.worker.user)
        response = self.client.post(reverse("events:shared", args=[assignment.pk, "storms"]), fields)
        return response.status_code, response.json()

    def doc(self, assignment):
        return assignment.hit.ordered_items()[0].content.record_id

    def test_events_are_shared_and_a_stale_edit_is_refused(self):
        ada, bea = self.person("ada"), self.person("bea")
        here = self.doc(ada)
        status, found = self.act(ada, action="create", doc=here)
        self.assertEqual(status, 200)
        self.assertEqual(len(found["events"]), 2)
        self.assertEqual(found["events"][0]["id"], "evt_known")  # the seed, made once
        made = found["events"][1]
        self.assertTrue(made["id"].startswith("evt_") and made["mine"] and made["members"] == [here])
        status, _ = self.act(ada, action="title", event=made["id"], version=str(made["version"]), title="Galway")
        self.assertEqual(status, 200)
        # bea read the event before ada named it: her edit of that version is refused, with the event as it is now
        status, found = self.act(bea, action="slot", event=made["id"], version=str(made["version"]), slot="place",
                                 value="Cork")
        self.assertEqual(status, 409)
        self.assertIn("someone changed “Galway” while you were editing it", found["error"])
        self.assertEqual(found["events"][1]["slot_values"], {})
        self.assertFalse(found["events"][1]["mine"])
        status, found = self.act(bea, action="slot", event=made["id"], version=str(found["events"][1]["version"]),
                                 slot="place", value="Galway")
        self.assertEqual((status, found["events"][1]["slot_values"]), (200, {"place": "Galway"}))
        # bea cites the words of her own document (her HIT's: the first, as ada's, each HIT asked of two); it is
        # in the event once
        status, found = self.act(bea, action="cite", event=made["id"], slot="place", doc=self.doc(bea),
                                 quote="Galway", start="0")
        self.assertEqual(status, 200)
        event = SharedEvent.objects.get(key=made["id"])
        self.assertEqual(event.members, list(dict.fromkeys([here, self.doc(bea)])))
        self.assertEqual([(cite["doc_id"], cite["span_start"], cite["quoted_text"]) for cite in event.evidence],
                         [(self.doc(bea), {"d1": 12, "d2": 0}[self.doc(bea)], "Galway")])
        # only ada, who made it, deletes it; nobody deletes the seed
        self.assertEqual(self.act(bea, action="delete", event=made["id"])[0], 403)
        self.assertEqual(self.act(ada, action="delete", event="evt_known")[0], 403)
        self.assertEqual(self.act(ada, action="delete", event=made["id"])[0], 200)
        self.assertEqual(list(SharedEvent.objects.values_list("key", flat=True)), ["evt_known"])

    def test_a_document_of_another_hit_and_another_worker_s_hit_are_refused(self):
        ada, bea = self.person("ada"), self.person("bea")
        other = next(doc for doc in ("d1", "d2", "d3") if doc != self.doc(ada))
        status, found = self.act(ada, action="member", event="evt_known", doc=other, attach="1")
        self.assertEqual(status, 400)
        self.assertIn(f"document {other!r} is not in this HIT", found["error"])
        self.client.force_login(ada.worker.user)
        self.assertEqual(self.client.get(reverse("events:shared", args=[bea.pk, "storms"])).status_code, 404)
        self.assertEqual(self.client.get(reverse("events:shared", args=[ada.pk, "nothing"])).status_code, 404)
        status, _ = self.act(ada, action="member", event="evt_known", doc=self.doc(ada), attach="1")
        self.assertEqual(status, 200)
        self.assertEqual(SharedEvent.objects.get(key="evt_known").members, ["d3", self.doc(ada)])

    def test_an_answer_naming_an_event_the_batch_no_longer_keeps_is_refused(self):
        """ada's page still lists the event bea made, in which ada put her document, when bea deletes it: ada's
        submit is refused by item and event, nothing is stored, and it goes in once she puts the document in the
        events there are."""
        ada, bea = self.person("ada"), self.person("bea")
        _, found = self.act(bea, action="create", doc=self.doc(bea))
        made = found["events"][1]["id"]
        self.assertEqual(self.act(ada, action="member", event=made, doc=self.doc(ada), attach="1")[0], 200)
        self.assertEqual(self.act(bea, action="delete", event=made)[0], 200)
        item = ada.hit.ordered_items()[0]
        self.client.force_login(ada.worker.user)
        response = self.client.post(reverse("hits:submit", args=[ada.pk]),
                                    {f"a-{item.pk}-0": json.dumps(["evt_known", made])})
        self.assertNotEqual(response.status_code, 302)
        self.assertIn(f"Item 1: Which storms does it tell of?: {made} is not an event of this batch (never made, or "
                      f"deleted by whoever made it while the page was open)", response.content.decode())
        # An id no one made (a page of another batch, or one written by hand) is refused the same way.
        response = self.client.post(reverse("hits:submit", args=[ada.pk]),
                                    {f"a-{item.pk}-0": json.dumps(["evt_known", "evt_never", made])})
        self.assertIn(f"evt_never, {made} are not events of this batch (never made, or deleted by whoever made them",
                      response.content.decode())
        ada.refresh_from_db()
        self.assertEqual((ada.state, ada.answers or {}), (Assignment.State.CLAIMED, {}))
        response = self.client.post(reverse("hits:submit", args=[ada.pk]),
                                    {f"a-{item.pk}-0": json.dumps(["evt_known"])})
        self.assertEqual(response.status_code, 302, response.content.decode()[:500])
        ada.refresh_from_db()
        self.assertEqual(ada.answers, {str(item.pk): {"storms": ["evt_known"]}})

    def test_the_export_writes_the_registry_as_potato_keeps_it(self):
        ada = self.person("ada")
        _, found = self.act(ada, action="create", doc=self.doc(ada))
        item = ada.hit.ordered_items()[0]
        response = self.client.post(reverse("hits:submit", args=[ada.pk]),
                                    {f"a-{item.pk}-0": json.dumps([found["events"][1]["id"]])})
        self.assertEqual(response.status_code, 302, response.content.decode()[:500])
        out = Path(tempfile.mkdtemp()) / "out"
        written = {path.name: path for path in export_batch(batch=self.batch, out=out, formats=("jsonl", "potato"))}
        registry = json.loads(written["event_registry.json"].read_text())
        self.assertEqual(list(registry["events"]), ["evt_known", found["events"][1]["id"]])
        self.assertEqual(registry["events"]["evt_known"]["provenance"], "seeded")
        self.assertEqual(registry["events"][found["events"][1]["id"]]["created_by"], "W1")
        ours = json.loads(written["shared_events.json"].read_text())
        self.assertEqual(list(ours), ["storms"])
        self.assertEqual(ours["storms"]["events"], registry["events"])


class MTurkSharedEventTests(BaseTestCase):
    def test_a_batch_keeping_events_is_not_published_on_mturk(self):
        emulator = MTurkEmulator(seed=6).start()
        self.addCleanup(emulator.stop)
        previous = use_provider("mturk", MTurkProvider(emulator.client()))
        self.addCleanup(use_provider, "mturk", previous)
        version = design_version_save(source=DESIGN, slug="storms")
        records = read_items(ITEMS, name="docs.jsonl", design=version.design)
        with self.assertRaisesRegex(InputError, "the events of storms are kept on this site while people work"):
            design_batch_create(version=version, records=records, name="storms", provider="mturk")
        batch = design_batch_create(version=version, records=records, name="storms")
        Batch.objects.filter(pk=batch.pk).update(provider="mturk")
        with self.assertRaisesRegex(CrowdError, "the events of storms are kept on this site while people work"):
            batch_publish(batch=Batch.objects.get(pk=batch.pk))
        self.assertEqual(emulator.account.hits, {})


def test_an_event_template_no_scheme_reads_is_named(tmp_path):
    from designs.potato import import_file

    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "docs.jsonl").write_bytes(ITEMS)
    config = tmp_path / "config.yaml"
    config.write_text("annotation_task_name: Storms\ndata_files: [data/docs.jsonl]\n"
                      "item_properties: {id_key: id, text_key: text}\n"
                      "event_template: {enabled: true, slots: [{name: place}]}\n"
                      "annotation_schemes:\n  - {annotation_type: radio, name: any, labels: [a, b]}\n")
    found = import_file(str(config))
    assert found.ok
    assert "event_template: no multi_document_event scheme reads it here; its events are not kept" in found.warnings


def test_a_slot_typed_in_keeps_its_words_when_the_events_are_drawn_again(chromium, live_server, capsys):
    """The events are drawn again whenever a change comes back; a slot's box the worker is typing in stays where it
    is: what it held so far is not sent as the slot's value, and the words typed after go on where the caret was
    (the box was taken out of the page and put back: "Gal" was saved, or "wayGal")."""
    from playwright.sync_api import expect

    from tests.designs.fixtures import hit_page, potato_project, project_annotator

    project = potato_project(Path(__file__).parent / "potato_side_by_side" / "storms" / "config.yaml", capsys)
    batch = batch_publish(batch=project.batches.get())
    project_annotator(project, "ada")
    context, page = hit_page(chromium, live_server, "ada", {"viewport": {"width": 1280, "height": 900}})
    widget = page.locator(".task-item.current .mde")
    widget.locator(".mde-events li").first.wait_for()
    widget.get_by_role("button", name="New event").focus()
    page.keyboard.press("Enter")
    widget.get_by_label("Event name").wait_for(state="visible")
    page.keyboard.type("Storm")
    page.keyboard.press("Enter")
    expect(widget.locator(".mde-status")).to_have_text("Name saved.")
    place = widget.get_by_role("textbox", name="place", exact=True)
    place.focus()
    page.keyboard.type("Gal")
    # A change made meanwhile (here the name, changed without leaving the box) comes back and is drawn.
    page.evaluate("""() => { const title = document.querySelector('.task-item.current .mde-title');
                             title.value = 'Big storm'; title.dispatchEvent(new Event('change')); }""")
    expect(widget.locator(".mde-events li").first).to_contain_text("Big storm")
    assert page.evaluate("document.activeElement.classList.contains('mde-value')")
    page.keyboard.type("way")
    page.keyboard.press("Enter")
    expect(widget.locator(".mde-status")).to_have_text("place saved.")
    assert place.input_value() == "Galway"
    event = SharedEvent.objects.get(batch=batch)
    assert (event.title, event.slot_values) == ("Big storm", {"place": "Galway"})
    context.close()
