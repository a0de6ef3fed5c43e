"""Shared test base: personas for every role, and an outsider who must be refused."""

from django.contrib.auth.models import User
from django.test import TestCase

from accounts import roles
from accounts.roles import ROLES


class BaseTestCase(TestCase):
    password = "password"

    @classmethod
    def setUpTestData(cls):
        groups = {role: roles.group(role) for role in ROLES}
        cls.organizer = cls._user("organizer", groups["organizer"], is_staff=True)
        cls.annotator = cls._user("annotator", groups["annotator"])
        cls.researcher = cls._user("researcher", groups["researcher"])
        cls.outsider = cls._user("outsider", None)

    @classmethod
    def _user(cls, name, group, **flags):
        user = User.objects.create_user(name, f"{name}@example.org", cls.password, **flags)
        if group:
            user.groups.add(group)
        return user

    def login(self, user):
        self.client.force_login(user)


def page_after_jobs(client, url):
    """The page once the jobs its first view started (a project's report figures) have run: what a person sees
    when the page's script reloads it. Outside a transaction test, jobs start only when their row is committed."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        client.get(url)
    return client.get(url)
