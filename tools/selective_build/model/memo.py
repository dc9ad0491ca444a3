"""Memoisation of pure functions, without ``functools`` (importing it brings in
``collections``, a start-up cost of every command that reads yaml)."""

from __future__ import annotations


class Memo(dict):
    """A pure function's results by argument, read as ``memo[argument]`` (a
    tuple of arguments for a function of several): a kept result is a plain
    dict lookup, no Python call; a missing one is computed and kept (all are
    forgotten at once when ``limit``, if set, would be exceeded). A call that
    raises keeps nothing. Called as a function, it looks up the same way."""

    def __init__(self, function, limit: int = 0, spread: bool = False) -> None:
        super().__init__()
        self.function, self.limit, self.spread = function, limit, spread
        self.__doc__, self.__wrapped__ = function.__doc__, function

    def __missing__(self, key):
        value = self.function(*key) if self.spread else self.function(key)
        if self.limit and len(self) >= self.limit:
            self.clear()
        self[key] = value
        return value

    def __call__(self, *arguments):
        """The function's result, kept: ``memo(a)`` as ``memo[a]``, ``memo(a, b)``
        as ``memo[a, b]`` (``spread``), ``memo()`` as ``memo[()]``."""
        return self[arguments] if self.spread else self[arguments[0]]

    def cache_clear(self) -> None:
        """Forget every result."""
        self.clear()

    def __hash__(self) -> int:  # a memo is a function, not a value: by identity
        return id(self)

    def __eq__(self, other) -> bool:
        return self is other


def memoized(function=None, *, limit: int = 0, spread: bool = False):
    """``@memoized``, ``@memoized(limit=N)``; ``spread``: the function takes
    several arguments, given as one tuple key (``memo[a, b]``)."""
    if function is None:
        return lambda given: Memo(given, limit, spread)
    return Memo(function, limit, spread)
