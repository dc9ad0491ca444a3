"""Labels: ``//package:name``, ``:name`` and ``name`` relative to a package,
``//package`` short for ``//package:<last component>``, and target patterns
(``//pkg/...``, ``//pkg:all``)."""

from __future__ import annotations

from selective_build.model.records import record


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
        return f"//{self.package}:{self.name}"

    @property
    def path(self) -> str:
        """The source file this label names, relative to the workspace root."""
        return f"{self.package}/{self.name}" if self.package else self.name


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


def parse_label(text: str, package: str) -> Label:
    """The label ``text`` as written in ``package`` (``@//`` is the main repository)."""
    if text.startswith("@//"):
        text = text[1:]
    elif text.startswith("@"):
        raise LabelError(f"label '{text}' names an external repository; etsb's driver knows only the workspace")
    if text.startswith("//"):
        body = text[2:]
        if ":" in body:
            pkg, name = body.split(":", 1)
        else:
            pkg, name = body, body.rsplit("/", 1)[-1]
            if not body:
                raise LabelError("label '//' names no target")
        return Label(_check_package(pkg, text), _check_name(name, text))
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
