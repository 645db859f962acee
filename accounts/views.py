"""Sign-up and the profile page (team name, API tokens)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from . import limits, services
from .forms import ProfileForm, SignupForm, TokenForm


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("profile")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and (wait := limits.signup_wait(request)) is not None:
        refused = f"Too many sign-ups from your address: try again in {-(-wait // 60)} minutes."
        response = render(request, "accounts/signup.html", {"form": SignupForm(), "refused": refused},
                          status=429)
        response["Retry-After"] = str(wait)
        return response
    if request.method == "POST" and form.is_valid():
        user = form.save()
        services.profile_of(user)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")  # the one that knows users
        return redirect("profile")
    return render(request, "accounts/signup.html", {"form": form})


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    profile_form = ProfileForm(request.POST or None, instance=services.profile_of(request.user))
    if request.method == "POST" and profile_form.is_valid():
        services.set_team(request.user, profile_form.cleaned_data["team"])
        messages.success(request, "Profile saved.")
        return redirect("profile")
    return _profile_page(request, profile_form=profile_form)


@never_cache  # the page holds the secret: no copy in any cache
@login_required
@require_POST
def create_token(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST)
    if not form.is_valid():
        return _profile_page(request, token_form=form, status=400)
    token, secret = services.create_token(request.user, form.cleaned_data["name"])
    # Rendered, not redirected: the secret is in this response only and stored nowhere.
    return _profile_page(request, new_token=token, new_secret=secret)


@login_required
@require_POST
def revoke_token(request: HttpRequest, token_id: int) -> HttpResponse:
    if services.revoke_token(request.user, token_id):
        messages.success(request, "Token revoked: requests signed with it are now refused.")
    else:
        messages.error(request, "No such live token.")
    return redirect("profile")


def _profile_page(request: HttpRequest, status: int = 200, **context: Any) -> HttpResponse:
    context.setdefault("profile_form", ProfileForm(instance=services.profile_of(request.user)))
    context.setdefault("token_form", TokenForm())
    context["tokens"] = request.user.api_tokens.all()
    return render(request, "accounts/profile.html", context, status=status)
