"""Buck2's file of `@etsb_shim` (see rules/private/shim.bzl).

A Buck2 project maps the cell `etsb_shim` to this folder, beside the cell
`etsb` (see docs/build.md), so that etsb's rules load Buck2's shim,
shim_buck2.bzl, and nothing that names what Buck2 does not define (`Label`,
`attr`, `depset`). `etsb query --emulate buck2` maps it the same way.
"""

load("@etsb//rules:private/shim_buck2.bzl", "buck2_shim")

BUILD_SYSTEM = "buck2"

SHIM = buck2_shim()
