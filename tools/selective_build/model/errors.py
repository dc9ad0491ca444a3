"""User-facing errors: messages with the place in the input that caused them.

Every stage raises :class:`UserError` for bad input, with one problem or all
the problems it found in a file, each at a :class:`Location` in a file or at
a :class:`CommandLine` flag or command. The command line prints each as
``file:line:col: error: message`` and exits with status 2, without a traceback.
"""

from __future__ import annotations


from selective_build.model.records import record

TYPE_CHECKING = False  # typing's own flag, without importing typing (nor collections: start-up time)
if TYPE_CHECKING:
    from collections.abc import Iterable


@record
class Location:
    """A place in an input file; ``line`` and ``column`` count from 1, 0 if
    unknown. Ordered by (path, line, column)."""

    path: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        if self.line and self.column:
            return f"{self.path}:{self.line}:{self.column}"
        if self.line:
            return f"{self.path}:{self.line}"
        return self.path


@record
class CommandLine:
    """A place on the command line: the flag (``--lib-name``) or the command
    (``gen-oplist``) whose arguments are wrong, printed as spelled. A tuple
    like :class:`Location`, so that problems at both sort together."""

    spelling: str

    def __str__(self) -> str:
        return self.spelling


@record
class Problem:
    """One thing wrong with the input, and where."""

    message: str
    location: Location | CommandLine | None = None

    def __str__(self) -> str:
        if self.location is None:
            return f"error: {self.message}"
        return f"{self.location}: error: {self.message}"


class UserError(Exception):
    """Bad input from the user: one or more located problems, exit status 2."""

    exit_code = 2

    def __init__(self, message: str, location: Location | CommandLine | None = None,
                 problems: Iterable[Problem] = ()) -> None:
        collected = tuple(problems) or (Problem(message, location),)
        super().__init__(message)
        self.problems: tuple[Problem, ...] = collected

    @classmethod
    def of(cls, problems: Iterable[Problem]) -> "UserError":
        """One error holding several problems, in the order of their locations."""
        ordered = sorted(problems, key=lambda p: (p.location or Location(""), p.message))
        return cls(ordered[0].message, ordered[0].location, ordered)

    @property
    def message(self) -> str:
        """The first problem's message."""
        return self.problems[0].message

    @property
    def location(self) -> Location | CommandLine | None:
        """The first problem's location."""
        return self.problems[0].location

    def __str__(self) -> str:
        return "\n".join(map(str, self.problems))


def did_you_mean(word: str, candidates) -> str:
    """`` (did you mean 'x'?)`` for the candidate nearest to ``word``, or ``""``."""
    import difflib  # only on error paths

    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.75)
    return f" (did you mean '{close[0]}'?)" if close else ""
