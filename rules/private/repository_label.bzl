"""Labels of etsb's repository as every repository names them: Bazel and etsb's driver only.

`Label` is a global of Bazel's (and of the driver's evaluator) that Buck2 does
not define, and Buck2 refuses a file naming it: only the shims of the build
systems that have it (shim_bazel.bzl, shim_etsb.bzl) and Bazel's own files
(bazel/) load this file.
"""

def repository_label(text):
    """A label of etsb's repository as every repository names it (etsb's driver and Bazel).

    `Label` resolves `text` relative to this file's repository (as Bazel does,
    and etsb's driver, where it gives `@etsb//...` inside etsb's checkout too),
    so the rules reach their own targets when they are loaded from another
    repository or module (`@etsb//rules:executorch.bzl`) or called from an
    ExecuTorch tree's overlay.

    Args:
      text: `//pkg:name` in etsb's repository, or `@NAME//pkg:name` of a
        repository etsb's own set-up declares (the runtime's).

    Returns:
      The label's text, absolute.
    """
    absolute = str(Label(text))

    # Bazel 4 writes the main repository's labels without it: `@//` names it from anywhere.
    return absolute if absolute.startswith("@") else "@" + absolute
