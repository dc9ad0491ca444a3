"""The registration source's check that it is compiled for a core its
programs were lowered for (model/core_features.py): preprocessor lines that
stop the compile, saying why and what to do. Values in, text out."""

from __future__ import annotations

from collections.abc import Iterable

from selective_build.model.core_features import HELIUM, NOT_HELIUM

# Whether the compile targets Helium: CMSIS-NN takes its Helium code under the same macro.
_TARGETS_HELIUM = "defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)"
_EXPORT = ("export it again with CortexMPassManager(..., target_config=CortexMTargetConfig(...)) for this core "
           "(docs/cortex_m.md)")


def render_core_checks(features: Iterable[str]) -> str:
    """The checks for the core features a selection records ('' for none)."""
    features = set(features)
    lines = []
    if HELIUM in features:
        lines += [f"#if !({_TARGETS_HELIUM})",
                  "#error \"a selected program was lowered for Helium (ExecuTorch's Cortex-M flow folded its linear "
                  "layers' biases into kernel sums only CMSIS-NN's Helium code reads), but this build's core has "
                  f"no Helium: build for --platform=cortex-m55, or {_EXPORT}\"", "#endif"]
    if NOT_HELIUM in features:
        lines += [f"#if {_TARGETS_HELIUM}",
                  "#error \"a selected program was lowered for a core without Helium (its linear layers pass their "
                  "biases, which CMSIS-NN's Helium code does not read), but this build's core has Helium: "
                  f"{_EXPORT}\"", "#endif"]
    return "\n".join(["// The cores the selected programs were lowered for.", *lines, "", ""]) if lines else ""
