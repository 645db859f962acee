"""`Authorization: Bearer <token>` for the REST API."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from .models import ApiToken
from .services import TokenError, token_for_secret

KEYWORD = "Bearer"


class ApiTokenAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[AbstractBaseUser, ApiToken] | None:
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].decode("latin-1").lower() != KEYWORD.lower():
            return None  # not ours: the next authenticator (the session) may answer
        if len(header) != 2:
            raise exceptions.AuthenticationFailed(f"the Authorization header must be '{KEYWORD} <token>'")
        try:
            secret = header[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("invalid API token") from None
        try:
            token = token_for_secret(secret)
        except TokenError as exc:
            raise exceptions.AuthenticationFailed(str(exc)) from None
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        # Makes DRF answer 401 (not 403) to requests without credentials.
        return f'{KEYWORD} realm="api"'
