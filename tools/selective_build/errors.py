"""User-facing errors: a message with the place in the input that caused it.

Every stage raises :class:`UserError` for bad input; the CLI prints it as
``file:line:col: message`` and exits with status 2, without a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    """A place in an input file; ``line`` and ``column`` count from 1, 0 if unknown."""

    path: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        if self.line and self.column:
            return f"{self.path}:{self.line}:{self.column}"
        if self.line:
            return f"{self.path}:{self.line}"
        return self.path


class UserError(Exception):
    """Bad input from the user: reported with its location, exit status 2."""

    exit_code = 2

    def __init__(self, message: str, location: Location | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.location = location

    def __str__(self) -> str:
        if self.location is None:
            return self.message
        return f"{self.location}: {self.message}"
