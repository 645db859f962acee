"""Writes and look-ups for profiles and API tokens."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from .models import ApiToken, Profile

TOKEN_PREFIX = "sol_"
SHOWN_PREFIX_LENGTH = len(TOKEN_PREFIX) + 8
# last_used is for the owner's eyes; writing it on every request would make each call a write.
LAST_USED_RESOLUTION = timedelta(minutes=1)


class TokenError(Exception):
    """A bearer token that cannot sign anyone in; the message says why."""


def profile_of(user: AbstractBaseUser) -> Profile:
    profile, _ = Profile.objects.get_or_create(user=user)
    return profile


def set_team(user: AbstractBaseUser, team: str) -> Profile:
    """The team shown beside the user's name."""
    profile = profile_of(user)
    profile.team = team
    profile.save()
    return profile


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def create_token(user: AbstractBaseUser, name: str) -> tuple[ApiToken, str]:
    """A new token and its secret; the secret is returned this once and never stored."""
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(user=user, name=name, prefix=secret[:SHOWN_PREFIX_LENGTH],
                                    key_hash=hash_secret(secret))
    return token, secret


def revoke_token(user: AbstractBaseUser, token_id: int) -> bool:
    """Revoke one of the user's own tokens; False when it is not theirs or already revoked."""
    return ApiToken.objects.filter(pk=token_id, user=user, revoked_at__isnull=True).update(
        revoked_at=timezone.now()) == 1


def token_for_secret(secret: str) -> ApiToken:
    """The live token whose secret this is. The lookup is by hash, so comparing takes the same
    time whatever prefix of a real secret an attacker guessed."""
    token = (ApiToken.objects.select_related("user").filter(key_hash=hash_secret(secret)).first())
    if token is None:
        raise TokenError("invalid API token")
    if token.revoked:
        raise TokenError(f"this API token ({token.prefix}…) was revoked; "
                         "create a new one on your profile page")
    if not token.user.is_active:
        raise TokenError("the account of this API token is disabled")
    now = timezone.now()
    if token.last_used is None or now - token.last_used >= LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used=now)
        token.last_used = now
    return token
