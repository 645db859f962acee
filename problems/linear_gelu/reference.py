"""Linear layer followed by the tanh approximation of GELU (GPT-2's "gelu_new", Gemma's MLP):

    h = x @ weight.T + bias
    y = 0.5 * h * (1 + tanh(sqrt(2 / pi) * (h + 0.044715 * h^3)))

all in float32 (bfloat16 inputs widened, float32 accumulation), rounded to bfloat16.
"""

import math

import torch


def run(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    h = x.float() @ weight.float().T + bias.float()  # [tokens, out_features]
    y = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * h**3)))
    return y.to(torch.bfloat16)
