"""A project's People page (invite annotators, see how they do, pause or remove them) and the join page an
invite link opens."""

from __future__ import annotations

from django import forms as django_forms
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.models import User
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from accounts.access import MANAGE
from core.semeval import spreadsheet_csv
from core.words import counted
from projects import people
from projects.access import project_view
from projects.forms import JoinForm
from projects.models import Invite, Member, Project, Role

MAX_LIST_BYTES = 1_000_000


class LinkForm(django_forms.Form):
    role = django_forms.ChoiceField(choices=Role.choices, initial=Role.ANNOTATOR, label="Joins as", required=False)
    limit = django_forms.IntegerField(min_value=1, max_value=10_000, initial=20,
                                      help_text="how many people may join with the link")
    days = django_forms.IntegerField(min_value=1, max_value=people.MAX_DAYS, required=False, initial=14,
                                     label="Days it works", help_text="empty: until you withdraw it")


class AddForm(django_forms.Form):
    """Someone with an account on the site, made a member of this project."""

    who = django_forms.CharField(max_length=254, label="Username or email",
                                 help_text="someone who has an account on this site already (invite anyone else)")
    role = django_forms.ChoiceField(choices=Role.choices, initial=Role.REVIEWER)

    def clean_who(self):
        who = self.cleaned_data["who"].strip()
        found = list(User.objects.filter(Q(username=who) | Q(email__iexact=who))[:2])
        if not found:
            raise django_forms.ValidationError(f"nobody here has the username or email {who!r}; invite them "
                                               f"instead (below), and they make an account")
        if len(found) > 1:
            raise django_forms.ValidationError(f"{who!r} is the email of several accounts; give the username")
        return found[0]


def _absolute(request: HttpRequest, invite: Invite) -> str:
    return request.build_absolute_uri(people.invite_url(invite))


def _page(request: HttpRequest, project: Project, *, link_form=None, add_form=None, pasted: str = "",
          status: int = 200):
    now = timezone.now()
    invites = [{"invite": invite, "state": people.invite_state(invite, now), "url": _absolute(request, invite),
                "left": invite.limit - invite.uses}
               for invite in project.invites.all()]
    rows = people.people_rows(project)
    return render(request, "projects/people.html", {
        "project": project, "rows": rows, "link_form": link_form or LinkForm(), "pasted": pasted,
        "add_form": add_form or AddForm(), "role_choices": Role.choices, "who": people.who_may_work(project),
        "organized": any(row["member"].role == Role.ORGANIZER and row["member"].state == Member.State.ACTIVE
                         for row in rows),
        "open": [row for row in invites if row["state"] == "open"],
        "closed": [row for row in invites if row["state"] != "open"],
        "counts": {state: sum(row["member"].state == state for row in rows) for state in Member.State.values},
        "max_invites": people.MAX_INVITES}, status=status)


@project_view(MANAGE)
def people_page(request: HttpRequest, project: Project) -> HttpResponse:
    return _page(request, project)


@project_view(MANAGE)
@require_POST
def invite_people(request: HttpRequest, project: Project) -> HttpResponse:
    """Single-use invites for a pasted list or an uploaded CSV of emails or names."""
    upload = request.FILES.get("file")
    pasted = request.POST.get("people", "")
    try:
        if upload is not None:
            if upload.size > MAX_LIST_BYTES:
                raise people.PeopleError(f"{upload.name} is {upload.size:,} bytes; a list of people is at most "
                                         f"{MAX_LIST_BYTES:,}")
            rows = people.invite_rows(upload.read(), upload.name)
        else:
            rows = people.invite_rows(pasted, "the list")
    except people.PeopleError as error:
        messages.error(request, str(error))
        return _page(request, project, pasted=pasted, status=400)
    role = request.POST.get("role") or Role.ANNOTATOR
    try:
        made = people.invites_create(project=project, people=rows, user=request.user, role=role)
    except people.PeopleError as error:
        messages.error(request, str(error))
        return _page(request, project, pasted=pasted, status=400)
    messages.success(request, f"{counted(len(made), 'invite')} made, each to join as {role}. Send each person "
                              f"their link (the table below, or download the CSV); each link works once.")
    return redirect("projects:people", slug=project.slug)


@project_view(MANAGE)
@require_POST
def join_link(request: HttpRequest, project: Project) -> HttpResponse:
    form = LinkForm(request.POST)
    if not form.is_valid():
        return _page(request, project, link_form=form, status=400)
    invite = people.join_link_create(project=project, limit=form.cleaned_data["limit"],
                                     days=form.cleaned_data["days"], user=request.user,
                                     role=form.cleaned_data["role"] or Role.ANNOTATOR)
    messages.success(request, f"A join link for up to {invite.limit} people" +
                     (f", until {invite.expires:%Y-%m-%d %H:%M} UTC" if invite.expires else "") + ".")
    return redirect("projects:people", slug=project.slug)


@project_view(MANAGE)
@require_POST
def invite_withdraw(request: HttpRequest, project: Project, invite_id: int) -> HttpResponse:
    invite = get_object_or_404(Invite, pk=invite_id, project=project)
    people.invite_revoke(invite=invite)
    messages.success(request, f"The invite {invite.name or invite.email or 'link'} no longer works.")
    return redirect("projects:people", slug=project.slug)


@project_view(MANAGE)
@require_POST
def member_state(request: HttpRequest, project: Project, member_id: int, state: str) -> HttpResponse:
    member = get_object_or_404(Member.objects.select_related("user"), pk=member_id, project=project)
    if state not in Member.State.values:
        messages.error(request, f"{state!r} is not something a member can be; pause, resume or remove them.")
        return redirect("projects:people", slug=project.slug)
    try:
        people.member_set_state(member=member, state=state)
    except people.PeopleError as error:
        messages.error(request, str(error))
        return redirect("projects:people", slug=project.slug)
    said = {"active": "may take work again", "paused": "is paused: no new HIT of this project until resumed",
            "removed": "is removed: no new HIT of this project; their past work stays"}[state]
    messages.success(request, f"{member.user.username} {said}.")
    return redirect("projects:people", slug=project.slug)


@project_view(MANAGE)
@require_POST
def member_add(request: HttpRequest, project: Project) -> HttpResponse:
    form = AddForm(request.POST)
    if not form.is_valid():
        return _page(request, project, add_form=form, status=400)
    member = people.member_add(project=project, user=form.cleaned_data["who"], role=form.cleaned_data["role"])
    messages.success(request, f"{member.user.username} is a member of {project.name}, as {member.role}.")
    return redirect("projects:people", slug=project.slug)


@project_view(MANAGE)
@require_POST
def member_role(request: HttpRequest, project: Project, member_id: int) -> HttpResponse:
    member = get_object_or_404(Member.objects.select_related("user", "project"), pk=member_id, project=project)
    try:
        people.member_set_role(member=member, role=request.POST.get("role", ""))
    except people.PeopleError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"{member.user.username} is {member.role} of {project.name} now.")
    return redirect("projects:people", slug=project.slug)


@project_view(MANAGE)
@require_POST
def project_open(request: HttpRequest, project: Project) -> HttpResponse:
    opened = request.POST.get("open_to_site") == "on"
    people.project_open(project=project, open_to_site=opened)
    messages.success(request, f"{project.name}'s in-house work is open to every annotator of this site." if opened
                     else f"{project.name}'s in-house work is for its members only.")
    return redirect("projects:people", slug=project.slug)


@project_view(MANAGE)
def invites_csv(request: HttpRequest, project: Project) -> HttpResponse:
    """The open invites with their links, for a mail merge."""
    now = timezone.now()
    rows = [(invite.name, invite.email, invite.kind, _absolute(request, invite), invite.limit - invite.uses,
             f"{invite.expires:%Y-%m-%d %H:%M}" if invite.expires else "")
            for invite in project.invites.all() if people.invite_state(invite, now) == "open"]
    response = HttpResponse(spreadsheet_csv(["name", "email", "kind", "link", "places_left", "expires_utc"], rows),
                            content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{project.slug}-invites.csv"'
    return response


def join(request: HttpRequest, token: str) -> HttpResponse:
    """Where an invite link lands: a new annotator picks a username and sets a password; someone logged in
    joins with one click."""
    invite = Invite.objects.select_related("project").filter(token=token).first()
    refusal = "this invite link is not known here; check that it was copied whole" if invite is None else None
    if invite is not None and not (request.user.is_authenticated and
                                   invite.project.members.filter(user=request.user).exists()):
        refusal = people.invite_refusal(invite)
    if refusal:
        return render(request, "projects/join.html", {"invite": invite, "refusal": refusal}, status=410
                      if invite is not None else 404)
    form = JoinForm(initial={"username": _suggested_username(invite)})
    if request.method == "POST":
        form = JoinForm(request.POST) if not request.user.is_authenticated else None
        if form is None or form.is_valid():
            try:
                member = people.invite_accept(token=token, user=request.user if form is None else None,
                                              account=form)
            except people.PeopleError as error:
                return render(request, "projects/join.html", {"invite": invite, "refusal": str(error)}, status=410)
            if form is not None:
                login(request, member.user, backend="django.contrib.auth.backends.ModelBackend")
            if member.role == Role.ANNOTATOR:
                messages.success(request, f"Welcome to {invite.project.name}. Its work is below.")
                return redirect("hits:work_list")
            messages.success(request, f"Welcome to {invite.project.name}, as its {member.role}.")
            return redirect("home")
    return render(request, "projects/join.html", {"invite": invite, "form": form})


def _suggested_username(invite: Invite) -> str:
    source = invite.email.split("@")[0] if invite.email else invite.name
    return "".join(ch for ch in source.lower().replace(" ", ".") if ch.isalnum() or ch in "._-")[:150]
