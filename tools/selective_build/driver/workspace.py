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
from selective_build.driver.labels import Label, LabelError, Pattern, package_label, parse_pattern, split_external
from selective_build.driver.layout import (BUILD_FILES, EMULATE_DIR, EXTERNAL, EXTERNAL_DIR, KEPT_BY_CLEAN,
                                           OUT, OVERLAY_BUILD_FILE, PRELUDE, ROOT_MARKERS, SHIM_FOLDERS,
                                           SHIM_REPOSITORY, TAG_ALL_KERNELS, TAG_BINARY, TAG_MANUAL, ninja_file)
from selective_build.driver.plan import Plan, PlannedTarget
from selective_build.driver.running import WorkspaceLock, find_ninja, point_bin_link, run_ninja
from selective_build.model.errors import CommandLine, UserError
from selective_build.model.records import record


def workspace_root(start: str) -> str:
    """The workspace root: the nearest directory at or above ``start`` with a
    MODULE.bazel or WORKSPACE file (:func:`~selective_build.driver.state.root_or_none`);
    none is a UserError, for the commands that need a workspace."""
    root = state.root_or_none(start)
    if root is None:
        raise UserError(f"not inside a workspace: no {' or '.join(ROOT_MARKERS)} at or above "
                        f"{os.path.abspath(start)}")
    return root


# The evaluator's dialect of etsb's own driver (its --emulate default).
DRIVER_DIALECT = "etsb"

# What makes a workspace hold etsb itself (a checkout or a copy): `@etsb//` is then its own.
ETSB_PARTS = ("rules/private/shim.bzl", "runtime/BUILD", "tools/selective_build/BUILD")

# The BUILD files etsb gives an ExecuTorch source tree (`@executorch//...`).
EXECUTORCH_OVERLAY = os.path.join(state.REPO, "rules", "executorch_tree")
# The BUILD file etsb gives a CMSIS-NN source tree (`@cmsis_nn//:cmsis-nn`), which
# ExecuTorch's Cortex-M kernels call.
CMSIS_NN_OVERLAY = os.path.join(state.REPO, "rules", "cmsis_nn")


@record
class Repository:
    """An external repository: ``@name//`` labels name files of ``tree``, and
    its packages' BUILD files come from ``overlay`` ('' for the tree's own)."""

    name: str
    tree: str
    overlay: str = ""


@record
class Workspace:
    """A workspace and the configuration of this invocation."""

    root: str
    cwd_package: str
    defines: dict[str, str]
    executorch_tree: str = ""  # an ExecuTorch source tree, absolute ('' when none was given)
    # The build system whose view BUILD files are evaluated in (the evaluator's --emulate):
    # the driver's own, or another's (`etsb query --emulate buck2`), which the driver only lists.
    dialect: str = DRIVER_DIALECT

    @classmethod
    def here(cls, defines: dict[str, str] | None = None, executorch_root: str | None = None,
             dialect: str = DRIVER_DIALECT) -> "Workspace":
        """The workspace around the current directory, with ``--define`` values, the
        ExecuTorch tree (:func:`~selective_build.driver.state.executorch_tree`) and the dialect."""
        root = workspace_root(os.getcwd())
        return cls(root, state.cwd_package(root), dict(defines or {}), state.executorch_tree(executorch_root, root),
                   dialect)

    @property
    def out(self) -> str:
        """The output root, absolute."""
        return os.path.join(self.root, OUT)

    @property
    def folder(self) -> str:
        """The output folder of this invocation's platform and configuration,
        relative to the root (``etsb-out/host-default``); an unknown platform
        or configuration is a UserError."""
        from selective_build.driver.platforms import output_dir

        return output_dir(self.defines)

    # -- repositories ----------------------------------------------------------

    @property
    def main_names(self) -> tuple[str, ...]:
        """The repository names that mean this workspace: ``etsb`` inside etsb's
        checkout, or a workspace holding a copy of etsb's rules and runtime."""
        if os.path.realpath(self.root) == os.path.realpath(state.REPO) or all(
                os.path.isfile(os.path.join(self.root, part)) for part in ETSB_PARTS):
            return ("etsb",)
        return ()

    def repositories(self) -> tuple[Repository, ...]:
        """The external repositories labels may name: the ExecuTorch tree, etsb's (unless
        this workspace is etsb), and the folder of etsb's rules that is ``@etsb_shim`` in
        this dialect (its own, through which etsb's rules load this build system's shim only)."""
        found = []
        if self.executorch_tree and os.path.isdir(self.executorch_tree):
            found.append(Repository("executorch", self.executorch_tree, EXECUTORCH_OVERLAY))
        cmsis_nn = state.cmsis_nn_tree(self.executorch_tree)
        if cmsis_nn and os.path.isdir(cmsis_nn):
            found.append(Repository("cmsis_nn", cmsis_nn, CMSIS_NN_OVERLAY))
        if not self.main_names:
            found.append(Repository("etsb", state.REPO))
        etsb = self.root if self.main_names else state.REPO
        found.append(Repository(SHIM_REPOSITORY, os.path.join(etsb, SHIM_FOLDERS[self.dialect])))
        return tuple(found)

    @property
    def external_dir(self) -> str:
        """Where the repositories' trees are linked, relative to the root: the driver's
        etsb-out/external, or an emulated build system's own (its ``@etsb_shim`` differs)."""
        return EXTERNAL_DIR if self.dialect == DRIVER_DIALECT else f"{EMULATE_DIR}/{self.dialect}/{EXTERNAL}"

    def missing_repositories(self) -> dict[str, str]:
        """Why a repository that labels may name is not there, by name."""
        cmsis_nn = state.cmsis_nn_tree(self.executorch_tree)
        missing = {"cmsis_nn": (f"the CMSIS-NN source tree given ({cmsis_nn}, from {state.CMSIS_NN_VARIABLE}) is "
                                "not a directory") if cmsis_nn else
                   (f"give a CMSIS-NN source tree (ExecuTorch's Cortex-M kernels call it) with "
                    f"{state.CMSIS_NN_VARIABLE}=DIR, or keep it as '{state.CMSIS_NN_BESIDE_TREE}' beside the "
                    "ExecuTorch tree")}
        missing["executorch"] = (f"the ExecuTorch source tree given ({self.executorch_tree}, from --executorch-root, "
                                 "EXECUTORCH_ROOT or .etsbrc) is not a directory") if self.executorch_tree else (
            "give an ExecuTorch source tree with --executorch-root DIR, EXECUTORCH_ROOT, a line "
            "'common --executorch-root=DIR' in the workspace's .etsbrc, or the snapshot beside the checkout "
            f"(the workspace's {state.SNAPSHOT_BESIDE})")
        return missing

    def link_repositories(self) -> None:
        """Link each external repository's tree at etsb-out/external/NAME (``external_dir``),
        where actions read it by a path that is the same on every machine (and warn
        when the ExecuTorch tree is not of the installed runtime's version)."""
        for repository in self.repositories():
            if repository.name == "executorch":
                from selective_build.driver.tree_version import version_mismatch

                warning = version_mismatch(repository.tree, state.executorch_runtime())
                if warning:
                    print(f"etsb: warning: {warning}", file=sys.stderr)
            link = os.path.join(self.root, self.external_dir, repository.name)
            if os.path.islink(link) and os.readlink(link) == repository.tree:
                continue
            os.makedirs(os.path.dirname(link), exist_ok=True)
            temporary = f"{link}.{os.getpid()}.tmp"
            os.symlink(repository.tree, temporary)
            os.replace(temporary, link)

    def build_file_place(self, package: str) -> tuple[str, tuple[str, ...]] | None:
        """The directory holding ``package``'s BUILD file and the names it may
        have (an overlay's are BUILD.overlay); None for a package of a
        repository this invocation does not know."""
        external = split_external(package)
        if external is None:
            return os.path.join(self.root, package), BUILD_FILES
        repository = next((r for r in self.repositories() if r.name == external[0]), None)
        if repository is None:
            return None
        if repository.overlay:
            return os.path.join(repository.overlay, external[1]), (OVERLAY_BUILD_FILE,)
        return os.path.join(repository.tree, external[1]), BUILD_FILES

    def is_package(self, package: str) -> bool:
        """Whether ``package`` has a BUILD file."""
        place = self.build_file_place(package)
        return place is not None and any(os.path.isfile(os.path.join(place[0], name)) for name in place[1])

    # -- configuration ---------------------------------------------------------

    def make_variables(self) -> dict[str, str]:
        """The make variables commands and flags may use."""
        executorch = state.executorch_runtime()
        if executorch is None:
            raise UserError("the executorch runtime wheel is not installed in this Python: run scripts/setup.sh")
        # The runtime built from the ExecuTorch tree (`@executorch//:runtime`) needs FlatBuffers,
        # and names the tree as an include root: both absolute, as the wheel's place is.
        flatbuffers = state.flatbuffers_package()
        return {
            "ETSB_PYTHON": sys.executable,
            "EXECUTORCH_RUNTIME": executorch,
            "EXTERNAL_ROOT": os.path.join(self.root, EXTERNAL_DIR),
            **({"FLATBUFFERS": flatbuffers} if flatbuffers else {}),
            **{k: v for k, v in self.defines.items()},
        }

    def config(self):
        """The analysis configuration of this invocation."""
        from selective_build.driver.analysis import Config

        from selective_build.driver.platforms import compile_launcher, precompiled_headers_on, toolchain

        root = self.root
        tool = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "__main__.py")
        chosen = toolchain(self.defines, os.environ.get("CXX", "g++"))
        return Config(self.make_variables(), dict(self.defines), chosen.cxx,
                      lambda path: os.path.isfile(os.path.join(root, path)),
                      (sys.executable, os.path.relpath(tool, root)), self.main_names,
                      tuple(r.name for r in self.repositories()), self.missing_repositories(),
                      chosen.compile_flags, chosen.link_flags, chosen.ar, compile_launcher(), precompiled_headers_on(),
                      self.folder)

    # -- patterns --------------------------------------------------------------

    def patterns(self, texts: Sequence[str]) -> list[Pattern]:
        """Command-line target patterns, parsed."""
        result = []
        for text in texts:
            try:
                result.append(parse_pattern(text, self.cwd_package))
            except LabelError as error:
                raise UserError(str(error), CommandLine(text)) from None
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
                if not self.is_package(pattern.package):
                    place = self.build_file_place(pattern.package)
                    where = place[0] if place else "a repository this invocation does not know"
                    raise UserError(f"no such package '{package_label(pattern.package)}' (no BUILD file in {where})")
                packages.add(pattern.package)
        return sorted(packages)

    # -- evaluation ------------------------------------------------------------

    def evaluate(self, packages: Iterable[str]):
        """Evaluate ``packages`` and every package their labels reach."""
        from selective_build.driver.evaluate import evaluate
        from selective_build.driver.attr_values import referenced_packages

        self.link_repositories()
        flags = self.evaluator_flags()
        evaluated = {}
        wanted = set(packages)
        while wanted:
            batch = sorted(p for p in wanted if p not in evaluated and self.is_package(p))
            wanted = set()
            for name, package in evaluate(self.root, batch, flags, self.external_dir).items():
                evaluated[name] = package
                wanted |= {p for p in referenced_packages(package, self.main_names) if p not in evaluated}
        return evaluated

    def evaluator_flags(self) -> list[str]:
        """The evaluator's options naming the repositories and the prelude."""
        # Another build system's BUILD files see its own prelude, not etsb's.
        dialect = [f"--prelude={PRELUDE}"] if self.dialect == DRIVER_DIALECT else [f"--emulate={self.dialect}"]
        flags = ["--external-dir", self.external_dir, *dialect] + [f"--main-name={name}" for name in self.main_names]
        for repository in self.repositories():
            overlay = repository.overlay
            if overlay and os.path.commonpath([overlay, self.root]) == self.root:
                overlay = os.path.relpath(overlay, self.root)
            flags.append(f"--repository={repository.name}={overlay}")
        return flags

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
        key = state.plan_key(self.root, self.cwd_package, texts, self.defines, self.executorch_tree)
        folder = self.folder
        saved = state.load_state(self.root, folder)
        plan, renewed = state.current_plan(saved, self.root, folder, key)
        if plan is None:
            return self._plan_afresh(patterns, packages_wanted, key, saved)
        sources = freshness.refresh_sealed(self.root, saved["sources"])
        if sources is not None:
            saved["sources"] = sources
        if sources is not None or renewed:
            state.save_state(self.root, folder, saved)
        return plan

    def _plan_afresh(self, patterns: Sequence[Pattern], packages_wanted: Sequence[str], key: dict,
                     previous: dict | None) -> Plan:
        from selective_build.driver import ninja
        from selective_build.driver.analysis import source_files
        from selective_build.driver.graph import analyse
        from selective_build.readers.files import write_text_atomic

        listed = state.package_listings(self.root)  # before evaluating: a package added meanwhile plans again
        packages = self.evaluate(packages_wanted)
        config = self.config()
        labels, notes = self._leave_out_what_is_missing(packages, patterns, config)
        graph = analyse(packages, labels, config)
        sources = source_files(graph.actions)
        # The digests first: the ninja file names every source's stamp.
        known = freshness.unseal(previous["sources"]) if previous else {}
        records = {source: known[source] for source in sources if source in known}
        freshness.refresh(self.root, sources, records)
        phonies = {str(label): node.outputs for label, node in graph.nodes.items()}
        where = {str(label): str(node.target.location) for label, node in graph.nodes.items()}
        write_text_atomic(os.path.join(self.root, ninja_file(config.out)),
                          ninja.render(graph.actions, phonies, set(sources), freshness.stamp_path, where, config.out))
        plan = Plan(tuple(ninja.target_name(str(label)) for label in labels),
                    tuple(_planned(label, graph.nodes, self.main_names) for label in labels), notes)
        files = {f for p in packages.values() for f in (*p.files, p.build_file)}
        dirs = {d for p in packages.values() for d in p.glob_dirs}
        state.save_state(self.root, config.out,
                         state.make_state(self.root, config.out, key, listed, files | dirs, plan, records))
        return plan

    def _leave_out_what_is_missing(self, packages, patterns: Sequence[Pattern], config) -> tuple[list, tuple]:
        """The labels the patterns select, less those only a wildcard selected
        that need a repository this build does not have; the note saying so."""
        from selective_build.driver.left_out import configured_needing, left_out, left_out_note

        labels = self.matching(packages, patterns)
        missing = {name: why for name, why in (config.missing or {}).items() if name not in config.repositories}
        if not missing:
            return labels, ()
        dropped = left_out(labels, patterns, configured_needing(packages, missing, config))
        gone = {label for label, _ in dropped}
        return [label for label in labels if str(label) not in gone], tuple(left_out_note(dropped, missing))

    def build(self, texts: Sequence[str], jobs: int | None = None, quiet: bool = False,
              progress=None) -> tuple[int, Plan]:
        """Build what ``texts`` name, holding the lock (progress on ``progress``, or stdout); ninja's status, the plan."""
        ninja = find_ninja()
        if ninja is None:
            raise UserError("ninja is not installed: run scripts/setup.sh (Debian package ninja-build)")
        with WorkspaceLock(self.root):
            plan = self.plan(texts)
            folder = self.folder
            point_bin_link(self.root, folder)
            status = run_ninja(self.root, ninja, folder, plan.ninja_targets, jobs, quiet, progress) \
                if plan.ninja_targets else 0
        return status, plan

    def clean(self) -> None:
        """Remove every build output, of every platform and configuration (the
        set-up's tools under etsb-out/tools stay)."""
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


def _planned(label: Label, nodes, main_names: tuple[str, ...]) -> PlannedTarget:
    """What the plan keeps of a requested target (``nodes``: the analysed graph's)."""
    from selective_build.driver.labels import parse_label
    from selective_build.driver.link import runner_kind

    node = nodes[label]
    target = node.target
    companion = next((str(parse_label(tag[len(TAG_ALL_KERNELS):], label.package))
                      for tag in target.tags if tag.startswith(TAG_ALL_KERNELS)), "")
    binary = target.rule == "cxx_binary" or TAG_BINARY in target.tags
    runner = runner_kind(nodes, label, main_names) if binary else ""
    return PlannedTarget(str(label), target.rule, tuple(node.outputs), companion, binary, runner)
