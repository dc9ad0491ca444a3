"""Names etsb's macros derive: C++ identifiers from target names, and the
labels of a target's sibling targets."""

def cxx_identifier(name):
    """`name` with every '-' turned into '_', for generated C++ symbols."""
    return name.replace("-", "_")

def sibling_label(label, suffix):
    """The label of the target named like `label`'s target plus `suffix`, in the same package.

    `//kernels/portable:cpu` + `_srcs` is `//kernels/portable:cpu_srcs`;
    `//kernels/portable` (short for `//kernels/portable:portable`) gives
    `//kernels/portable:portable_srcs`.
    """
    if ":" in label:
        return label + suffix
    return label + ":" + label.split("/")[-1] + suffix
