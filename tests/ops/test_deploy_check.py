"""With production settings `manage.py check --deploy` reports nothing; the development settings
are reported, and a production process refuses to start with the development secret key or
hidden-workload secret, or a short one."""

from __future__ import annotations

from tests.ops.support import base_env, manage, production_env

DEPLOY_CHECK = ("check", "--deploy", "--fail-level", "WARNING")


def test_production_settings_pass_the_deploy_check() -> None:
    result = manage(*DEPLOY_CHECK, env=production_env())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout
    assert "WARNINGS" not in result.stderr and "ERRORS" not in result.stderr


def test_development_settings_are_reported() -> None:
    result = manage(*DEPLOY_CHECK, env=base_env(DEBUG="1"))
    assert result.returncode != 0
    for check in ("security.W004", "security.W008", "security.W009", "security.W012",
                  "security.W016", "security.W018", "ops.E001"):
        assert check in result.stderr, (check, result.stderr)


def test_each_production_default_is_checked() -> None:
    """Turning one protection off by its variable is reported by the check that guards it."""
    for variable, check in [("SECURE_HSTS_PRELOAD", "security.W021"),
                            ("SECURE_HSTS_INCLUDE_SUBDOMAINS", "security.W005"),
                            ("CSRF_COOKIE_SECURE", "security.W016")]:
        result = manage(*DEPLOY_CHECK, env=production_env(**{variable: "0"}))
        assert result.returncode != 0 and check in result.stderr, (variable, result.stderr)


def test_production_refuses_the_development_secret_key() -> None:
    env = production_env()
    env.pop("SECRET_KEY")
    result = manage("check", env=env)
    assert result.returncode != 0
    assert "ImproperlyConfigured: DEBUG is off, so SECRET_KEY must be a long random value" in result.stderr


def test_production_refuses_a_short_secret_key() -> None:
    result = manage("check", env=production_env(SECRET_KEY="short-but-set"))
    assert result.returncode != 0 and "SECRET_KEY must be a long random value" in result.stderr


def test_production_refuses_the_development_hidden_secret() -> None:
    unset = production_env()
    unset.pop("SOLARENA_HIDDEN_SECRET")
    for env in (unset, production_env(SOLARENA_HIDDEN_SECRET="solarena-local")):
        result = manage("check", env=env)
        assert result.returncode != 0
        assert "ImproperlyConfigured: DEBUG is off, so SOLARENA_HIDDEN_SECRET must be" in result.stderr


def test_production_refuses_a_short_hidden_secret() -> None:
    result = manage("check", env=production_env(SOLARENA_HIDDEN_SECRET="x" * 31))
    assert result.returncode != 0 and "SOLARENA_HIDDEN_SECRET must be a private random" in result.stderr
    assert manage("check", env=production_env(SOLARENA_HIDDEN_SECRET="x" * 32)).returncode == 0


def test_a_short_hidden_secret_is_reported_by_the_deploy_check() -> None:
    result = manage(*DEPLOY_CHECK, env=base_env(DEBUG="1", SOLARENA_HIDDEN_SECRET="s" * 20))
    assert result.returncode != 0 and "ops.E001" in result.stderr
