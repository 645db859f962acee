"""Operating a deployment: health and liveness probes, Prometheus metrics, structured logs, the
deployment checks, and what a Celery worker reports about itself (docs/deploy.md)."""
