"""Every URL checks the role: an outsider (logged in, no role) and a visitor are refused everywhere
but the public pages, and each role is refused the others' pages. A page of one project is not found (404) for
someone who may not see that project, as if it did not exist (tests/test_project_access.py walks every URL as a
member of another project)."""

from django.urls import URLPattern, URLResolver, get_resolver

from tests.base import BaseTestCase

# Pages anyone may open: logging in and out, and the MTurk task page MTurk shows to its workers.
PUBLIC = {"login", "logout", "password_reset", "password_reset_done", "password_reset_confirm",
          "password_reset_complete", "mturk_hit", "home", "join"}
# Routes with their own guard (Django's admin asks for staff; password change asks for a login only; the
# Prolific entries ask Prolific whether the link's submission is the participant's, and webhooks must be
# signed: tests/hits/test_prolific.py).
OWN_GUARD = {"password_change", "password_change_done", "api_token", "prolific_start", "prolific_hook",
             "qualification:prolific_start"}


def _routes(resolver=None, prefix="", namespace=""):
    for pattern in (resolver or get_resolver()).url_patterns:
        if isinstance(pattern, URLResolver):
            if str(pattern.pattern).startswith(("admin/", "api/")):
                continue  # the admin has its own guard; the API answers 401/403 (tests/api)
            yield from _routes(pattern, prefix + str(pattern.pattern),
                               f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace)
        elif isinstance(pattern, URLPattern):
            yield f"{namespace}{pattern.name}", _fill(prefix + str(pattern.pattern))


def _fill(route):
    """A concrete path for a route: ids 1, names "x"."""
    for converter, value in (("<int:", "1"), ("<slug:", "x"), ("<str:", "x")):
        while converter in route:
            start = route.index(converter)
            route = route[:start] + value + route[route.index(">", start) + 1:]
    return "/" + route


ORGANIZER_ONLY = {"dashboard:index", "dashboard:start", "dashboard:status", "dashboard:plot_workers",
                  "dashboard:plot_agreement", "annotation:review_list", "annotation:review", "aggregation:spot_checks",
                  "aggregation:decide", "aggregation:sanction", "qualification:pool", "designs:writing_review",
                  "designs:chains", "designs:chain"} | {
    f"projects:{name}" for name in ("list", "detail", "status", "job_cancel", "upload", "upload_columns", "filter",
                                    "sample", "qualification", "test_item", "batch_new", "estimate", "batch",
                                    "publish", "batch_action", "aggregation", "version_new", "version",
                                    "version_plot", "design_new", "design_check", "design_preview", "potato_import",
                                    "labelstudio_import", "design_export", "design_export_start", "people",
                                    "invite_people", "join_link", "invites_csv",
                                    "invite_withdraw", "member_state", "refused_download", "member_add", "member_role",
                                    "project_open")}
ANNOTATOR_ONLY = {"hits:work_list", "hits:claim", "hits:assignment", "hits:submit", "hits:draft", "hits:extend",
                  "hits:return", "qualification:take",
                  "qualification:submit", "qualification:result", "events:shared"}
RESEARCHER_ONLY = {"releases:versions", "releases:export", "releases:file"}
REFUSED = (403, 404)  # forbidden by role; or, within a project, not found


class RoleTest(BaseTestCase):
    def test_every_route_is_classified(self):
        names = {name for name, _ in _routes()}
        unknown = names - PUBLIC - OWN_GUARD - ORGANIZER_ONLY - ANNOTATOR_ONLY - RESEARCHER_ONLY
        self.assertEqual(unknown, set(), "a new URL needs a role: add it to a set here")

    def test_visitors_are_sent_to_log_in_and_outsiders_are_refused(self):
        for name, path in _routes():
            if name in PUBLIC or name in OWN_GUARD:
                continue
            with self.subTest(url=path):
                self.client.logout()
                for method in (self.client.get, self.client.post):
                    response = method(path)
                    self.assertEqual(response.status_code, 302, f"{method.__name__} {path}")
                    self.assertTrue(response.url.startswith("/accounts/login/"))
                self.login(self.outsider)
                self.assertIn(self.client.get(path).status_code, REFUSED)
                self.assertIn(self.client.post(path).status_code, REFUSED)

    def test_each_role_is_refused_the_pages_of_the_others(self):
        refused = {self.annotator: ORGANIZER_ONLY | RESEARCHER_ONLY,
                   self.researcher: ORGANIZER_ONLY | ANNOTATOR_ONLY}
        paths = dict(_routes())
        for user, names in refused.items():
            self.login(user)
            for name in sorted(names):
                with self.subTest(user=user.username, url=paths[name]):
                    self.assertIn(self.client.get(paths[name]).status_code, REFUSED)

    def test_home_sends_each_role_to_its_work(self):
        for user, target in ((self.organizer, "/dashboard/"), (self.annotator, "/work/"),
                             (self.researcher, "/datasets/")):
            self.login(user)
            self.assertEqual(self.client.get("/").url, target)
        self.login(self.outsider)
        response = self.client.get("/")
        self.assertContains(response, "Your account has no role", status_code=403)
        self.client.logout()
        self.assertTrue(self.client.get("/").url.startswith("/accounts/login/"))
