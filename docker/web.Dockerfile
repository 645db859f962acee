# The service image: the Django web app under gunicorn, and the same code for the sweeper and the
# evaluation workers (docker-compose.yml). It holds no torch unless TORCH_CPU_VERSION is given:
# workers run the measuring harness in the evaluator image (docker/evaluator.Dockerfile) through
# the docker sandbox.
#
# Build from the repository root:
#   docker build -f docker/web.Dockerfile -t solarena-web:latest .
# BASE_IMAGE is any image with Python 3.11+ and pip: the official slim image by default, or, where
# no image registry is reachable, the one `scripts/docker-images` makes from Debian's packages.
# Run: production settings are the default here (DEBUG=0), so SECRET_KEY, SOLARENA_HIDDEN_SECRET,
# ALLOWED_HOSTS, DATABASE_URL and CELERY_BROKER_URL must be given (docs/deploy.md).
ARG BASE_IMAGE=python:3.12-slim-bookworm
FROM ${BASE_IMAGE}

ARG DOCKER_PY_VERSION=7.1.0
# A page of wheels holding every package needed, instead of the indexes (scripts/docker-images).
ARG WHEELS_URL=
# A CPU build of PyTorch (e.g. 2.13.0) lets sync_problems count the FLOPs of the references of
# problems that give no sol.flops (docs/scoring.md). Empty: no torch, and those problems get
# memory-only SOL bounds, with that reason on their page.
ARG TORCH_CPU_VERSION=

# A Debian base's own Python is marked externally managed; this image is the app's alone.
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_BREAK_SYSTEM_PACKAGES=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1

WORKDIR /app
# Dependencies first, so a change of code alone does not reinstall them.
COPY pyproject.toml README.md ./
COPY solarena/__init__.py solarena/__init__.py
RUN python -m pip install ${WHEELS_URL:+--no-index --find-links "$WHEELS_URL"} -e . "docker==${DOCKER_PY_VERSION}"
RUN if [ -n "$TORCH_CPU_VERSION" ]; then python -m pip install \
        --index-url https://download.pytorch.org/whl/cpu "torch==${TORCH_CPU_VERSION}"; fi
COPY . .
RUN python -m pip install ${WHEELS_URL:+--no-index --find-links "$WHEELS_URL"} --no-deps -e .

# Static files collected into the image and served by the app itself (WhiteNoise, compressed).
ENV SOLARENA_STATIC_ROOT=/app/staticfiles
RUN SOLARENA_SERVE_STATIC=1 python manage.py collectstatic --noinput -v0

RUN useradd --uid 10001 --user-group --home-dir /app --no-create-home --shell /usr/sbin/nologin solarena \
    && mkdir -p /app/var && chown solarena:solarena /app/var
USER solarena

ENV DEBUG=0 \
    SOLARENA_LOG_FORMAT=json \
    SOLARENA_VAR_DIR=/app/var
EXPOSE 8000
# gunicorn takes its number of processes from WEB_CONCURRENCY and extra flags from
# GUNICORN_CMD_ARGS. Each request is logged by the app as a JSON line, so no access log here.
CMD ["gunicorn", "solarena.wsgi:application", "--bind", "0.0.0.0:8000", "--graceful-timeout", "30"]
