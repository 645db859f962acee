"""Hidden workloads: drawn deterministically from the var-axis domains with a secret.

The same (secret, problem) always gives the same workloads, and another secret other ones. The
draw favours sizes that kernels tuned to the visible shapes get wrong: primes, sizes that are not
multiples of 16/64/128, the edges of the domain (1 where allowed) and 2^k +- 1.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from pathlib import Path

from . import expr
from .problem import Definition, Domain, Problem, ProblemError, Workload, load_workloads

MAX_TRIES = 400


def draw_hidden(problem: Problem, secret: str, *, smoke: bool = False) -> list[Workload]:
    """Draw the problem's hidden workloads (full size, or smoke size for the CPU)."""
    definition = problem.definition
    count = definition.hidden.smoke_count if smoke else definition.hidden.count
    templates = (problem.smoke_workloads if smoke else problem.workloads) or problem.workloads
    if count == 0 or not definition.var_axes:
        return []
    if not secret:
        raise ValueError("drawing hidden workloads needs a non-empty secret")
    domains = {a.name: _domain_for(definition, a.name, smoke) for a in definition.var_axes}
    key = hmac.new(secret.encode(), f"{definition.name}:{'smoke' if smoke else 'full'}".encode(),
                   hashlib.sha256).digest()
    rng = random.Random(key)
    drawn: list[Workload] = []
    seen: set[tuple[int, ...]] = set()
    for index in range(count):
        axes = _draw_axes(definition, domains, rng, index, seen)
        if axes is None:
            break
        seen.add(tuple(axes.values()))
        template = templates[index % len(templates)]
        uuid = "hidden-" + hmac.new(key, str(index).encode(), hashlib.sha256).hexdigest()[:16]
        drawn.append(Workload(uuid, axes, _inputs_like(template), template.tolerance,
                              visibility="hidden", smoke=smoke))
    return drawn


def load_hidden_file(path: str | Path, problem: Problem) -> list[Workload]:
    """Hidden workloads from a private JSONL file (same format as workload.jsonl)."""
    workloads = load_workloads(Path(path), problem.definition, required=True, visibility="hidden")
    for w in workloads:
        if any(d["type"] == "safetensors" for d in w.inputs.values()):
            raise ProblemError(str(path), w.uuid, "hidden workloads cannot use safetensors inputs")
    return workloads


def awkward_candidates(domain: Domain) -> list[int]:
    """Sizes in the domain that hard-coded kernels tend to get wrong, most awkward first."""
    m = domain.multiple_of
    lo, hi = -(-domain.min // m), domain.max // m  # range of multipliers
    picks: set[int] = {lo, hi, min(lo + 1, hi)}
    k = 1
    while 2**k <= hi + 1:
        picks.update(j for j in (2**k - 1, 2**k + 1) if lo <= j <= hi)
        k += 1
    values = sorted({j * m for j in picks if lo <= j <= hi and j * m >= domain.min})
    return sorted(values, key=lambda v: (-_awkwardness(v), v))


def _draw_axes(
    definition: Definition,
    domains: dict[str, Domain],
    rng: random.Random,
    index: int,
    seen: set[tuple[int, ...]],
) -> dict[str, int] | None:
    for attempt in range(MAX_TRIES):
        axes = {}
        for name, domain in domains.items():
            if index == 0 and attempt < MAX_TRIES // 4:
                axes[name] = _smallest(domain)  # the size-1 edge, where the domain allows it
            else:
                axes[name] = _draw_value(domain, rng, plain=attempt > MAX_TRIES // 2)
        if tuple(axes.values()) in seen:
            continue
        try:
            resolved = definition.resolve_axes(axes)
            if all(expr.evaluate(c, resolved) for c in definition.constraints):
                return axes
        except expr.ExpressionError:
            continue
    if index == 0:
        raise ProblemError(definition.name, "hidden",
                           "no hidden workload meets the constraints within the axis domains; "
                           "widen the domains or relax the constraints")
    return None


def _domain_for(definition: Definition, axis: str, smoke: bool) -> Domain:
    a = definition.axes[axis]
    domain = (a.smoke_domain or a.domain) if smoke else (a.domain or a.smoke_domain)
    if domain is None:
        raise ProblemError(definition.name, f"axes.{axis}",
                           "hidden workloads need a domain (and smoke_domain) for every var axis")
    return domain


def _smallest(domain: Domain) -> int:
    m = domain.multiple_of
    return max(m, -(-domain.min // m) * m) if domain.min == 0 else -(-domain.min // m) * m


def _draw_value(domain: Domain, rng: random.Random, plain: bool) -> int:
    m = domain.multiple_of
    lo, hi = -(-domain.min // m), domain.max // m
    lo = max(lo, 1)
    if plain or rng.random() < 0.25:
        return rng.randint(lo, hi) * m
    roll = rng.random()
    if roll < 0.5:  # a prime multiplier, so the size shares no factor with block sizes
        return _prime_near(rng.randint(lo, hi), lo, hi) * m
    if roll < 0.75:
        return rng.choice(awkward_candidates(domain))
    j = rng.randint(lo, hi)  # an odd multiplier: not a multiple of 16/64/128 when m is small
    if j % 2 == 0:
        j = j + 1 if j + 1 <= hi else max(j - 1, lo)
    return j * m


def _prime_near(start: int, lo: int, hi: int) -> int:
    for delta in range(0, hi - lo + 1):
        for candidate in (start + delta, start - delta):
            if lo <= candidate <= hi and _is_prime(candidate):
                return candidate
    return start


def _is_prime(n: int) -> bool:
    if n < 2:
        return False
    if n % 2 == 0:
        return n == 2
    f = 3
    while f * f <= n:
        if n % f == 0:
            return False
        f += 2
    return True


def _awkwardness(value: int) -> int:
    score = 0 if value % 16 == 0 else 2
    score += 0 if value % 64 == 0 else 1
    score += 2 if _is_prime(value) or value == 1 else 0
    return score


def _inputs_like(template: Workload) -> dict[str, dict]:
    inputs = {}
    for name, desc in template.inputs.items():
        inputs[name] = {"type": "random"} if desc["type"] == "safetensors" else dict(desc)
    return inputs
