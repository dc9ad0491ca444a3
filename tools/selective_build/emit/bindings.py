"""All the files of ``etsb gen-bindings`` for one resolution."""

from __future__ import annotations

from selective_build.emit.cpp_types import UnsupportedType, check_signature
from selective_build.emit.headers import render_functions, render_native_functions
from selective_build.emit.registration import render_registration
from selective_build.errors import Problem, UserError
from selective_build.resolve import Resolution

NATIVE_FUNCTIONS = "NativeFunctions.h"
CUSTOM_OPS_NATIVE_FUNCTIONS = "CustomOpsNativeFunctions.h"
FUNCTIONS = "Functions.h"
REGISTRATION = "register_kernels.cpp"


def render_bindings(resolution: Resolution, lib_name: str, manual_registration: bool,
                    model_entry: bool = False) -> dict[str, str]:
    """File name -> text. An operator whose types no EValue carries is a UserError at its entry."""
    problems = []
    for resolved in resolution.operators:
        try:
            check_signature(resolved.entry.schema)
        except UnsupportedType as error:
            problems.append(Problem(f"{resolved.entry.name}: {error}", resolved.entry.location))
    if problems:
        raise UserError.of(problems)
    aten = [(r.entry, k) for r in resolution.operators if r.entry.kind == "op" for k in r.kernels]
    custom = [(r.entry, k) for r in resolution.operators if r.entry.kind != "op" for k in r.kernels]
    headers = (NATIVE_FUNCTIONS, CUSTOM_OPS_NATIVE_FUNCTIONS)
    return {
        NATIVE_FUNCTIONS: render_native_functions(aten),
        CUSTOM_OPS_NATIVE_FUNCTIONS: render_native_functions(custom),
        FUNCTIONS: render_functions([r.entry for r in resolution.operators], headers),
        REGISTRATION: render_registration(resolution, lib_name, manual_registration, headers, model_entry),
    }
