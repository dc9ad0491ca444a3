"""A build plan: what ``etsb build`` asks ninja for, and what the requested
targets are. Kept between runs (as plain data, see :func:`to_data`) so that a
no-op build reuses it without evaluating or analysing anything."""

from __future__ import annotations

from selective_build.model.records import record


@record
class PlannedTarget:
    """A requested target: its label, rule, output files, the label of its
    all-kernels companion (``""`` when it has none), whether it is a binary,
    and how its runner gets its program (``layout.DEVELOPMENT_RUNNER``,
    ``DEPLOY_FROM_FILE`` or ``DEPLOY_EMBEDDED``)."""

    label: str
    rule: str
    outputs: tuple[str, ...]
    companion: str = ""
    binary: bool = False
    runner: str = ""


@record
class Plan:
    """The ninja targets to build, the requested targets (sorted by label), and
    the notes a build prints (targets a pattern left out, and why)."""

    ninja_targets: tuple[str, ...]
    targets: tuple[PlannedTarget, ...]
    notes: tuple[str, ...] = ()

    def target(self, label: str) -> PlannedTarget | None:
        """The requested target ``label``, if any."""
        return next((t for t in self.targets if t.label == label), None)

    @property
    def binaries(self) -> tuple[PlannedTarget, ...]:
        """The requested targets that are binaries."""
        return tuple(t for t in self.targets if t.binary)


def to_data(plan: Plan) -> tuple:
    """The plan as builtin values only (tuples, strings, bools), for ``marshal``."""
    return (tuple(plan.ninja_targets), tuple(tuple(target) for target in plan.targets), tuple(plan.notes))


def from_data(data: tuple) -> Plan:
    """The plan :func:`to_data` gave ``data`` for."""
    ninja_targets, targets, notes = data
    return Plan(tuple(ninja_targets), tuple(PlannedTarget(*fields) for fields in targets), tuple(notes))
