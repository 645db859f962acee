# The evaluator image: what the `docker` sandbox backend (sandbox/docker_backend.py) runs the
# measuring harness in, one throwaway container per harness run, on production GPU hosts.
#
# Build from the repository root (only evaluator/__init__.py and evaluator/harness/ enter the
# image; nothing of the service, its settings or any credentials does):
#   docker build -f docker/evaluator.Dockerfile -t solarena-evaluator:latest .
# Versions are build arguments, e.g. --build-arg TORCH_VERSION=2.13.0; TORCH_INDEX_URL adds an
# index holding another CUDA build of torch when the default one does not suit the hosts' driver.
# WHEELS_URL, a page of wheels holding every package needed, replaces the indexes (scripts/docker-images
# serves one on loopback, filled by the host's pip, with a CPU torch).
#
# BASE_IMAGE is the image it starts from: the CUDA devel image for GPU hosts, or any Debian or
# Ubuntu image with apt for the CPU variant, which `scripts/docker-images` builds on a base made
# from Debian's packages where no image registry is reachable (docs/deploy.md):
#   docker build --network host -f docker/evaluator.Dockerfile \
#     --build-arg BASE_IMAGE=local/debian-python:bookworm -t solarena-evaluator:cpu .
#
# Use: on a host with the NVIDIA Container Toolkit, a worker with SOLARENA_SANDBOX=docker (and
# SOLARENA_DOCKER_IMAGE when the tag differs) runs `python -m evaluator.harness JOB_DIR ...` in
# it with its GPU requested by device id, no network, a read-only root, a private /tmp and only
# the job directory mounted. The image adds no entrypoint: the backend's argv is the command.
#
# The devel base carries nvcc and the CUDA headers: CUDA C++ solutions are compiled in the
# container with torch.utils.cpp_extension.load_inline.
ARG BASE_IMAGE=nvidia/cuda:12.8.1-devel-ubuntu24.04
FROM ${BASE_IMAGE}

ARG TORCH_VERSION=2.13.0
ARG TRITON_VERSION=3.9.0
ARG NUMPY_VERSION=2.4.6
ARG SAFETENSORS_VERSION=0.8.0
ARG NINJA_VERSION=1.13.2
ARG TORCH_INDEX_URL=
ARG WHEELS_URL=

ENV DEBIAN_FRONTEND=noninteractive \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_BREAK_SYSTEM_PACKAGES=1

# The system Python, so `python` is found on whatever PATH the job's environment sets.
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-dev python3-pip python-is-python3 g++ \
    && rm -rf /var/lib/apt/lists/*

RUN python -m pip install ${TORCH_INDEX_URL:+--extra-index-url "$TORCH_INDEX_URL"} \
        ${WHEELS_URL:+--no-index --find-links "$WHEELS_URL"} \
        "torch==${TORCH_VERSION}" \
        "triton==${TRITON_VERSION}" \
        "numpy==${NUMPY_VERSION}" \
        "safetensors==${SAFETENSORS_VERSION}" \
        "ninja==${NINJA_VERSION}"

WORKDIR /opt/solarena
COPY evaluator/__init__.py evaluator/__init__.py
COPY evaluator/harness/ evaluator/harness/
# The job's environment replaces PYTHONPATH; the .pth file keeps the harness importable anyway.
RUN python -m compileall -q evaluator \
    && echo /opt/solarena > "$(python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/solarena-harness.pth"
ENV PYTHONPATH=/opt/solarena \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1

RUN useradd --uid 10001 --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin solarena
USER solarena

# CUDA base images start through a banner script, which would write into the results stream.
ENTRYPOINT []
CMD ["python", "-m", "evaluator.harness", "--help"]
