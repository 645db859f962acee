"""Sign-up, profile and token forms."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm

from .models import ApiToken, Profile
from .usernames import look_alike_of


class SignupForm(UserCreationForm):
    """Django's sign-up form (the name NFKC-normalised, the password held to
    AUTH_PASSWORD_VALIDATORS) that also refuses a name mistakable for an existing one."""

    def clean_username(self) -> str:
        username = super().clean_username()  # refuses a name taken already, in any case
        taken = None if self.has_error("username") else look_alike_of(username)
        if taken is not None:
            raise forms.ValidationError(
                f"“{username}” looks the same as the existing user “{taken}”; choose a name that "
                "cannot be mistaken for another.", code="look_alike")
        return username


class ProfileForm(forms.ModelForm):
    class Meta:
        model = Profile
        fields = ["team"]
        labels = {"team": "Team name (optional)"}


class TokenForm(forms.ModelForm):
    class Meta:
        model = ApiToken
        fields = ["name"]
        labels = {"name": "Token name"}
