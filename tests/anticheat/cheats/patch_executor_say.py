"""Self-reported time through the harness's own object: at import the solution finds the
executor that answers the reporter (through gc) and gives that one object a `say` of its own,
which rewrites every timing sample it reports to a thousandth of the truth. No module global and
no class is touched. The kernel is correct but slow (2 ms of sleep)."""

import gc
import time

import torch


def _shrink(message: dict) -> dict:
    for sample in message.get("samples") or []:
        for key in ("host_ms", "gpu_ms", "event_ms"):
            if isinstance(sample.get(key), float):
                sample[key] /= 1000.0
    return message


for _obj in gc.get_objects():
    if type(_obj).__name__ == "Executor" and hasattr(_obj, "say"):
        _say = _obj.say
        _obj.say = lambda message, _say=_say: _say(_shrink(message))


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    time.sleep(0.002)
    return x * 2.0 + bias[None, :]
