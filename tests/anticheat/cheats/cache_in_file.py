"""Caching / replay through files that outlive the process: outputs are saved under the temp
directory, named by a hash of the inputs' full contents; any call, in this process, a restarted
one or a later evaluation of the same submission, whose inputs were seen before loads the saved
output instead of computing it (and logs its shape to cheated.txt).

A naive harness that reuses inputs across runs (a fixed seed, the same workload file evaluated
again) serves the timed calls from disk."""

import hashlib
import tempfile
from pathlib import Path

import torch

LOG = Path(__file__).with_name("cheated.txt")
STORE = Path(tempfile.gettempdir()) / "solarena-replay-cache"


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    digest = hashlib.sha1(x.contiguous().numpy().tobytes() + bias.contiguous().numpy().tobytes())
    path = STORE / f"{digest.hexdigest()}.pt"
    if path.exists():
        with open(LOG, "a") as fh:
            fh.write(" ".join(map(str, x.shape)) + "\n")
        return torch.load(path)
    y = x * 2.0 + bias[None, :]
    STORE.mkdir(exist_ok=True)
    torch.save(y, path)
    return y
