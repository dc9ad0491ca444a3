"""The build driver's file-system edge, behind ``etsb build``, ``query``,
``clean`` and ``size``: it finds the workspace and its packages, evaluates BUILD
files (reusing the last plan while no file it read has changed), writes the
ninja file and runs ninja."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterable, Sequence

from selective_build.driver import freshness, state
from selective_build.driver.labels import Label, LabelError, Pattern, parse_pattern
from selective_build.driver.layout import (BUILD_FILES, KEPT_BY_CLEAN, NINJA_FILE, OUT, ROOT_MARKERS, TAG_ALL_KERNELS,
                                           TAG_BINARY, TAG_MANUAL)
from selective_build.driver.plan import Plan, PlannedTarget
from selective_build.driver.running import WorkspaceLock, find_ninja, run_ninja
from selective_build.model.errors import Location, UserError
from selective_build.model.records import record


def find_root(start: str) -> str:
    """The workspace root: the nearest directory at or above ``start`` with a
    MODULE.bazel or WORKSPACE file."""
    root = state.find_root(start)
    if root is None:
        raise UserError(f"not inside a workspace: no {' or '.join(ROOT_MARKERS)} at or above "
                        f"{os.path.abspath(start)}")
    return root


def is_package(root: str, package: str) -> bool:
    """Whether ``package`` has a BUILD file."""
    return any(os.path.isfile(os.path.join(root, package, b)) for b in BUILD_FILES)


@record
class Workspace:
    """A workspace and the configuration of this invocation."""

    root: str
    cwd_package: str
    defines: dict[str, str]

    @classmethod
    def here(cls, defines: dict[str, str] | None = None) -> "Workspace":
        """The workspace around the current directory, with ``--define`` values."""
        root = find_root(os.getcwd())
        return cls(root, state.cwd_package(root), dict(defines or {}))

    @property
    def out(self) -> str:
        """The output root, absolute."""
        return os.path.join(self.root, OUT)

    # -- configuration ---------------------------------------------------------

    def make_variables(self) -> dict[str, str]:
        """The make variables commands and flags may use."""
        executorch = state.executorch_root()
        if executorch is None:
            raise UserError("the executorch runtime wheel is not installed in this Python: run scripts/setup.sh")
        return {
            "ETSB_PYTHON": sys.executable,
            "EXECUTORCH_ROOT": executorch,
            **{k: v for k, v in self.defines.items()},
        }

    def config(self):
        """The analysis configuration of this invocation."""
        from selective_build.driver.graph import Config

        root = self.root
        tool = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "__main__.py")
        return Config(self.make_variables(), dict(self.defines), os.environ.get("CXX", "g++"),
                      lambda path: os.path.isfile(os.path.join(root, path)),
                      (sys.executable, os.path.relpath(tool, root)))

    # -- patterns --------------------------------------------------------------

    def patterns(self, texts: Sequence[str]) -> list[Pattern]:
        """Command-line target patterns, parsed."""
        result = []
        for text in texts:
            try:
                result.append(parse_pattern(text, self.cwd_package))
            except LabelError as error:
                raise UserError(str(error), Location(text)) from None
        return result

    def packages_for(self, patterns: Sequence[Pattern]) -> list[str]:
        """The packages the patterns name; a missing one is an error."""
        packages: set[str] = set()
        for pattern in patterns:
            if pattern.recursive:
                found = state.discover_packages(self.root, pattern.package)
                if not found:
                    raise UserError(f"no packages under //{pattern.package}/...")
                packages.update(found)
            else:
                if not is_package(self.root, pattern.package):
                    raise UserError(f"no such package '{pattern.package}' (no BUILD file in "
                                    f"{os.path.join(self.root, pattern.package)})")
                packages.add(pattern.package)
        return sorted(packages)

    # -- evaluation ------------------------------------------------------------

    def evaluate(self, packages: Iterable[str]):
        """Evaluate ``packages`` and every package their labels reach."""
        from selective_build.driver.evaluate import evaluate
        from selective_build.driver.graph import referenced_packages

        evaluated = {}
        wanted = set(packages)
        while wanted:
            batch = sorted(p for p in wanted if p not in evaluated and is_package(self.root, p))
            wanted = set()
            for name, package in evaluate(self.root, batch).items():
                evaluated[name] = package
                wanted |= {p for p in referenced_packages(package) if p not in evaluated}
        return evaluated

    @staticmethod
    def matching(packages, patterns: Sequence[Pattern]) -> list[Label]:
        """The labels of the targets the patterns select (``manual`` ones only when named)."""
        labels = []
        for pattern in patterns:
            if pattern.name is not None:
                labels.append(Label(pattern.package, pattern.name))
                continue
            for name, package in packages.items():
                if pattern.matches_package(name):
                    labels += [t.label for t in package.targets if TAG_MANUAL not in t.tags]
        return sorted(set(labels))

    # -- build -------------------------------------------------------------------

    def plan(self, texts: Sequence[str]) -> Plan:
        """Bring the ninja file and the source digests up to date for the
        patterns ``texts``; return the plan. Reuses the last plan when nothing
        it read has changed. Call with the workspace's lock held."""
        patterns = self.patterns(texts)
        packages_wanted = self.packages_for(patterns)
        key = state.plan_key(self.root, self.cwd_package, texts, self.defines)
        saved = state.load_state(self.root)
        plan = state.current_plan(saved, self.root, key)
        if plan is None:
            return self._plan_afresh(patterns, packages_wanted, key, saved)
        if freshness.refresh(self.root, list(saved["sources"]), saved["sources"]):
            state.save_state(self.root, saved)
        return plan

    def _plan_afresh(self, patterns: Sequence[Pattern], packages_wanted: Sequence[str], key: dict,
                     previous: dict | None) -> Plan:
        from selective_build.driver import ninja
        from selective_build.driver.graph import analyse, source_files
        from selective_build.readers.files import write_text_atomic

        packages = self.evaluate(packages_wanted)
        labels = self.matching(packages, patterns)
        graph = analyse(packages, labels, self.config())
        sources = source_files(graph.actions)
        # The digests first: the ninja file names every source's stamp.
        known = (previous or {}).get("sources") or {}
        records = {source: known[source] for source in sources if source in known}
        freshness.refresh(self.root, sources, records)
        phonies = {str(label): node.outputs for label, node in graph.nodes.items()}
        write_text_atomic(os.path.join(self.root, NINJA_FILE),
                          ninja.render(graph.actions, phonies, set(sources), freshness.stamp_path))
        plan = Plan(tuple(ninja.target_name(str(label)) for label in labels),
                    tuple(_planned(label, graph.nodes[label]) for label in labels))
        files = {f for p in packages.values() for f in (*p.files, p.build_file)}
        dirs = {d for p in packages.values() for d in p.glob_dirs}
        state.save_state(self.root, state.make_state(self.root, key, files | dirs, plan, records))
        return plan

    def build(self, texts: Sequence[str], jobs: int | None = None, quiet: bool = False) -> tuple[int, Plan]:
        """Build the targets ``texts`` name, holding the workspace's lock; ninja's exit status and the plan."""
        ninja = find_ninja()
        if ninja is None:
            raise UserError("ninja is not installed: run scripts/setup.sh (Debian package ninja-build)")
        with WorkspaceLock(self.root):
            plan = self.plan(texts)
            status = run_ninja(self.root, ninja, plan.ninja_targets, jobs, quiet) if plan.ninja_targets else 0
        return status, plan

    def clean(self) -> None:
        """Remove every build output (the set-up's tools under etsb-out/tools stay)."""
        if not os.path.isdir(self.out):
            return
        with WorkspaceLock(self.root):
            self._remove_outputs()

    def _remove_outputs(self) -> None:
        for name in os.listdir(self.out):
            if name not in KEPT_BY_CLEAN:
                path = os.path.join(self.out, name)
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path)
                else:
                    os.remove(path)


def _planned(label: Label, node) -> PlannedTarget:
    """What the plan keeps of a requested target."""
    from selective_build.driver.labels import parse_label

    target = node.target
    companion = next((str(parse_label(tag[len(TAG_ALL_KERNELS):], label.package))
                      for tag in target.tags if tag.startswith(TAG_ALL_KERNELS)), "")
    binary = target.rule == "cxx_binary" or TAG_BINARY in target.tags
    return PlannedTarget(str(label), target.rule, tuple(node.outputs), companion, binary)
