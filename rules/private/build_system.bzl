"""Which build system evaluates etsb's .bzl files: one definition for all of them.

`"bazel"` (its `native` has `cc_library`), `"buck2"` (`read_config`), else
`"etsb"`, the embedded driver. shim.bzl re-exports it as `BUILD_SYSTEM`.
"""

BUILD_SYSTEM = "bazel" if hasattr(native, "cc_library") else ("buck2" if hasattr(native, "read_config") else "etsb")
