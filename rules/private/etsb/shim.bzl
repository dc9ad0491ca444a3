"""etsb's driver's own file of `@etsb_shim` (see rules/private/shim.bzl).

The driver links the repository `@etsb_shim` to this folder, so that the
rules it evaluates load its shim, shim_etsb.bzl, and no other build
system's. (`etsb query --emulate buck2` links Buck2's folder instead.)
"""

load("@etsb//rules:private/shim_etsb.bzl", "etsb_shim")

BUILD_SYSTEM = "etsb"

SHIM = etsb_shim()
