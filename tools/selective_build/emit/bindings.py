"""All the files of ``etsb gen-bindings`` for one resolution."""

from __future__ import annotations

from selective_build.emit.core_checks import render_core_checks
from selective_build.emit.headers import render_functions, render_native_functions
from selective_build.emit.registration import render_registration
from selective_build.model.resolution import Resolution

NATIVE_FUNCTIONS = "NativeFunctions.h"
CUSTOM_OPS_NATIVE_FUNCTIONS = "CustomOpsNativeFunctions.h"
FUNCTIONS = "Functions.h"
REGISTRATION = "register_kernels.cpp"


def render_bindings(resolution: Resolution, lib_name: str, manual_registration: bool,
                    model_entry: bool = False, features: tuple[str, ...] = ()) -> dict[str, str]:
    """File name -> text (every entry's types were checked when its yaml was read); ``features``,
    the selection's build features, may ask the registration to check the core it is compiled for."""
    aten = [(r.entry, k) for r in resolution.operators if not r.entry.is_custom for k in r.kernels]
    custom = [(r.entry, k) for r in resolution.operators if r.entry.is_custom for k in r.kernels]
    headers = (NATIVE_FUNCTIONS, CUSTOM_OPS_NATIVE_FUNCTIONS)
    return {
        NATIVE_FUNCTIONS: render_native_functions(aten),
        CUSTOM_OPS_NATIVE_FUNCTIONS: render_native_functions(custom),
        FUNCTIONS: render_functions([r.entry for r in resolution.operators], headers),
        REGISTRATION: render_core_checks(features)
        + render_registration(resolution, lib_name, manual_registration, headers, model_entry),
    }
