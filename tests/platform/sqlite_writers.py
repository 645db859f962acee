"""Run as a program: one of several processes that read and then write the demo's SQLite file in
each transaction, as the web server's and the worker's requests do. Prints how many writes failed."""

from __future__ import annotations

import os
import sys

import django


def main(name: str, writes: int) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "solarena.settings")
    django.setup()
    from django.contrib.auth.models import Group
    from django.db import OperationalError, transaction

    failed = 0
    for number in range(writes):
        try:
            with transaction.atomic():
                Group.objects.filter(name__startswith=name).count()  # a read first, then the write
                Group.objects.create(name=f"{name}-{number}")
        except OperationalError as error:
            failed += 1
            print(f"{name}-{number}: {error}", file=sys.stderr)
    print(failed)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
