"""Django settings: every value comes from the environment, with a default for the demo."""

from __future__ import annotations

import shutil
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from solarena.env import env_bool, env_float, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent


DEVELOPMENT_SECRET_KEY = "solarena-insecure-development-key"
SECRET_KEY = env_str("SECRET_KEY", DEVELOPMENT_SECRET_KEY)
DEBUG = env_bool("DEBUG", True)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost")
if not DEBUG and (SECRET_KEY == DEVELOPMENT_SECRET_KEY or len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5):
    raise ImproperlyConfigured(
        "DEBUG is off, so SECRET_KEY must be a long random value of this deployment's own (50 "
        "characters or more), e.g. from: python -c 'import secrets; print(secrets.token_urlsafe(50))'")

# HTTPS, on by default once DEBUG is off (docs/deploy.md). Behind a proxy that terminates TLS, set
# SECURE_PROXY_SSL_HEADER=HTTP_X_FORWARDED_PROTO,https so a request that came over HTTPS is seen as such.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^(livez|healthz|metrics)$"]  # probes from inside the network use plain HTTP
_proxy_ssl_header = env_list("SECURE_PROXY_SSL_HEADER", "")
if _proxy_ssl_header and len(_proxy_ssl_header) != 2:
    raise ImproperlyConfigured("SECURE_PROXY_SSL_HEADER is a header and its value, e.g. "
                               "HTTP_X_FORWARDED_PROTO,https")
SECURE_PROXY_SSL_HEADER = tuple(_proxy_ssl_header) if _proxy_ssl_header else None
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "leaderboard",
    "pages",
    "submissions",
    "evaluator",
    "accounts",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "api",
    "ops",
]

MIDDLEWARE = [
    "solarena.body_limit.RequestBodyLimitMiddleware",  # first: an oversized body is never read
    "ops.middleware.RequestIdMiddleware",
    "solarena.middleware.RejectNulCharactersMiddleware",
    "solarena.middleware.ApiErrorsAsJsonMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "solarena.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "pages.context_processors.workers_online",
            ]
        },
    },
    {  # board rows only (pages.board_views.board_rows, which escapes every text it hands over):
        # thousands of cells a page, where autoescaping cost more than the rest of the board
        "NAME": "jinja2",
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates" / "jinja2"],
        "APP_DIRS": False,
        "OPTIONS": {"autoescape": False},
    },
]
WSGI_APPLICATION = "solarena.wsgi.application"

VAR_DIR = Path(env_str("SOLARENA_VAR_DIR", str(BASE_DIR / "var")))
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'solarena.sqlite3'}"), conn_max_age=60,
        # a kept connection is checked before a request reuses it: one cut by a database restart
        # is replaced instead of failing the request
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # The demo's web server and worker share the file. Every transaction takes the write lock when
    # it begins (a deferred one that reads and then writes cannot wait for a writer: SQLite answers
    # "database is locked" at once), waits up to 30 s for it, and readers go on during a write (WAL).
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 30, "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# collectstatic gathers static files here; the app serves them itself through WhiteNoise, on by
# default once DEBUG is off (docker/web.Dockerfile collects them at build time).
STATIC_ROOT = Path(env_str("SOLARENA_STATIC_ROOT", str(VAR_DIR / "static")))
if env_bool("SOLARENA_SERVE_STATIC", not DEBUG):
    MIDDLEWARE.insert(MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1,
                      "whitenoise.middleware.WhiteNoiseMiddleware")
    STORAGES = {"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"}}
# Accounts (docs/security.md, "Accounts"): Django's four password rules at sign-up; sign-ups per
# address, and failed logins (the admin's too) per address and per account, limited. django-axes
# keeps the failures in the database and counts the address solarena.client_address gives.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
INSTALLED_APPS.append("axes")
MIDDLEWARE.append("axes.middleware.AxesMiddleware")  # last, as django-axes asks

# Content-Security-Policy on every response (django-csp): scripts, styles and everything else
# only from this site, nothing inline; the API's Swagger page loosens it for itself (api/urls.py).
MIDDLEWARE.insert(MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1,
                  "csp.middleware.CSPMiddleware")
CONTENT_SECURITY_POLICY = {"DIRECTIVES": {
    "default-src": ["'self'"], "script-src": ["'self'"], "style-src": ["'self'"],
    "img-src": ["'self'", "data:"], "connect-src": ["'self'"], "font-src": ["'self'"],
    "object-src": ["'none'"], "base-uri": ["'none'"], "frame-ancestors": ["'none'"],
    "form-action": ["'self'"],
}}
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env_int("SOLARENA_LOGIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("SOLARENA_LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]  # either one reaching the limit locks
AXES_CLIENT_IP_CALLABLE = "solarena.client_address.client_address"
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
SOLARENA_SIGNUP_RATE = env_str("SOLARENA_SIGNUP_RATE", "20/hour")
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "profile"
LOGOUT_REDIRECT_URL = "home"

# Operations (docs/deploy.md): logs as Django's defaults ("text") or JSON lines on stderr ("json");
# /healthz's time limit per check; a token /metrics then asks for (none: open).
SOLARENA_LOG_FORMAT = env_str("SOLARENA_LOG_FORMAT", "text")
if SOLARENA_LOG_FORMAT not in ("text", "json"):
    raise ImproperlyConfigured(f"SOLARENA_LOG_FORMAT must be text or json, not {SOLARENA_LOG_FORMAT!r}")
if SOLARENA_LOG_FORMAT == "json":
    from ops.logging import json_config

    LOGGING = json_config(env_str("SOLARENA_LOG_LEVEL", "INFO").upper())
SOLARENA_HEALTH_TIMEOUT_SECONDS = env_float("SOLARENA_HEALTH_TIMEOUT_SECONDS", 2.0)
SOLARENA_METRICS_TOKEN = env_str("SOLARENA_METRICS_TOKEN", "")

# Throttle counters live in the cache: a deployment with several web processes points CACHE_URL
# at Redis so they share them.
CACHE_URL = env_str("CACHE_URL", "locmem://")
if CACHE_URL.startswith(("redis://", "rediss://")):
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL},
        # Each web process keeps its own copies of the pages it served most lately (leaderboard/
        # page_cache.py): a page read again is served without a round trip to Redis. At most
        # SOLARENA_LOCAL_PAGES pages of up to some 100 KB each per process.
        "pages-local": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "pages-local",
                        "OPTIONS": {"MAX_ENTRIES": env_int("SOLARENA_LOCAL_PAGES", 500)}},
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# Writers publish what they changed on Redis, and each web process trusts what it read of the
# shared cache until it hears otherwise (solarena/change_feed.py); off: it reads again every 0.25 s.
CHANGE_FEED = env_bool("SOLARENA_CHANGE_FEED", True)

# Where bundled problems live and the secret hidden workloads are drawn with.
PROBLEMS_DIR = Path(env_str("SOLARENA_PROBLEMS_DIR", str(BASE_DIR / "problems")))
# The default is public, so anyone could draw a deployment's hidden workloads with it: production
# (DEBUG off) refuses it, as it refuses a short secret (ops/checks.py reports both under --deploy).
DEVELOPMENT_HIDDEN_SECRET = "solarena-local"
MIN_HIDDEN_SECRET_LENGTH = 32
HIDDEN_SECRET = env_str("SOLARENA_HIDDEN_SECRET", DEVELOPMENT_HIDDEN_SECRET)
if not DEBUG and (HIDDEN_SECRET == DEVELOPMENT_HIDDEN_SECRET
                  or len(HIDDEN_SECRET) < MIN_HIDDEN_SECRET_LENGTH):
    raise ImproperlyConfigured(
        f"DEBUG is off, so SOLARENA_HIDDEN_SECRET must be a private random value of this deployment's "
        f"own ({MIN_HIDDEN_SECRET_LENGTH} characters or more), e.g. from: "
        "python -c 'import secrets; print(secrets.token_urlsafe(32))'")

# Celery: one queue per hardware slug ("hw.h200", "hw.cpu", ...). The embedded default is a
# broker that needs no server (messages as files under var/broker).
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
BROKER_DIR = VAR_DIR / "broker"
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {
        "data_folder_in": str(BROKER_DIR / "out"),
        "data_folder_out": str(BROKER_DIR / "out"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "store_processed": False,
        # the exchange tables (kombu's default is ./control, in whatever folder the process started)
        "control_folder": str(BROKER_DIR / "control"),
    }
    if CELERY_BROKER_URL.startswith("filesystem")
    else {"visibility_timeout": 3600}
)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# Evaluations: how long a claim holds before the reaper may take it back, and how often it may be
# retried after a worker vanished.
EVALUATION_LEASE_SECONDS = env_int("EVALUATION_LEASE_SECONDS", 300)
EVALUATION_MAX_ATTEMPTS = env_int("EVALUATION_MAX_ATTEMPTS", 3)
# A queued evaluation whose message was sent this long ago without being claimed is sent again.
DISPATCH_RESEND_SECONDS = env_int("DISPATCH_RESEND_SECONDS", 120)

# Workers: the sandbox submitted code runs in (a name from sandbox.BACKENDS) and its limits. "none"
# runs it as the worker's own user, so a worker refuses to start with it unless declared trusted.
# Workers say they serve a hardware's queue every SOLARENA_WORKER_HEARTBEAT_SECONDS; one not heard
# from for three beats is gone. A submission to hardware with no worker online is refused, unless
# its slug is in SOLARENA_EXPECTED_HARDWARE (comma-separated, `*` for all): the operator's word that
# workers will come, and the submission waits for them (shown as such).
SOLARENA_WORKER_HEARTBEAT_SECONDS = env_int("SOLARENA_WORKER_HEARTBEAT_SECONDS", 20)
SOLARENA_EXPECTED_HARDWARE = env_str("SOLARENA_EXPECTED_HARDWARE", "")
SOLARENA_SANDBOX = env_str("SOLARENA_SANDBOX", "bubblewrap" if shutil.which("bwrap") else "none")
SOLARENA_TRUSTED_WORKER = env_bool("SOLARENA_TRUSTED_WORKER", False)
# An evaluation whose problem version has no shared baseline times yet asks for their calibration
# (evaluator/baselines.py); off, only `manage.py calibrate_baselines` asks.
SOLARENA_CALIBRATE_ON_MISS = env_bool("SOLARENA_CALIBRATE_ON_MISS", True)
SOLARENA_EVAL_MEMORY_BYTES = env_int("SOLARENA_EVAL_MEMORY_BYTES", 32 << 30)
SOLARENA_EVAL_JOB_DIR_BYTES = env_int("SOLARENA_EVAL_JOB_DIR_BYTES", 4 << 30)
SOLARENA_EVAL_MAX_PROCESSES = env_int("SOLARENA_EVAL_MAX_PROCESSES", 64)
SOLARENA_EVAL_MAX_OPEN_FILES = env_int("SOLARENA_EVAL_MAX_OPEN_FILES", 4096)
SOLARENA_WORKLOAD_SECONDS = env_int("SOLARENA_WORKLOAD_SECONDS", 60)
SOLARENA_EVAL_SECONDS = env_int("SOLARENA_EVAL_SECONDS", 1800)
# Profile runs on a GPU worker under Nsight Compute (evaluator/ncu_runs.py): `auto` takes the ncu on
# PATH, `off` keeps torch's profiler, anything else is ncu's path as the sandbox sees it (docker: in
# the image). The reports kept for their owner are bounded one by one and per evaluation.
SOLARENA_NCU = env_str("SOLARENA_NCU", "auto")
SOLARENA_NCU_REPORT_BYTES = env_int("SOLARENA_NCU_REPORT_BYTES", 8 << 20)
SOLARENA_NCU_EVALUATION_BYTES = env_int("SOLARENA_NCU_EVALUATION_BYTES", 32 << 20)
# Which parts each hardware's evaluators have, as JSON {"slug" or "*": [part, ...]}
# (evaluator/toolchains.py); empty: the bundled images' (docs/solution-format.md, "Languages").
SOLARENA_TOOLCHAINS = env_str("SOLARENA_TOOLCHAINS", "")

# Where a request came from, for every limit (solarena/client_address.py): REMOTE_ADDR with no
# trusted proxy; behind n proxies that each append to X-Forwarded-For, the n-th address from its
# right. Addresses further left are whatever the client wrote, so they are never believed.
TRUSTED_PROXIES = env_int("SOLARENA_TRUSTED_PROXIES", 0)
if TRUSTED_PROXIES < 0:
    raise ImproperlyConfigured(f"SOLARENA_TRUSTED_PROXIES is a count of proxies, not {TRUSTED_PROXIES}")

# REST API (/api/v1/). Rates are "<count>/<second|minute|hour|day>".
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": env_int("API_PAGE_SIZE", 50),
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    "NUM_PROXIES": TRUSTED_PROXIES,
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("API_THROTTLE_ANON", "120/minute"),
        "user": env_str("API_THROTTLE_USER", "600/minute"),
    },
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # DRF's parsers, with JSON nesting limited (evaluator/bounded_json.py)
    "DEFAULT_PARSER_CLASSES": ["api.parsers.BoundedJSONParser", "rest_framework.parsers.FormParser",
                               "rest_framework.parsers.MultiPartParser"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "solarena API",
    "DESCRIPTION": "Problems, hardware, submissions and leaderboards of a solarena deployment.",
    "VERSION": "1",
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # The docs page's scripts are served from this deployment's static files, not from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # enums are named after their field, and two choice sets are called "status"
    "ENUM_NAME_OVERRIDES": {"StatusEnum": "api.serializers.AGENT_STATUSES",
                            "TraceStatusEnum": "evaluator.harness.status.ALL",
                            "AvailabilityStateEnum": "evaluator.workers.STATES",
                            "EvaluationStateEnum": "evaluator.models.EVALUATION_STATES",
                            "EntryConfirmationEnum": "evaluator.confirmations.LABELS",
                            "EvaluationConfirmationEnum": "evaluator.confirmations.STATES",
                            "EntryStatusCodeEnum": "evaluator.entry_status.CODES"},
}

# Quotas: submissions one participant may make per problem in any 24 hours (evaluations the
# platform failed do not count), and the size of a solution's sources.
SUBMISSIONS_PER_PROBLEM_PER_DAY = env_int("SOLARENA_SUBMISSIONS_PER_PROBLEM_PER_DAY", 50)
# The same for the test and benchmark modes (evaluator/modes.py), counted apart from ranked runs.
SOLARENA_PRIVATE_RUNS_PER_PROBLEM_PER_DAY = env_int("SOLARENA_PRIVATE_RUNS_PER_PROBLEM_PER_DAY", 200)
# Submissions per participant and period, whatever the channel (form, API, CLI, bundle), as
# "<count>/<second|minute|hour|day>"; the name is the API's, where the limit began.
SUBMISSION_RATE = env_str("API_THROTTLE_SUBMISSIONS", "20/minute")
SOLARENA_MAX_SOURCE_BYTES = env_int("SOLARENA_MAX_SOURCE_BYTES", 1 << 20)
SOLARENA_MAX_SOURCE_FILES = env_int("SOLARENA_MAX_SOURCE_FILES", 64)
# Any request body, refused unread above this (solarena/body_limit.py): room for the largest upload,
# an agent bundle of 20 MiB (submissions/bundles.py), and the form around it. Django's own limits
# stay within it: a body other than files (JSON sources, escaped) is held in memory up to the
# second, an uploaded file up to the third before it goes to a temporary file.
SOLARENA_MAX_REQUEST_BYTES = env_int("SOLARENA_MAX_REQUEST_BYTES", 32 << 20)
DATA_UPLOAD_MAX_MEMORY_SIZE = min(SOLARENA_MAX_REQUEST_BYTES, 8 * SOLARENA_MAX_SOURCE_BYTES)
FILE_UPLOAD_MAX_MEMORY_SIZE = min(SOLARENA_MAX_REQUEST_BYTES, 2621440)  # Django's default, 2.5 MB
# Evaluations one participant may have queued or running at once (an agent bundle counts them all).
SOLARENA_MAX_CONCURRENT_EVALUATIONS = env_int("SOLARENA_MAX_CONCURRENT_EVALUATIONS", 100)
