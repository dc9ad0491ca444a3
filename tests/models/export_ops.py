"""Export a corpus of single-operator ExecuTorch programs, one per operator.

Run in the export environment (torch==2.13.0 with the full executorch==1.5.1),
which ``scripts/setup.sh --export-env`` creates; ``scripts/export_ops.sh`` does
both.  With no arguments every operator of the case table is exported;
otherwise the ones named, either as ExecuTorch spells them (``aten::cat.out``)
or by their directory (``aten_cat_out``).  ``--list`` prints the table.

Where things are
----------------
* ``ops_cases/``: the case table, one module per operator family
  (``ops_cases/__init__.py`` lists them); add an operator or a case there.
* ``ops_export/``: inputs (``inputs``), methods and eager's outputs
  (``methods``), lowering (``lowering``), the run on ExecuTorch's runtime
  (``runtime``), tolerances (``compare``) and the files (``manifest``).
* this script: the command line and the loop over operators.

What is written
---------------
For every operator, in ``tests/models/ops/<dir>/`` where ``<dir>`` is the
operator's name with ``::`` and ``.`` replaced by ``_``:

* ``<dir>.pte``: one multi-method program, one method per case.  Each method is
  a tiny module whose ``forward`` calls ``torch.ops.aten.<op>`` directly, so
  that the operator survives to the edge dialect; the program is lowered with
  ``to_edge`` (``_check_ir_validity=False``, so that dtype validation does not
  refuse unusual dtypes) and ``to_executorch`` (``remove_view_copy=False``, so
  that ``view_copy`` stays a kernel call instead of becoming a memory view).
* ``cases.npz``: for each method ``M``, the arrays ``M.input_<i>`` and
  ``M.output_<i>``: the inputs fed to the program and torch eager's outputs.

and one ``tests/models/ops/manifest.json`` (see Manifest below).

Method names are ``<dtype>_<case>`` (``f32_broadcast``, ``i64_zero_dim``,
``bool_odd``; dtypes ``bool u8 i8 i16 i32 i64 f16 bf16 f32 f64``) for the
cases run once per dtype, and ``mix_<case>`` for mixed-dtype cases (type
promotion: ``mix_i32_f32``, ``mix_u8_i8``, ``mix_bool_i64``,
``mix_f32dim0_i64``...), whose inputs carry their own dtypes.

Array encoding (as etsb's runner reads and writes ``.npy``, tools/runner/npy.h)
-----------------------------------------------------------------------------
``cases.npz`` is a zip (deflated, fixed timestamps so that a re-export is
byte-identical) of ``.npy`` files written by ``numpy.save``, C order,
little-endian.  ``numpy.load`` reads it; each member is a plain ``.npy`` the
runner can be given once extracted.  Dtype by dtype:

==========  ========  ========================================================
ScalarType  ``descr``  notes
==========  ========  ========================================================
Bool        ``|b1``   one byte, 0 or 1
Byte        ``|u1``
Char        ``|i1``
Short       ``<i2``
Int         ``<i4``
Long        ``<i8``
Half        ``<f2``   IEEE binary16, numpy's float16
Float       ``<f4``
Double      ``<f8``
BFloat16    ``<u2``   numpy has no bfloat16: the raw 16-bit patterns (the top
                      half of the float32 bits) stored as uint16; the manifest
                      says ``"dtype": "bfloat16"`` for such arrays
==========  ========  ========================================================

The runner's table (npy.h ``kDtypes``) maps ``<u2`` to ``UInt16``, not to
BFloat16: to feed a BFloat16 input, a caller must reinterpret the ``<u2``
array as BFloat16 (same bytes), and a BFloat16 output it writes must be read
back the same way.  0-dim arrays have shape ``()``; empty ones keep their
shape (e.g. ``(0, 4)``).

Manifest
--------
``manifest.json`` has, per operator (keyed by its ExecuTorch name): ``dir``,
``pte`` and ``npz`` (paths relative to tests/models/ops) with sizes and
SHA-256, ``calls`` (what the module's ``forward`` calls), and ``methods``.
Each method has ``dtype`` (the ScalarType name of the case; for ``mix_``
methods, of the first output), ``case`` and ``description``, ``params`` (the
operator's non-tensor arguments), ``inputs`` and ``outputs`` (``dtype``: the
numpy name or ``bfloat16``; ``scalar_type``; ``shape``; outputs add ``rtol``
and ``atol``), ``tolerance`` (the loosest of its outputs), ``operators`` and
``kernel_keys`` read from the emitted execution plan (``export.describe_plan``),
and ``max_abs_diff_runtime`` and ``executorch_matches`` (ExecuTorch's runtime
against eager at export; null where ExecuTorch's runtime has no kernel for
the operator: such cases are kept, eager being the reference, and listed
under ``not_run_by_executorch``).  ``unsupported_by_torch`` maps a ScalarType name
(every case of that dtype was refused by eager) or a method name (that one
case was) to torch's message; ``skipped`` maps a method name to why ExecuTorch
could not export or run it; ``executorch_mismatch`` maps a method name to how
ExecuTorch's runtime differed from eager.  Each method is one line of the
file.

Tolerances: an output matches when ``|got - expected| <= atol + rtol *
|expected|`` elementwise, NaN matching NaN; integer and Bool outputs must be
equal (rtol = atol = 0).  Floating outputs use
`ops_export.compare.TOLERANCES` by the output's dtype, looser for Half and
BFloat16 (eager computes those in float32 and rounds once; a kernel may round
intermediate values).

Checks
------
Eager is tried on every case: a dtype torch refuses for a case is recorded,
not exported.  Each program is run method by method with ExecuTorch's own
pybindings runtime (``executorch.runtime``), each after a method that fills
the shared memory arena with NaN (so that an output element a kernel never
writes shows; that method is only in a checking copy of the program, see
`ops_export.lowering.lower`), and compared with eager within the tolerance.
A case ExecuTorch cannot export, load or run (or whose outputs it gives in
another dtype or shape) is dropped from the program and recorded under
``skipped``.  A case it runs to values outside the tolerance is kept, because
eager is the reference, and recorded under ``executorch_mismatch``
(``executorch_matches: false`` in the method).  Every method left must call
the target operator (read from the emitted program): if one does not, the case
tests nothing, and that operator's export fails with a message naming the
method and the operators it did call.

What the edge dialect does to these calls (ExecuTorch 1.5.1)
-----------------------------------------------------------
* ``clone`` becomes ``dim_order_ops::_clone_dim_order.out`` and ``.to(dtype)``
  ``dim_order_ops::_to_dim_order_copy.out``.
* ``squeeze_copy.dim`` is decomposed to ``squeeze_copy.dims`` and
  ``arange.default`` to ``arange.start_out``: both are kept with
  ``preserve_ops`` (see `ops_export.lowering.PreservedOps` for the bug that
  needs working round).
* ``view_copy`` becomes a memory view, not a kernel call, unless
  ``remove_view_copy=False``.
* ``empty`` becomes ``dim_order_ops::_empty_dim_order.out`` unless lowered
  with ``_skip_dim_order``; ``logit``, ``glu``, ``fill``, ``zeros`` and
  ``ones`` are decomposed unless kept with ``preserve_ops``.
* ``unsqueeze_copy``, ``squeeze_copy.dims``, ``alias_copy``, ``expand_copy``
  and ``split_with_sizes_copy`` get a ``_clone_dim_order`` after them when
  their result is the method's output.
* ``RemoveMixedTypeOperators`` casts the operands of ``add``, ``sub``,
  ``mul``, ``div`` (both overloads) and ``minimum`` to the promoted dtype with
  ``_to_dim_order_copy``: their ``mix_`` methods, and ``div.Tensor`` on
  integers (cast to float), call the kernel with one dtype only.  The other
  binary operators, ``where``, ``clamp.Tensor``, ``cat`` and ``copy`` receive
  mixed dtypes.

Inputs are random from a fixed per-case seed, in a value domain valid for the
operator (positive for ``log``/``sqrt``/``rsqrt``, non-zero divisors,
in-range indices, distinct values where ties would make ``argmax`` or
max-pool indices ambiguous).  Eager runs on one thread.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent
OUT_DIR = ROOT / "ops"
# etsb's own package is pure Python: the export environment uses it from source
# for file writing; export.py's reader of the emitted plan is shared.
sys.path.insert(0, str(ROOT.parent.parent / "tools"))
sys.path.insert(0, str(ROOT))
from export import describe_plan
from ops_cases import build_ops
from ops_cases.vocabulary import DTYPE_NAMES, Op, scalar_type_name
from ops_export.compare import TOLERANCE_RULE, TOLERANCES
from ops_export.lowering import build_program
from ops_export.manifest import MANIFEST_VERSION, manifest_text, method_entry, npz_bytes, sha256, to_numpy
from ops_export.methods import Method, eager_outputs, plan_methods
from selective_build.readers.files import write_bytes_atomic

SIZE_BUDGET = 12 * 2**20  # as tests/test_op_corpus.py: the whole portable set


class TargetMissing(Exception):
    """Methods of an operator's program that do not call the operator."""


def method_plans(op: Op, program, methods: list[Method]) -> dict[str, dict]:
    """Operators and kernel keys of each method, read from the emitted plan;
    raises TargetMissing when a method does not call the target operator."""
    plans = {plan.name: plan for plan in program.executorch_program.execution_plan}
    described = {m.name: describe_plan(plans[m.name]) for m in methods}
    missing = {name: d["operators"] for name, d in described.items() if op.name not in d["operators"]}
    if missing:
        lines = "\n".join(f"  {name}: calls {ops or 'no kernel'}" for name, ops in sorted(missing.items()))
        raise TargetMissing(f"{op.name}: {len(missing)} method(s) do not call the operator, so they "
                            f"test nothing:\n{lines}")
    return described


def export_op(op: Op, out_dir: Path) -> dict:
    """Export, check and write one operator; return its manifest entry."""
    methods, unsupported = eager_outputs(op, plan_methods(op))
    program, kept, check, skipped = build_program(op, methods)
    entry = {"dir": op.dir, "calls": op.calls, "unsupported_by_torch": unsupported,
             "skipped": dict(sorted(skipped.items())), "executorch_mismatch": check.mismatches,
             "not_run_by_executorch": dict(sorted(check.unrun.items())),
             "methods": {}, "pte": None, "npz": None}
    if program is None:
        return entry
    described = method_plans(op, program, kept)
    arrays = {}
    for method in kept:
        for kind, tensors in (("input", method.inputs), ("output", method.outputs)):
            for i, tensor in enumerate(tensors):
                arrays[f"{method.name}.{kind}_{i}"] = to_numpy(tensor)
        entry["methods"][method.name] = method_entry(method, described[method.name], check)
    buffer, npz = program.buffer, npz_bytes(arrays)
    write_bytes_atomic(out_dir / op.dir / f"{op.dir}.pte", buffer)
    write_bytes_atomic(out_dir / op.dir / "cases.npz", npz)
    entry.update({
        "pte": f"{op.dir}/{op.dir}.pte", "pte_size": len(buffer), "pte_sha256": sha256(buffer),
        "npz": f"{op.dir}/cases.npz", "npz_size": len(npz), "npz_sha256": sha256(npz),
    })
    return entry


def _versions() -> dict[str, str]:
    from executorch.version import __version__ as executorch_version

    return {"torch": torch.__version__.split("+")[0], "executorch": executorch_version.split("+")[0]}


def _quiet_known_warnings() -> None:
    """Silence ExecuTorch's use of a deprecated pytree API, which would bury
    the per-operator summary."""
    warnings.filterwarnings("ignore", message=r".*isinstance\(treespec, LeafSpec\)", category=FutureWarning)


def select_ops(ops: list[Op], wanted: list[str], parser: argparse.ArgumentParser) -> list[Op]:
    """The operators named (by ExecuTorch name or directory), or all."""
    if not wanted:
        return ops
    known = {op.name: op for op in ops} | {op.dir: op for op in ops}
    unknown = [name for name in wanted if name not in known]
    if unknown:
        parser.error(f"unknown operator(s): {', '.join(unknown)} (see --list)")
    return list({known[name].name: known[name] for name in wanted}.values())


def directory_size(path: Path) -> int:
    """Bytes of all files under ``path``."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def summary_line(name: str, entry: dict, seconds: float) -> str:
    """One progress line per operator."""
    refused = ",".join(k for k in entry["unsupported_by_torch"] if k in DTYPE_NAMES) or "-"
    return (f"{name:48s} {len(entry['methods']):3d} methods  {len(entry['skipped']):2d} skipped  "
            f"{len(entry['executorch_mismatch']):2d} mismatched  "
            f"torch refuses: {refused}  {seconds:5.1f} s")


def main(argv: list[str] | None = None) -> int:
    """Export the operators named on the command line (default: all)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ops", nargs="*", help="operators to export, e.g. aten::cat.out or aten_cat_out "
                        "(default: all)")
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="output directory")
    parser.add_argument("--list", action="store_true", help="list the operators and their cases, then exit")
    args = parser.parse_args(argv)

    ops = build_ops()
    if args.list:
        for op in ops:
            print(f"{op.name:48s} {op.dir:48s} {' '.join(c.name for c in op.cases)}")
        return 0
    selected = select_ops(ops, args.ops, parser)
    torch.set_num_threads(1)
    _quiet_known_warnings()

    manifest_path = args.out / "manifest.json"
    manifest = {"operators": {}}
    if args.ops and manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
    manifest.update({"version": MANIFEST_VERSION, "generator": _versions(), "tolerance_rule": TOLERANCE_RULE,
                     "tolerances": {scalar_type_name(d): {"rtol": r, "atol": a}
                                    for d, (r, a) in TOLERANCES.items()}})
    problems = []
    for op in selected:
        start = time.monotonic()
        try:
            entry = export_op(op, args.out)
        except TargetMissing as error:
            problems.append(str(error))
            print(f"{op.name:48s} FAILED: a method does not call it", file=sys.stderr, flush=True)
            continue
        manifest["operators"][op.name] = entry
        print(summary_line(op.name, entry, time.monotonic() - start), file=sys.stderr, flush=True)
    manifest["operators"] = dict(sorted(manifest["operators"].items()))
    write_bytes_atomic(manifest_path, manifest_text(manifest).encode())

    entries = manifest["operators"].values()
    total = directory_size(args.out)
    print(f"{len(manifest['operators'])} operators, {sum(len(e['methods']) for e in entries)} methods, "
          f"{sum(len(e['skipped']) for e in entries)} skipped; {args.out} holds {total / 2**20:.2f} MB",
          file=sys.stderr)
    if total > SIZE_BUDGET:
        problems.append(f"{args.out} holds {total} bytes, over the {SIZE_BUDGET}-byte budget")
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
