"""A project's People: invites made by an organizer, followed by new annotators who set their own password,
join links with a limit and an expiry, pausing and removing someone without losing their work, the CSV of
links and the `people` command."""

import csv
import io
import json
from datetime import timedelta

from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts import roles
from hits.models import Assignment
from hits.services import assignment_claim, assignment_submit, batch_publish, worker_for_user
from projects.models import Invite, Member
from projects.people import PeopleError, invite_rows
from projects.services import project_create
from tests.base import BaseTestCase
from tests.hits.helpers import answers_for, make_batch

PASSWORD = "a-long-pass-phrase-42"


class InviteRowsTest(BaseTestCase):
    def test_lines_of_emails_names_or_both(self):
        rows = invite_rows("ada@example.org\nGrace Hopper\n\nAlan Turing, alan@example.org\n")
        self.assertEqual(rows, [("", "ada@example.org"), ("Grace Hopper", ""), ("Alan Turing", "alan@example.org")])

    def test_a_csv_with_a_header_row(self):
        rows = invite_rows(b"\xef\xbb\xbfEmail,Name,Team\nada@example.org,Ada,x\n,Grace,y\n", "people.csv")
        self.assertEqual(rows, [("Ada", "ada@example.org"), ("Grace", "")])

    def test_every_problem_is_named_by_line_and_nothing_is_kept(self):
        with self.assertRaises(PeopleError) as caught:
            invite_rows("ada@example.org\nbob@\nada@example.org\n" + "x" * 200, "team.csv")
        message = str(caught.exception)
        self.assertIn("team.csv line 2: 'bob@' is not an email address", message)
        self.assertIn("team.csv line 3: 'ada@example.org' is on line 1 already", message)
        self.assertIn("team.csv line 4: the name is 200 characters long; 150 at most", message)
        self.assertIn("Nothing was invited", message)

    def test_carriage_returns_end_lines_and_a_cell_past_the_csv_limit_is_named(self):
        # A lone \r (old Mac line ends, or one inside a cell) was a csv error the page did not catch.
        self.assertEqual(invite_rows("ada@example.org\rGrace Hopper\r"),
                         [("", "ada@example.org"), ("Grace Hopper", "")])
        # The csv limit is the process's (the corpus and items readers raise it); at Python's default a long cell
        # is csv's error, named by line.
        default = csv.field_size_limit(131_072)
        self.addCleanup(csv.field_size_limit, default)
        with self.assertRaisesRegex(PeopleError, r"people.csv line 2: field larger than field limit"):
            invite_rows("ada@example.org\n" + "x" * 200_000, "people.csv")

    def test_broken_utf8_and_empty_lists(self):
        with self.assertRaisesRegex(PeopleError, r"people.csv line 2: not UTF-8 text"):
            invite_rows(b"ada@example.org\ncaf\xe9@example.org\n", "people.csv")
        with self.assertRaisesRegex(PeopleError, r"the list is empty"):
            invite_rows(" \n\n", "the list")


class PeoplePageTest(BaseTestCase):
    def setUp(self):
        self.project = project_create(name="Sentiment study", slug="sentiment")
        self.batch = batch_publish(batch=make_batch(count=8, items_per_hit=4, assignments_per_hit=2))
        self.project.batches.add(self.batch)
        self.login(self.organizer)

    def _invite(self, text):
        response = self.client.post(f"/projects/{self.project.slug}/people/invite/", {"people": text})
        self.assertEqual(response.status_code, 302, response.content[:500])
        return list(Invite.objects.filter(project=self.project).order_by("pk"))

    def _join(self, invite, username, client=None):
        client = client or Client()
        return client, client.post(f"/join/{invite.token}/", {"username": username, "password1": PASSWORD,
                                                              "password2": PASSWORD})

    def test_an_invited_person_sets_a_password_joins_and_works(self):
        (invite,) = self._invite("Ada Lovelace, ada@example.org")
        page = Client().get(f"/join/{invite.token}/")
        self.assertContains(page, "Join Sentiment study")
        self.assertContains(page, 'value="ada"')  # a username suggested from the email
        client, response = self._join(invite, "ada")
        self.assertRedirects(response, "/work/", fetch_redirect_response=False)
        ada = User.objects.get(username="ada")
        self.assertTrue(ada.check_password(PASSWORD))
        self.assertEqual(ada.email, "ada@example.org")
        self.assertTrue(roles.has_role(ada, roles.ANNOTATOR))
        self.assertEqual(Member.objects.get(user=ada).project, self.project)
        # Logged in already: the work list is theirs, with the project's batch on it.
        self.assertContains(client.get("/work/"), self.batch.name)
        people = self.client.get(f"/projects/{self.project.slug}/people/")
        self.assertContains(people, "Ada Lovelace")  # the name of the invite is not lost
        self.assertContains(people, "no test")

    def test_a_personal_link_works_once_and_a_second_try_writes_nothing(self):
        (invite,) = self._invite("ada@example.org")
        self._join(invite, "ada")
        users = User.objects.count()
        _, again = self._join(invite, "mallory")
        self.assertEqual(again.status_code, 410)
        self.assertContains(again, "has been used already", status_code=410)
        self.assertEqual(User.objects.count(), users)
        self.assertEqual(Invite.objects.get(pk=invite.pk).uses, 1)

    def test_a_bad_password_is_said_on_the_field_and_nothing_is_written(self):
        (invite,) = self._invite("ada@example.org")
        response = Client().post(f"/join/{invite.token}/", {"username": "ada", "password1": "123",
                                                           "password2": "123"})
        self.assertEqual(response.status_code, 200)
        self.assertContains(response, "This password is too short")
        self.assertFalse(User.objects.filter(username="ada").exists())
        self.assertEqual(Invite.objects.get(pk=invite.pk).uses, 0)

    def test_a_join_link_takes_its_limit_of_people_until_it_expires(self):
        response = self.client.post(f"/projects/{self.project.slug}/people/link/", {"limit": 2, "days": 3})
        self.assertEqual(response.status_code, 302)
        link = Invite.objects.get(project=self.project, kind="link")
        self.assertAlmostEqual((link.expires - timezone.now()).total_seconds(), 3 * 86400, delta=60)
        self._join(link, "one")
        self._join(link, "two")
        _, third = self._join(link, "three")
        self.assertContains(third, "join link is full (2 people joined)", status_code=410)
        self.assertFalse(User.objects.filter(username="three").exists())
        Invite.objects.filter(pk=link.pk).update(limit=5, expires=timezone.now() - timedelta(minutes=1))
        _, late = self._join(link, "four")
        self.assertContains(late, "expired", status_code=410)
        self.assertEqual(Member.objects.filter(project=self.project).count(), 2)

    def test_a_withdrawn_or_unknown_invite_is_refused(self):
        (invite,) = self._invite("ada@example.org")
        self.client.post(f"/projects/{self.project.slug}/people/invites/{invite.pk}/withdraw/")
        _, response = self._join(invite, "ada")
        self.assertContains(response, "withdrawn", status_code=410)
        self.assertEqual(Client().get("/join/not-a-token/").status_code, 404)

    def test_a_logged_in_annotator_joins_with_one_click(self):
        response = self.client.post(f"/projects/{self.project.slug}/people/link/", {"limit": 5})
        self.assertEqual(response.status_code, 302)
        link = Invite.objects.get(project=self.project, kind="link")
        self.assertIsNone(link.expires)
        client = Client()
        client.force_login(self.annotator)
        self.assertContains(client.get(f"/join/{link.token}/"), "Join as annotator")
        client.post(f"/join/{link.token}/")
        client.post(f"/join/{link.token}/")  # following it again is not a second use
        self.assertEqual(Member.objects.get(project=self.project).user, self.annotator)
        self.assertEqual(Invite.objects.get(pk=link.pk).uses, 1)

    def test_pausing_or_removing_stops_new_work_and_keeps_what_was_done(self):
        (invite,) = self._invite("ada@example.org")
        client, _ = self._join(invite, "ada")
        worker = worker_for_user(User.objects.get(username="ada"))
        done = assignment_claim(batch=self.batch, worker=worker)
        assignment_submit(assignment=done, worker=worker, raw_answers=answers_for(done.hit))
        member = Member.objects.get(user__username="ada")
        self.client.post(f"/projects/{self.project.slug}/people/{member.pk}/paused/")
        self.assertEqual(Member.objects.get(pk=member.pk).state, "paused")
        work = client.get("/work/")
        self.assertContains(work, "work on Sentiment study is paused by its organizer")
        refused = client.post(f"/work/batches/{self.batch.pk}/claim/")
        self.assertContains(refused, "paused by its organizer", status_code=403)
        self.client.post(f"/projects/{self.project.slug}/people/{member.pk}/removed/")
        self.assertContains(client.post(f"/work/batches/{self.batch.pk}/claim/"), "were removed from Sentiment study",
                            status_code=403)
        # Following the invite again does not bring a removed person back.
        self.assertEqual(Client().post(f"/join/{invite.token}/").status_code, 410)
        self.assertEqual(Assignment.objects.get(pk=done.pk).state, "submitted")
        people = self.client.get(f"/projects/{self.project.slug}/people/")
        self.assertContains(people, '<td class="num">1</td>', html=False)  # the HIT they did still counts
        self.client.post(f"/projects/{self.project.slug}/people/{member.pk}/active/")
        self.assertIsNotNone(assignment_claim(batch=self.batch, worker=worker))

    def test_the_work_list_asks_about_memberships_a_fixed_number_of_times_however_many_batches(self):
        client = Client()
        client.force_login(self.annotator)

        def asked():
            with CaptureQueriesContext(connection) as queries:
                self.assertEqual(client.get("/work/").status_code, 200)
            return [query["sql"] for query in queries.captured_queries if "projects_member" in query["sql"]]

        before = asked()
        for n in range(3):
            self.project.batches.add(batch_publish(batch=make_batch(count=4, items_per_hit=4, name=f"more {n}")))
        # Their memberships and the site's projects (who may see what), and those that hold them back: three.
        self.assertEqual(len(asked()), len(before))
        self.assertEqual(len(before), 3, before)

    def test_the_invites_csv_has_the_links_and_neutralizes_formulas(self):
        self._invite('=HYPERLINK("http://evil.example"), eve@example.org\nada@example.org')
        response = self.client.get(f"/projects/{self.project.slug}/people/invites.csv")
        text = response.content.decode()
        self.assertEqual(text.splitlines()[0], "name,email,kind,link,places_left,expires_utc")
        self.assertIn("'=HYPERLINK", text)
        self.assertEqual(text.count("http://testserver/join/"), 2)

    def test_a_bad_list_is_shown_back_with_its_problems(self):
        response = self.client.post(f"/projects/{self.project.slug}/people/invite/",
                                    {"file": SimpleUploadedFile("team.csv", b"email\nnot-an-email\n")})
        self.assertContains(response, "team.csv line 2", status_code=400)
        self.assertFalse(Invite.objects.exists())

    def test_the_page_escapes_names_and_is_for_organizers(self):
        self._invite("<script>alert(1)</script>")
        page = self.client.get(f"/projects/{self.project.slug}/people/")
        self.assertNotContains(page, "<script>alert(1)</script>")
        self.assertContains(page, "&lt;script&gt;")
        self.login(self.annotator)  # not its organizer: the project is not found for them
        self.assertEqual(self.client.get(f"/projects/{self.project.slug}/people/").status_code, 404)

    def test_the_join_form_needs_its_csrf_token(self):
        (invite,) = self._invite("ada@example.org")
        client = Client(enforce_csrf_checks=True)
        response = client.post(f"/join/{invite.token}/", {"username": "ada", "password1": PASSWORD,
                                                          "password2": PASSWORD})
        self.assertEqual(response.status_code, 403)
        self.assertFalse(User.objects.filter(username="ada").exists())


class PeopleCommandTest(BaseTestCase):
    def setUp(self):
        self.project = project_create(name="Sentiment study", slug="sentiment")

    def _run(self, *args):
        out = io.StringIO()
        call_command("people", *args, stdout=out)
        return out.getvalue()

    def test_invite_link_list_pause_for_scripts(self):
        lines = self._run("invite", "sentiment", "ada@example.org", "Grace Hopper").splitlines()
        self.assertEqual(len(lines), 2)
        self.assertRegex(lines[0], r"^-\tada@example.org\thttp://127.0.0.1:8000/join/[\w-]{20,}/$")
        link = self._run("link", "sentiment", "--limit", "10", "--days", "7")
        self.assertIn("(up to 10 people until ", link)
        self._run("add", "sentiment", "annotator")
        listed = [json.loads(line) for line in self._run("list", "sentiment", "--json").splitlines()]
        self.assertEqual([(row["username"], row["state"], row["hits"]) for row in listed],
                         [("annotator", "active", 0)])
        self.assertEqual(self._run("pause", "sentiment", "annotator").strip(), "annotator is paused in sentiment")
        self.assertEqual(Member.objects.get().state, "paused")

    def test_unknown_projects_and_people_are_named(self):
        with self.assertRaisesRegex(CommandError, r"no project 'nope'; projects: sentiment"):
            self._run("list", "nope")
        with self.assertRaisesRegex(CommandError, r"'ghost' is not a member of sentiment"):
            self._run("remove", "sentiment", "ghost")
        with self.assertRaisesRegex(CommandError, r"line 1: 'x@' is not an email address"):
            self._run("invite", "sentiment", "x@")
