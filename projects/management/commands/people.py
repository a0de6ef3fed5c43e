import json
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError

from core.errors import CrowdsetError
from projects import people
from projects.models import Member, Project, Role


class Command(BaseCommand):
    help = ("A project's people, as the People page has them: invite links for a role (one per person, or a join "
            "link to share), adding an account in a role, who joined and how they do, opening the project's work to "
            "the site, pausing, resuming and removing someone.")

    def add_arguments(self, parser):
        commands = parser.add_subparsers(dest="action", required=True)
        invite = commands.add_parser("invite", help="a single-use invite link per person")
        invite.add_argument("project", help="the project's slug")
        invite.add_argument("people", nargs="*", help="emails or names (\"Ada Lovelace, ada@example.org\")")
        invite.add_argument("--file", help="a CSV or text file: a name and/or email column, or one per line")
        invite.add_argument("--role", default=Role.ANNOTATOR, choices=Role.values, help="what they join as")
        link = commands.add_parser("link", help="a join link many people may use")
        link.add_argument("project")
        link.add_argument("--role", default=Role.ANNOTATOR, choices=Role.values, help="what they join as")
        link.add_argument("--limit", type=int, required=True, help="how many people may join with it")
        link.add_argument("--days", type=int, help="how long it works (default: until withdrawn)")
        listing = commands.add_parser("list", help="who joined, their state, screening test, HITs and accuracy")
        listing.add_argument("project")
        listing.add_argument("--json", action="store_true", help="one JSON line per person")
        add = commands.add_parser("add", help="make an existing account a member of the project")
        add.add_argument("project")
        add.add_argument("username")
        add.add_argument("--role", default=Role.ANNOTATOR, choices=Role.values)
        opened = commands.add_parser("open", help="open the project's in-house work to every annotator of the site "
                                                  "(--close keeps it to its members)")
        opened.add_argument("project")
        opened.add_argument("--close", action="store_true")
        for state, verb in (("pause", "paused"), ("resume", "active"), ("remove", "removed")):
            change = commands.add_parser(state, help=f"mark an annotator {verb} (past work stays)")
            change.add_argument("project")
            change.add_argument("username")
            change.set_defaults(state=verb)

    def handle(self, *args, **options):
        project = Project.objects.filter(slug=options["project"]).first()
        if project is None:
            known = ", ".join(Project.objects.order_by("slug").values_list("slug", flat=True)[:20]) or "none yet"
            raise CommandError(f"no project {options['project']!r}; projects: {known}")
        try:
            getattr(self, f"do_{options['action']}", self.do_state)(project, options)
        except CrowdsetError as error:
            raise CommandError(str(error)) from None

    def _url(self, invite):
        return settings.SITE_URL.rstrip("/") + people.invite_url(invite)

    def do_invite(self, project, options):
        if options["file"]:
            path = Path(options["file"])
            try:
                data = path.read_bytes()
            except OSError as error:
                raise CommandError(f"{path}: {error.strerror}") from None
            rows = people.invite_rows(data, path.name)
        else:
            rows = people.invite_rows("\n".join(options["people"]), "the people given")
        for invite in people.invites_create(project=project, people=rows, role=options["role"]):
            self.stdout.write("\t".join((invite.name or "-", invite.email or "-", self._url(invite))))

    def do_link(self, project, options):
        invite = people.join_link_create(project=project, limit=options["limit"], days=options["days"],
                                         role=options["role"])
        until = f" until {invite.expires:%Y-%m-%d %H:%M} UTC" if invite.expires else ""
        self.stdout.write(f"{self._url(invite)}\t(up to {invite.limit} people{until})")

    def do_list(self, project, options):
        rows = people.people_rows(project)
        for row in rows:
            line = {"username": row["username"], "name": row["name"], "email": row["email"],
                    "role": row["member"].role, "state": row["member"].state,
                    "joined": row["member"].joined.isoformat(timespec="seconds"), "test": row["test"],
                    "hits": row["hits"], "accuracy": row["accuracy"]}
            if options["json"]:
                self.stdout.write(json.dumps(line))
            else:
                accuracy = "-" if row["accuracy"] is None else f"{row['accuracy']:.2f}"
                self.stdout.write(f"{row['username']}\t{line['role']}\t{line['state']}\t{line['test']}\t"
                                  f"{row['hits']} HITs\taccuracy {accuracy}")
        if not rows and not options["json"]:
            self.stdout.write(f"nobody has joined {project.slug} yet")

    def _member(self, project, username):
        member = Member.objects.filter(project=project, user__username=username).first()
        if member is None:
            raise CommandError(f"{username!r} is not a member of {project.slug}; `people list {project.slug}` "
                               f"shows who is")
        return member

    def do_add(self, project, options):
        user = User.objects.filter(username=options["username"]).first()
        if user is None:
            raise CommandError(f"no account {options['username']!r}; invite the person instead: "
                               f"`people invite {project.slug} EMAIL`")
        member = people.member_add(project=project, user=user, role=options["role"])
        self.stdout.write(f"{user.username} is an {member.state} {member.role} of {project.slug}")

    def do_open(self, project, options):
        people.project_open(project=project, open_to_site=not options["close"])
        self.stdout.write(f"{project.slug}: in-house work for {people.who_may_work(project)}")

    def do_state(self, project, options):
        member = people.member_set_state(member=self._member(project, options["username"]), state=options["state"])
        self.stdout.write(f"{member.user.username} is {member.state} in {project.slug}")
