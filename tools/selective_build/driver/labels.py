"""Labels: ``//package:name``, ``:name`` and ``name`` relative to a package,
``//package`` short for ``//package:<last component>``, ``@NAME//package:name``
in an external repository, and target patterns (``//pkg/...``, ``//pkg:all``).

The packages of an external repository are named ``external/NAME/package``
inside the driver, as Bazel lays them out; its files are under
``etsb-out/external/NAME``, where the driver links the repository's tree."""

from __future__ import annotations

import re
from collections.abc import Collection

from selective_build.driver.layout import EXTERNAL, EXTERNAL_DIR
from selective_build.model.records import record

_REPOSITORY_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*\Z")


def split_external(package: str) -> tuple[str, str] | None:
    """``(NAME, package within it)`` for a package of an external repository, else None."""
    if package != EXTERNAL and not package.startswith(EXTERNAL + "/"):
        return None
    name, _, rest = package[len(EXTERNAL) + 1:].partition("/")
    return name, rest


def package_label(package: str) -> str:
    """A package as labels write it: ``//pkg`` or ``@NAME//pkg``."""
    external = split_external(package)
    return f"@{external[0]}//{external[1]}" if external else f"//{package}"


def _repository_prefix(package: str) -> str:
    """``external/NAME/`` for a package of an external repository, '' for the main one."""
    external = split_external(package)
    return f"{EXTERNAL}/{external[0]}/" if external else ""


class LabelError(ValueError):
    """A string that is not a valid label; the message says why."""


@record
class Label:
    """A target or file in a package. ``package`` is a path relative to the
    workspace root ('' for the root package); ``name`` is relative to it.
    Labels order by package, then name."""

    package: str
    name: str

    def __str__(self) -> str:
        external = split_external(self.package)
        if external:
            return f"@{external[0]}//{external[1]}:{self.name}"
        return f"//{self.package}:{self.name}"

    @property
    def relative(self) -> str:
        """``package/name``: where an output of this label goes below the output
        tree (``external/NAME/...`` for an external repository's)."""
        return f"{self.package}/{self.name}" if self.package else self.name

    @property
    def path(self) -> str:
        """The source file this label names, relative to the workspace root
        (under ``etsb-out/external/NAME`` for an external repository's)."""
        relative = self.relative
        return f"{EXTERNAL_DIR}/{relative[len(EXTERNAL) + 1:]}" if split_external(self.package) else relative


def _check_package(package: str, text: str) -> str:
    if package.startswith("/") or package.endswith("/") or "//" in package:
        raise LabelError(f"label '{text}' has a malformed package '{package}'")
    if any(part in ("..", ".") for part in package.split("/")):
        raise LabelError(f"label '{text}' escapes the workspace root or uses '.' in its package")
    return package


def _check_name(name: str, text: str) -> str:
    if not name:
        raise LabelError(f"label '{text}' has an empty target name")
    if name.startswith("/") or any(part in ("..", "") for part in name.split("/")):
        raise LabelError(f"label '{text}' has a bad target name '{name}'")
    return name


def parse_label(text: str, package: str, main_names: Collection[str] = ()) -> Label:
    """The label ``text`` as written in ``package``. ``//`` is the package's
    own repository; ``@//`` and ``@N//`` for N in ``main_names`` are the main
    one; ``@NAME//`` is the external repository NAME."""
    prefix = _repository_prefix(package)
    if text.startswith("@"):
        name, separator, rest = text[1:].partition("//")
        if not separator:
            raise LabelError(f"label '{text}' has no '//' after its repository name")
        if name and not _REPOSITORY_NAME.match(name):
            raise LabelError(f"label '{text}' has a bad repository name '{name}'")
        prefix = "" if not name or name in main_names else f"{EXTERNAL}/{name}/"
        text = "//" + rest
    if text.startswith("//"):
        body = text[2:]
        if ":" in body:
            pkg, name = body.split(":", 1)
        else:
            pkg, name = body, body.rsplit("/", 1)[-1]
            if not body:
                raise LabelError("label '//' names no target")
        pkg = _check_package(pkg, text)
        if not prefix and (pkg == EXTERNAL or pkg.startswith(EXTERNAL + "/")):
            raise LabelError(f"label '{text}': the package path '{EXTERNAL}' is reserved for external "
                             "repositories (write '@NAME//...')")
        return Label(f"{prefix}{pkg}".rstrip("/"), _check_name(name, text))
    name = text[1:] if text.startswith(":") else text
    return Label(package, _check_name(name, text))


@record
class Pattern:
    """A target pattern: one label, every target of a package (``:all``), or
    every package below one (``/...``)."""

    package: str
    name: str | None = None  # None: every target of the package
    recursive: bool = False

    def matches_package(self, package: str) -> bool:
        """Whether targets of ``package`` can match."""
        if self.recursive:
            return not self.package or package == self.package or package.startswith(self.package + "/")
        return package == self.package


def parse_pattern(text: str, cwd_package: str) -> Pattern:
    """The target pattern ``text`` given on the command line in ``cwd_package``."""
    if text.startswith(":"):
        text = f"//{cwd_package}{text}"
    elif text.startswith("@"):
        label = parse_label(text, cwd_package)
        return Pattern(label.package, label.name, False)
    elif not text.startswith("//"):
        text = "//" + (f"{cwd_package}/{text}" if cwd_package else text)
    body = text[2:]
    for suffix in ("...:all", "...:*", "..."):
        if body == suffix or body.endswith("/" + suffix):
            package = body[: -len(suffix)].rstrip("/")
            return Pattern(_check_package(package, text) if package else "", None, True)
    for suffix in (":all", ":*"):
        if body.endswith(suffix):
            package = body[: -len(suffix)]
            return Pattern(_check_package(package, text) if package else "", None, False)
    label = parse_label(text, cwd_package)
    return Pattern(label.package, label.name, False)
