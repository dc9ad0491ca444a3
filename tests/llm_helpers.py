"""The LLM decoders' files (tests/models/llm) and the check that a built
decoder generates torch's tokens: shared by tests/test_llm.py (etsb's driver,
CMake) and tests/test_bazel.py (Bazel, on the shared output base)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import MODELS_DIR

LLM = MODELS_DIR / "llm"
MANIFEST = json.loads((LLM / "manifest.json").read_text())


def assert_generates_torchs_tokens(binary: Path, model: str) -> None:
    """`binary` --prompt (the manifest's) --generate 16 prints torch's ids."""
    result = subprocess.run([str(binary), "--model", str(LLM / model / f"{model}.pte"), "--prompt",
                             ",".join(map(str, MANIFEST["prompt"])), "--generate", str(MANIFEST["new_tokens"])],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "tokens: " + " ".join(map(str, MANIFEST["models"][model]["tokens"])) + "\n"
