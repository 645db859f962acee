"""The HTTP side of the `solarena` client commands: where the server and token come from, the
stored login, and one request helper that turns every failure into a `ClientError` carrying the
exit code and a message written for the user (docs/cli.md)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

DEFAULT_SERVER = "http://127.0.0.1:8000"
API_PREFIX = "/api/v1/"
CONFIG_FILE = "config.json"

# Exit codes of the client commands (also in the help epilog and docs/cli.md).
EXIT_OK = 0
EXIT_USAGE = 2  # bad arguments or files, or a 4xx answer other than auth
EXIT_AUTH = 3  # not logged in, or the server answered 401/403
EXIT_SERVER = 4  # the server cannot be reached, or answered 5xx
EXIT_FAILED = 5  # --wait: an evaluation failed on the platform, or --timeout passed first


class ClientError(Exception):
    """A failure to show as is, with the exit code it ends the command with."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, *, status: int | None = None, body: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class BadRequest(ClientError):
    exit_code = EXIT_USAGE


class AuthError(ClientError):
    exit_code = EXIT_AUTH


class ServerError(ClientError):
    exit_code = EXIT_SERVER


class WaitFailed(ClientError):
    exit_code = EXIT_FAILED


# ---------------------------------------------------------------- configuration


def config_dir() -> Path:
    """$SOLARENA_CONFIG_DIR, else $XDG_CONFIG_HOME/solarena, else ~/.config/solarena."""
    explicit = os.environ.get("SOLARENA_CONFIG_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = Path(xdg) if xdg else Path.home() / ".config"
    return base / "solarena"


def config_path() -> Path:
    return config_dir() / CONFIG_FILE


def load_config() -> dict[str, Any]:
    path = config_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise BadRequest(f"cannot read {path}: {exc}; run `solarena login` again") from None
    return data if isinstance(data, dict) else {}


def save_config(data: Mapping[str, Any]) -> Path:
    """Write the config readable by its owner only: directory 0700, file 0600 from its creation."""
    directory = config_dir()
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(directory, 0o700)
    path = directory / CONFIG_FILE
    tmp = directory / f".{CONFIG_FILE}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)  # in case a stale temporary file had other permissions
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(dict(data), handle, indent=2)
            handle.write("\n")
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, path)
    return path


def normalize_server(url: str) -> str:
    url = url.strip().rstrip("/")
    if not url:
        raise BadRequest("the server URL is empty")
    if "://" not in url:
        url = f"http://{url}"
    if not url.startswith(("http://", "https://")):
        raise BadRequest(f"the server URL {url!r} must start with http:// or https://")
    return url


@dataclass
class Settings:
    server: str
    token: str | None


def resolve_settings(server: str | None = None) -> Settings:
    """The server: --server, else $SOLARENA_SERVER, else the stored login, else the default.
    The token: $SOLARENA_TOKEN, else the stored one (when it was stored for the same server)."""
    config = load_config()
    stored_server = config.get("server")
    chosen = normalize_server(server or os.environ.get("SOLARENA_SERVER") or stored_server or DEFAULT_SERVER)
    token = os.environ.get("SOLARENA_TOKEN") or None
    if token is None and config.get("token") and (
            stored_server is None or normalize_server(stored_server) == chosen):
        token = str(config["token"])
    return Settings(chosen, token)


# ---------------------------------------------------------------- requests


def error_message(body: Any) -> str:
    """The server's message: `detail`, or each field's messages ("problem: unknown problem 'x'")."""
    if isinstance(body, Mapping):
        if "detail" in body and len(body) == 1:
            return str(body["detail"])
        parts = []
        for field, messages in body.items():
            items = messages if isinstance(messages, list) else [messages]
            text = "; ".join(error_message(m) for m in items)
            parts.append(text if field in ("detail", "non_field_errors") else f"{field}: {text}")
        return "; ".join(parts)
    if isinstance(body, list):
        return "; ".join(error_message(m) for m in body)
    return str(body)


class Client:
    """Requests to one server's /api/v1/, with the token where one is given."""

    def __init__(self, server: str, token: str | None = None, timeout: float = 30.0,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.server = normalize_server(server)
        self.token = token
        headers = {"Accept": "application/json", "User-Agent": "solarena-cli"}
        self._http = httpx.Client(base_url=self.server + API_PREFIX, headers=headers, timeout=timeout,
                                  transport=transport, follow_redirects=False)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def require_login(self) -> None:
        if not self.token:
            raise AuthError(f"not logged in to {self.server}: run `solarena login --server {self.server}` "
                            "(or set SOLARENA_TOKEN)")

    def request(self, method: str, path: str, *, auth: bool = False, **kwargs: Any) -> Any:
        """The decoded JSON answer of a 2xx, else a ClientError saying what went wrong."""
        headers = dict(kwargs.pop("headers", None) or {})
        if auth:
            self.require_login()
            headers["Authorization"] = f"Bearer {self.token}"
        url = self.server + API_PREFIX + path.lstrip("/")
        try:
            response = self._http.request(method, path.lstrip("/"), headers=headers, **kwargs)
        except httpx.TimeoutException:
            raise ServerError(f"the server {self.server} did not answer in time ({method} {url})") from None
        except httpx.TransportError as exc:
            raise ServerError(f"cannot reach the server {self.server}: {exc or type(exc).__name__}") from None
        return self._decode(response, method, url)

    def _decode(self, response: httpx.Response, method: str, url: str) -> Any:
        try:
            body = response.json() if response.content else None
        except ValueError:
            body = None
        code = response.status_code
        if 200 <= code < 300:
            if body is None and response.content:
                raise ServerError(f"the server {self.server} answered {method} {url} with something "
                                  "other than JSON; is it a solarena server?", status=code)
            return body
        message = error_message(body) if body is not None else response.reason_phrase
        if code in (401, 403):
            hint = (f"log in with `solarena login --server {self.server}`" if code == 401
                    else "this account may not do that")
            raise AuthError(f"{message} ({code}); {hint}", status=code, body=body)
        if code >= 500:
            raise ServerError(f"the server {self.server} failed on {method} {url}: {code} "
                              f"{response.reason_phrase}", status=code, body=body)
        if code == 429:
            retry = response.headers.get("Retry-After")
            extra = f" (retry after {retry} s)" if retry else ""
            raise BadRequest(f"{message}{extra}", status=code, body=body)
        if body is None:
            message = f"{method} {url}: {code} {response.reason_phrase}; is {self.server} a solarena server?"
        raise BadRequest(message, status=code, body=body)

    def get(self, path: str, *, auth: bool = False, params: Mapping[str, Any] | None = None) -> Any:
        return self.request("GET", path, auth=auth, params=params)

    def post(self, path: str, *, auth: bool = True, **kwargs: Any) -> Any:
        return self.request("POST", path, auth=auth, **kwargs)

    def get_all(self, path: str, *, auth: bool = False, params: Mapping[str, Any] | None = None
                ) -> list[Any]:
        """Every item of a paginated list, following `next` page by page."""
        items: list[Any] = []
        page = 1
        while True:
            document = self.get(path, auth=auth, params={**(params or {}), "page": page})
            if not isinstance(document, Mapping) or "results" not in document:
                return list(document or [])
            items.extend(document["results"])
            if not document.get("next"):
                return items
            page += 1
