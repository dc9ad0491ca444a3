"""Memoisation of pure functions, without ``functools``: importing it brings in
``collections``, a cost every command that reads yaml paid at start-up."""

from __future__ import annotations


def memoized(function=None, *, limit: int = 0):
    """``function`` (of hashable positional arguments) with its results kept by
    argument: forgotten all at once when ``limit`` (if given) would be
    exceeded; ``cache_clear()`` forgets them. As ``@memoized`` or
    ``@memoized(limit=N)``. A call that raises keeps nothing."""
    if function is None:
        return lambda given: memoized(given, limit=limit)
    kept: dict = {}

    def call(*args):
        try:
            return kept[args]
        except KeyError:
            pass
        if limit and len(kept) >= limit:
            kept.clear()
        value = kept[args] = function(*args)
        return value

    call.cache_clear = kept.clear
    call.__name__, call.__qualname__, call.__doc__ = function.__name__, function.__qualname__, function.__doc__
    call.__module__, call.__wrapped__ = function.__module__, function
    return call
