"""A project's people: invites (a link for one person, or a join link with a limit and an expiry), each for a
role; joining with an account of one's own; roles changed; pausing or removing someone without touching what
they did.

Joining makes a member of that project only, in the invite's role (projects.access says what the role may do).
A paused or removed annotator takes no new HIT of the project (`member_refusal`, registered as an eligibility
check); what they did stays.
"""

from __future__ import annotations

import csv
import io
import secrets
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Count, Q
from django.urls import reverse
from django.utils import timezone

from core.errors import CrowdsetError
from core.words import counted
from hits.extensions import WORKER_ACCURACY, Refusal
from hits.models import Assignment, Batch, Worker
from projects.models import Invite, Member, Project, Role
from qualification.models import Attempt, Grant

MAX_INVITES = 500  # rows of one list: more is a mistake (a whole file pasted) more often than a plan
MAX_DAYS = 365


class PeopleError(CrowdsetError):
    pass


def _token() -> str:
    return secrets.token_urlsafe(24)


def invite_url(invite: Invite) -> str:
    return reverse("join", args=[invite.token])


def invite_rows(data: bytes | str, name: str = "the list") -> list[tuple[str, str]]:
    """(name, email) per row of a list of people: one per line, an email, a name, or both separated by a comma
    (a CSV with a `name` and/or `email` header works too). Every problem is named by line; nothing is kept
    from a list with a problem."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            line = data[:error.start].count(b"\n") + 1
            raise PeopleError(f"{name} line {line}: not UTF-8 text; save it as UTF-8 (CSV UTF-8 in a "
                              f"spreadsheet) and upload it again") from None
    reader = csv.reader(io.StringIO(data, newline=""))  # as csv wants: a lone \r inside a cell is read, not refused
    try:
        lines = list(reader)
    except csv.Error as error:
        raise PeopleError(f"{name} line {reader.line_num}: {error}; save it as CSV again and upload it") from None
    header: dict[str, int] = {}
    if lines and {cell.strip().lower() for cell in lines[0]} & {"name", "email", "e-mail"}:
        header = {cell.strip().lower().replace("e-mail", "email"): n for n, cell in enumerate(lines[0])}
    rows, problems, seen = [], [], {}
    for number, cells in enumerate(lines, 1):
        if header and number == 1:
            continue
        cells = [cell.strip() for cell in cells]
        if not any(cells):
            continue
        if header:
            person = cells[header["name"]] if "name" in header and header["name"] < len(cells) else ""
            email = cells[header["email"]] if "email" in header and header["email"] < len(cells) else ""
        else:
            emails = [cell for cell in cells if "@" in cell]
            names = [cell for cell in cells if cell and "@" not in cell]
            email, person = (emails[0] if emails else ""), " ".join(names)
        if email:
            try:
                validate_email(email)
            except ValidationError:
                problems.append(f"{name} line {number}: {email[:80]!r} is not an email address")
                continue
        if not (person or email):
            problems.append(f"{name} line {number}: no name or email")
            continue
        if len(person) > 150:
            problems.append(f"{name} line {number}: the name is {len(person)} characters long; 150 at most")
            continue
        key = (email or person).lower()
        if key in seen:
            problems.append(f"{name} line {number}: {email or person!r} is on line {seen[key]} already")
            continue
        seen[key] = number
        rows.append((person, email))
    if len(rows) > MAX_INVITES:
        problems.append(f"{name}: {len(rows)} people; invite at most {MAX_INVITES} at once, or share a join link")
    if problems:
        shown = problems[:20] + ([f"… and {len(problems) - 20} more"] if len(problems) > 20 else [])
        raise PeopleError("; ".join(shown) + ". Nothing was invited; correct the list and send it again.")
    if not rows:
        raise PeopleError(f"{name} is empty: write one email or name per line")
    return rows


def _role(role: str) -> str:
    if role not in Role.values:
        raise PeopleError(f"{role!r} is not a role; use one of {', '.join(Role.values)}")
    return role


def invites_create(*, project: Project, people: list[tuple[str, str]], user: User | None = None,
                   role: str = Role.ANNOTATOR) -> list[Invite]:
    """One single-use invite per person (name, email), for `role` in the project."""
    return Invite.objects.bulk_create([Invite(project=project, kind=Invite.Kind.PERSON, token=_token(), name=person,
                                              email=email, limit=1, created_by=user, role=_role(role))
                                       for person, email in people])


def join_link_create(*, project: Project, limit: int, days: int | None, user: User | None = None,
                     role: str = Role.ANNOTATOR) -> Invite:
    """A link many people may join with: up to `limit` of them, for `days` days (None: until revoked)."""
    if not 1 <= limit <= 10_000:
        raise PeopleError(f"a join link's limit is {limit}; give 1 to 10000 people")
    if days is not None and not 1 <= days <= MAX_DAYS:
        raise PeopleError(f"a join link lasting {days} days; give 1 to {MAX_DAYS} days, or none for no expiry")
    expires = timezone.now() + timedelta(days=days) if days else None
    return Invite.objects.create(project=project, kind=Invite.Kind.LINK, token=_token(), limit=limit,
                                 expires=expires, created_by=user, role=_role(role))


def invite_state(invite: Invite, now=None) -> str:
    """open, withdrawn, expired, used (a person's invite) or full (a join link)."""
    now = now or timezone.now()
    if invite.revoked:
        return "withdrawn"
    if invite.expires and invite.expires <= now:
        return "expired"
    if invite.uses >= invite.limit:
        return "used" if invite.kind == Invite.Kind.PERSON else "full"
    return "open"


def invite_refusal(invite: Invite, now=None) -> str | None:
    """Why the invite cannot be used any more, or None."""
    state = invite_state(invite, now)
    ask = "ask the project's organizer for a new one"
    return {"open": None,
            "withdrawn": "this invite was withdrawn by the project's organizer; ask them for a new one",
            "expired": f"this join link expired on {invite.expires:%Y-%m-%d}; {ask}" if invite.expires else "",
            "used": f"this invite has been used already; log in with the account made with it, or {ask}",
            "full": f"this join link is full ({invite.limit} people joined); {ask}"}[state]


def invite_revoke(*, invite: Invite) -> Invite:
    if not invite.revoked:
        invite.revoked = timezone.now()
        invite.save(update_fields=["revoked"])
    return invite


def invite_accept(*, token: str, user: User | None = None, account: Any = None) -> Member:
    """Join the invite's project: as `user` (logged in already), or with a new account from `account` (a bound,
    valid UserCreationForm). The invite is locked while it is used, so a link at its limit lets nobody else
    in, and a refusal leaves nothing written (no account without its membership)."""
    with transaction.atomic():
        invite = Invite.objects.select_for_update().select_related("project").filter(token=token).first()
        if invite is None:
            raise PeopleError("this invite link is not known here; check that it was copied whole")
        if user is not None:
            member = Member.objects.filter(project=invite.project, user=user).first()
            if member is not None:
                if member.state == Member.State.REMOVED:
                    raise PeopleError(f"you were removed from {invite.project.name}; ask its organizer")
                return member  # following the link again is not a second use
        refusal = invite_refusal(invite)
        if refusal:
            raise PeopleError(refusal)
        if user is None:
            user = account.save()
            if invite.email and not user.email:
                user.email = invite.email
                user.save(update_fields=["email"])
        # A member of this project only: no role on the site, so nothing of another project.
        member = Member.objects.create(project=invite.project, user=user, invite=invite, role=invite.role)
        Invite.objects.filter(pk=invite.pk).update(uses=invite.uses + 1)
    return member


def member_add(*, project: Project, user: User, role: str = Role.ANNOTATOR) -> Member:
    """An existing account made a member of the project in `role` (the People page's "add", the command's `add`;
    invites are how someone new comes). Someone paused or removed is made active again, in that role."""
    member, made = Member.objects.get_or_create(project=project, user=user, defaults={"role": _role(role)})
    if not made and (member.role != role or member.state != Member.State.ACTIVE):
        member.role, member.state = _role(role), Member.State.ACTIVE
        member.save(update_fields=["role", "state", "changed"])
    return member


def member_set_role(*, member: Member, role: str) -> Member:
    """Another role in the project. The last active organizer keeps theirs: a project nobody runs would fall to
    the site's organizers."""
    if member.role == Role.ORGANIZER and role != Role.ORGANIZER and not _other_organizers(member):
        raise PeopleError(f"{member.user.username} is the only organizer of {member.project.name}; name another "
                          f"organizer first")
    member.role = _role(role)
    member.save(update_fields=["role", "changed"])
    return member


def _other_organizers(member: Member) -> bool:
    return Member.objects.filter(project=member.project_id, role=Role.ORGANIZER, state=Member.State.ACTIVE).exclude(
        pk=member.pk).exists()


def member_set_state(*, member: Member, state: str) -> Member:
    """Pause, resume or remove an annotator. HITs they hold stay theirs to submit (the work was given); they
    take no new HIT of the project. Past answers, payments and grants are untouched."""
    if state not in Member.State.values:
        raise PeopleError(f"{state!r} is not a member state; use one of {', '.join(Member.State.values)}")
    if (member.role == Role.ORGANIZER and state != Member.State.ACTIVE and member.state == Member.State.ACTIVE
            and not _other_organizers(member)):
        raise PeopleError(f"{member.user.username} is the only organizer of {member.project.name}; name another "
                          f"organizer first")
    member.state = state
    member.save(update_fields=["state", "changed"])
    return member


def who_may_work(project: Project) -> str:
    """Who may take the project's in-house work, in words for its pages."""
    if project.open_to_site:
        return "every annotator of this site (the project is open to the site)"
    if not project.members.filter(role=Role.ORGANIZER).exclude(state=Member.State.REMOVED).exists():
        return ("the site's annotators and this project's members (nobody is named its organizer yet, so the site's "
                "roles apply)")
    annotators = project.members.filter(role=Role.ANNOTATOR, state=Member.State.ACTIVE).count()
    return (f"this project's members only ({counted(annotators, 'annotator')}; invite people on its People page, or "
            f"open the project to the site there)")


def crowd_filters(project: Project, provider: str, filters: list[str]) -> list[str]:
    """A batch's worker filters as its project's pages say them: in-house, who of the site may work comes from the
    project (its members, or every annotator when it is open), not from the provider."""
    return [who_may_work(project), *filters[1:]] if provider == "inhouse" else filters


def project_open(*, project: Project, open_to_site: bool) -> Project:
    """Open the project's in-house work to every annotator of the site, or keep it to its members."""
    project.open_to_site = open_to_site
    project.save(update_fields=["open_to_site"])
    return project


def member_refusal(batch: Batch, worker: Worker) -> Refusal | None:
    """The eligibility check: a worker the batch's project paused or removed takes none of its HITs."""
    if worker.user_id is None:
        return None
    member = _held_back(worker).get(batch.pk)
    if member is None:
        return None
    if member.state == Member.State.PAUSED:
        return Refusal(f"your work on {member.project.name} is paused by its organizer; ask them when it "
                       f"resumes")
    return Refusal(f"you were removed from {member.project.name}; ask its organizer if this is a mistake")


def _held_back(worker: Worker) -> dict[int, Member]:
    """Batch id -> the paused or removed membership that keeps the worker from it. Read once per worker object
    (it lives as long as the request): the work list asks for every open batch, and almost nobody is held back,
    so that is one query a page instead of one a batch."""
    if not hasattr(worker, "_held_back"):
        members = (Member.objects.filter(user_id=worker.user_id).exclude(state=Member.State.ACTIVE)
                   .select_related("project").prefetch_related("project__batches"))
        worker._held_back = {batch.pk: member for member in members for batch in member.project.batches.all()}
    return worker._held_back


def people_rows(project: Project) -> list[dict[str, Any]]:
    """One row per member: who, state, when they joined, their screening test, HITs done and accuracy."""
    members = list(project.members.select_related("user").order_by("joined", "pk"))
    users = [member.user_id for member in members]
    workers = dict(Worker.objects.filter(user_id__in=users).values_list("user_id", "pk"))
    batches = list(project.batches.values_list("pk", flat=True))
    done = dict(Assignment.objects.filter(worker__in=workers.values(), hit__batch__in=batches)
                .values_list("worker").annotate(
                    n=Count("pk", filter=Q(state__in=Assignment.DONE_STATES))).values_list("worker", "n"))
    tests = list(project.tests.values_list("pk", flat=True))
    passed = set(Grant.objects.filter(test__in=tests, worker__in=workers.values(), revoked=None)
                 .values_list("worker", flat=True))
    tried = set(Attempt.objects.filter(test__in=tests, worker__in=workers.values()).exclude(submitted=None)
                .values_list("worker", flat=True))
    accuracy: dict[int, float | None] = {}
    for _, source in WORKER_ACCURACY.items():
        accuracy.update(source(workers.values()))
    rows = []
    for member in members:
        worker = workers.get(member.user_id)
        if not tests:
            test = "no test"
        elif worker in passed:
            test = "passed"
        elif worker in tried:
            test = "not passed"
        else:
            test = "not taken"
        rows.append({"member": member, "name": member.user.get_full_name() or member.user.username,
                     "username": member.user.username, "email": member.user.email, "test": test,
                     "hits": done.get(worker, 0), "accuracy": accuracy.get(worker) if worker else None})
    return rows
