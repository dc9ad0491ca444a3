"""Making random weights useful: a seed per model, no all-zero parameters,
batch-norm statistics from calibration passes."""

from __future__ import annotations

import zlib
from collections.abc import Callable

import torch
from torch import nn

from real_models import CALIBRATION_BATCH, ModelSpec
from real_models.inputs import Inputs

ZERO_PARAM_STD = 0.02
CALIBRATION_PASSES = 4


def model_seed(name: str) -> int:
    """A stable per-model seed (Python's ``hash`` is salted per process)."""
    return zlib.crc32(name.encode())


def randomise_zero_parameters(model: nn.Module, std: float = ZERO_PARAM_STD) -> list[str]:
    """Give every all-zero parameter normal(0, std) values; return their names."""
    touched = []
    with torch.no_grad():
        for name, param in model.named_parameters():
            if param.numel() and not param.any():
                param.normal_(0.0, std)
                touched.append(name)
    return touched


def _batch_norms(model: nn.Module) -> list[nn.modules.batchnorm._BatchNorm]:
    return [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]


def calibrate_batch_norm(model: nn.Module, make_inputs: Callable[[int], Inputs]) -> int:
    """Set batch-norm running statistics from training-mode passes on random data.

    ``momentum=None`` makes the running statistics a cumulative average over
    the passes.  Returns the number of batch-norm layers calibrated.
    """
    norms = _batch_norms(model)
    if not norms:
        return 0
    for norm in norms:
        norm.reset_running_stats()
        norm.momentum = None
    model.train()
    with torch.no_grad():
        for _ in range(CALIBRATION_PASSES):
            model(*make_inputs(CALIBRATION_BATCH))
    model.eval()
    return len(norms)


def prepare_model(spec: ModelSpec) -> nn.Module:
    """Build the model with seeded random weights, fixed as the docstring says."""
    model = spec.build()
    randomise_zero_parameters(model)
    calibrate_batch_norm(model, spec.make_inputs)
    return model.eval()
