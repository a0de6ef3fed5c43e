"""Where each role lands, and the API token of organizers and researchers."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from rest_framework.authtoken.models import Token

from accounts.roles import ANNOTATOR, ORGANIZER, RESEARCHER, REVIEWER, has_role


def home(request: HttpRequest) -> HttpResponse:
    """Each role lands where its work is; a visitor logs in; an account with no role is told so."""
    if has_role(request.user, ORGANIZER):
        return redirect("dashboard:index")
    if has_role(request.user, ANNOTATOR):
        return redirect("hits:work_list")
    if has_role(request.user, REVIEWER):
        return redirect("annotation:review_list")
    if has_role(request.user, RESEARCHER):
        return redirect("releases:versions")
    if request.user.is_authenticated:
        return render(request, "accounts/no_role.html", status=403)
    return redirect("login")


@login_required
def api_token(request: HttpRequest) -> HttpResponse:
    """An organizer's or researcher's token for the JSON API; POST makes a new one (the old one stops working)."""
    if not (has_role(request.user, ORGANIZER) or has_role(request.user, RESEARCHER)):
        raise PermissionDenied("the API is for organizers and researchers")
    if request.method == "POST":
        Token.objects.filter(user=request.user).delete()
        Token.objects.create(user=request.user)
        messages.success(request, "A new token; the old one no longer works.")
        return redirect("api_token")
    token = Token.objects.filter(user=request.user).first()
    return render(request, "accounts/token.html", {"token": token})
