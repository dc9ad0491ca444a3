"""A workspace's ``.etsbrc``: options given once for every command run in the
workspace, as Bazel's ``.bazelrc`` gives them. Each line is a command name
(``build``, ``query``, ``size``) or ``common`` (all three), then options::

    # the ExecuTorch tree of this workspace (relative to the workspace root)
    common --executorch-root=../executorch
    build --define=mode=fast

The options come before those of the command line, so the command line wins.
Only ``os`` here: the no-op build reads the file too."""

from __future__ import annotations

import os

from selective_build.driver.layout import RC_FILE

# The commands an .etsbrc line may name; `common` is each of them.
RC_COMMANDS = ("build", "query", "run", "size")
# Options whose value is a path: relative to the workspace root in the file.
_PATH_OPTIONS = ("--executorch-root", "--executorch_root")


def rc_arguments(root: str, command: str) -> list[str]:
    """The options ``root``/.etsbrc gives ``command``, in file order. A line
    naming no known command raises ValueError("FILE:LINE: message")."""
    path = os.path.join(root, RC_FILE)
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"{path}: cannot read it: {error}") from None
    found: list[str] = []
    for number, line in enumerate(lines, 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if words[0] not in (*RC_COMMANDS, "common"):
            raise ValueError(f"{path}:{number}: '{words[0]}' is not a command (write one of: common, "
                             f"{', '.join(RC_COMMANDS)})")
        if words[0] in ("common", command):
            found += _rooted(root, words[1:])
    return found


def _rooted(root: str, words: list[str]) -> list[str]:
    """``words`` with the values of path options made absolute against ``root``."""
    result = []
    for index, word in enumerate(words):
        name, equals, value = word.partition("=")
        if name in _PATH_OPTIONS and equals and value and not os.path.isabs(value):
            word = f"{name}={os.path.join(root, value)}"
        elif index and words[index - 1] in _PATH_OPTIONS and not os.path.isabs(word):
            word = os.path.join(root, word)
        result.append(word)
    return result
