"""What tests that read a binary's symbols share: the link a kept copy was
made from (a dtype-selective pick keeps its copy stripped)."""

from __future__ import annotations

from pathlib import Path


def linked(binary: Path) -> Path:
    """The link ``binary`` is, with its symbols: itself, or for the copy a
    dtype-selective pick keeps stripped (``<name>_smallest/<name>``) the
    candidate (``<name>_dtype_selective``, ``<name>_op_selective``) that,
    stripped by its platform's strip, is it."""
    from selective_build.driver.pick import stripped_images

    if not binary.parent.name.endswith("_smallest"):
        return binary
    candidates = [binary.parent.parent / f"{binary.name}_{form}" for form in ("dtype_selective", "op_selective")]
    kept = binary.read_bytes()
    found = [c for c, image in zip(candidates, stripped_images([str(c) for c in candidates])) if image == kept]
    assert found, f"{binary} is neither candidate stripped"
    return found[0]
