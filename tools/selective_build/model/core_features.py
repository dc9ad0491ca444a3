"""What a program lowered by ExecuTorch's Cortex-M flow assumes of the core it
runs on, as a selection records it (build features of
``selected_operators.yaml``) and the registration source checks it.

The flow lowers for one instruction set: for Helium (a Cortex-M55's MVE) it
folds each linear layer's bias into a precomputed kernel sum that only
CMSIS-NN's Helium code reads (``cortex_m::quantized_linear.out`` gets a
``kernel_sum`` and no ``bias``); for the DSP extension or plain C it passes
the bias. Run on the other kind of core, the first silently computes wrong
linear layers and the second fails in CMSIS-NN: a build for the wrong core is
refused when its registration compiles."""

from __future__ import annotations

from selective_build.model.names import OperatorName, parse_operator_name

QUANTIZED_LINEAR = parse_operator_name("cortex_m::quantized_linear.out")
# Argument positions of quantized_linear.out: (input, weights, bias, kernel_sum, ...).
LINEAR_BIAS, LINEAR_KERNEL_SUM = 2, 3

HELIUM = "cortex_m_lowered_for:helium"          # linear biases folded into kernel sums
NOT_HELIUM = "cortex_m_lowered_for:dsp_or_scalar"  # linear biases passed as they are
FEATURES = (HELIUM, NOT_HELIUM)


def linear_feature(operator: OperatorName, absent_arguments: tuple[int, ...]) -> str | None:
    """The feature a kernel call of ``operator`` whose arguments at
    ``absent_arguments`` are None shows, or None when it shows none."""
    if operator != QUANTIZED_LINEAR:
        return None
    return NOT_HELIUM if LINEAR_KERNEL_SUM in absent_arguments else HELIUM


def is_core_feature(feature: str) -> bool:
    """Whether a build feature is one of these."""
    return feature in FEATURES
