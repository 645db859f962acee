"""Sign-up, profile and token forms."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm

from .models import ApiToken, Profile


class SignupForm(UserCreationForm):
    pass


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
