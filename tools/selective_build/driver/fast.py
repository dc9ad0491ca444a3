"""The no-op build, fast: when the last plan still holds, bring the source
digests up to date and run ninja on it, without evaluating BUILD files,
analysing targets or importing the rest of etsb (that costs more than a whole
no-op build may take); and not even ninja when none of the files it read
when it last had nothing to do has changed since (driver/idle.py)."""

from __future__ import annotations

import gc
import os

from selective_build.driver import freshness, idle, state
from selective_build.driver.platforms import output_dir
from selective_build.driver.running import WorkspaceLock, find_ninja, point_bin_link, report, run_ninja, shipped_sizes

TYPE_CHECKING = False  # typing's own flag, without importing typing (nor collections: start-up time)
if TYPE_CHECKING:
    from collections.abc import Sequence


def noop_build(patterns: Sequence[str], jobs: int | None, defines: dict[str, str],
               executorch_root: str | None = None) -> int | None:
    """``etsb build`` when the last plan for these arguments still holds:
    ninja's outcome (see :func:`~selective_build.driver.running.report`). None
    when the plan must be made again (or ninja is not on PATH), so that the
    full driver takes over."""
    # Its thousands of small lists live to the end: a collection of them (triggered
    # by their count alone) finds nothing to free. On again for the full driver.
    gc.disable()
    try:
        return _noop_build(patterns, jobs, defines, executorch_root)
    finally:
        gc.enable()


def _noop_build(patterns: Sequence[str], jobs: int | None, defines: dict[str, str],
                executorch_root: str | None) -> int | None:
    root = state.root_or_none(os.getcwd())
    ninja = find_ninja()
    if root is None or ninja is None:
        return None
    folder = output_dir(defines)
    with WorkspaceLock(root):
        saved = state.load_state(root, folder)
        key = state.plan_key(root, state.cwd_package(root), patterns, defines,
                             state.executorch_tree(executorch_root, root))
        plan, renewed = state.current_plan(saved, root, folder, key)
        if plan is None:
            return None
        seen: dict[str, int] = {}
        sources = freshness.refresh_sealed(root, saved["sources"], seen)
        if sources is not None:
            saved["sources"] = sources
        if sources is not None or renewed:
            state.save_state(root, folder, saved)
        point_bin_link(root, folder)
        if not plan.ninja_targets:  # nothing to build (as the full driver: ninja given none would build all)
            return report(0, plan, {})
        # A source whose fingerprint changed may have a new digest stamp, which
        # the idle snapshot does not watch: then ninja decides.
        kept = idle.holds(root, folder, ninja, plan.ninja_targets, seen) if sources is None else None
        if kept is not None:
            print(idle.NO_WORK, flush=True)  # what ninja would say
            return report(0, plan, kept["extra"])
        snapshot = idle.prepare(root, folder, ninja, plan.ninja_targets)
        said: list[str] = []
        status = run_ninja(root, ninja, folder, plan.ninja_targets, jobs, transcript=said)
        sizes = shipped_sizes(plan) if status == 0 else {}
        if status == 0 and snapshot is not None and said and said[0].splitlines() == [idle.NO_WORK]:
            idle.keep(root, folder, snapshot, sizes)
    return report(status, plan, sizes)
