"""The memo of pure functions (model/memo.py): what the schema parser, the ATen
table and the kernel catalog keep per process."""

import pytest

from selective_build.model.memo import memoized


def counting(function):
    calls = []

    def counted(*arguments):
        calls.append(arguments)
        return function(*arguments)
    return counted, calls


def test_a_result_is_computed_once_and_read_as_an_item_or_a_call():
    square, calls = counting(lambda x: x * x)
    memo = memoized(square)
    assert memo[3] == 9 and memo(3) == 9 and memo[4] == 16
    assert calls == [(3,), (4,)]


def test_spread_takes_several_arguments_or_none():
    join, calls = counting(lambda *parts: "/".join(parts))
    memo = memoized(spread=True)(join)
    assert memo("a", "b") == memo["a", "b"] == "a/b"
    assert memo() == memo[()] == ""
    assert calls == [("a", "b"), ()]


def test_the_limit_forgets_everything_at_once_and_keeps_computing_right():
    negate, calls = counting(lambda x: -x)
    memo = memoized(limit=2)(negate)
    assert [memo[1], memo[2], memo[3], memo[1]] == [-1, -2, -3, -1]
    assert len(memo) <= 2 and calls == [(1,), (2,), (3,), (1,)]


def test_a_call_that_raises_keeps_nothing():
    attempts = []

    def flaky(x):
        attempts.append(x)
        if len(attempts) == 1:
            raise ValueError("first time")
        return x

    memo = memoized(flaky)
    with pytest.raises(ValueError):
        memo(5)
    assert 5 not in memo and memo(5) == 5 and attempts == [5, 5]


def test_a_memo_is_a_function_by_identity_and_keeps_its_docstring():
    def documented(x):
        """Doubles."""
        return 2 * x

    first, second = memoized(documented), memoized(documented)
    first[1]
    assert first != second and hash(first) != hash(second) and first == first
    assert first.__doc__ == "Doubles." and first.__wrapped__ is documented
    first.cache_clear()
    assert len(first) == 0
