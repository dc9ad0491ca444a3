"""bench/bench_profile.py's join of the runner's --profile files with the
program (bench/lib/profiles.py), on hand-made profiles of corpus programs:
each instruction's operator, shapes and FLOPs beside its time, the sums by
operator and kind, the convolution shapes, bad files named, and the chart a
well-formed SVG."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from conftest import MODELS_DIR, REPO

sys.path.insert(0, str(REPO / "bench"))
from lib.charts import share_chart  # noqa: E402
from lib.profiles import category, conv_shape, grouped, instructions, join, read_profile  # noqa: E402

MLP = MODELS_DIR / "mlp" / "mlp.pte"
CNN = MODELS_DIR / "cnn" / "cnn.pte"


def profile_file(path: Path, runs: int, entries: list[tuple], changes: dict | None = None) -> Path:
    """A profile as the runner writes it: (chain, index, kind, calls, ns) per
    instruction, its top-level entries replaced by ``changes``."""
    data = {"format": "etsb-profile-1", "method": "forward", "runs": runs, "traced": True,
            "run": {"calls": runs, "ns": 10**6, "min_ns": 1}, "execute": {"calls": runs, "ns": 9 * 10**5, "min_ns": 1},
            "instructions": [{"chain": c, "index": i, "kind": k, "calls": n, "ns": ns, "min_ns": ns // n // 2}
                             for c, i, k, n, ns in entries]}
    path.write_text(json.dumps({**data, **(changes or {})}))
    return path


def test_each_instruction_is_joined_with_its_operator_shapes_and_flops(tmp_path):
    """The MLP's five kernel calls: time per run is the median over the
    profiles of ns / runs; addmm's FLOPs come from its planned shapes."""
    entries = [(0, i, "operator", 4, 400 * (i + 1)) for i in range(5)]
    profiles = [read_profile(profile_file(tmp_path / "a.json", 4, entries)),
                read_profile(profile_file(tmp_path / "b.json", 2, [(c, i, k, n // 2, ns) for c, i, k, n, ns in entries]))]
    rows = join(profiles, instructions(MLP), "mlp")
    assert [r.operator for r in rows] == ["aten::permute_copy.out", "aten::addmm.out", "aten::relu.out",
                                         "aten::permute_copy.out", "aten::addmm.out"]
    assert [r.calls for r in rows] == [1] * 5
    # Per run: 400*(i+1)/4 in one profile, 400*(i+1)/2 in the other; the median of two is their mean.
    assert [r.ns for r in rows] == [(100 + 200) * (i + 1) / 2 for i in range(5)]
    assert rows[1].arguments[1:3] == ((2, 8), (8, 16)) and rows[1].flops == 2 * 2 * 8 * 16
    assert rows[4].flops == 2 * 2 * 16 * 4 and rows[0].flops == 0
    by_operator = grouped(rows, lambda r: r.operator)
    assert [(s.name, s.calls, s.ns, s.flops) for s in by_operator] == [
        ("aten::addmm.out", 2, 300 + 750, 2 * 2 * 8 * 16 + 2 * 2 * 16 * 4),
        ("aten::permute_copy.out", 2, 150 + 600, 0), ("aten::relu.out", 1, 450, 0)]
    assert [s.name for s in grouped(rows, lambda r: category(r.operator))] == [
        "matrix product", "copy, layout", "activation"]


def test_convolution_shapes_and_kinds():
    """A convolution is named by its input, weight, stride, padding and groups; operators fall into kinds."""
    profile_rows = join([read_profile_from(CNN)], instructions(CNN), "cnn")
    conv = next(r for r in profile_rows if r.operator == "aten::convolution.out")
    assert conv_shape(conv) == "1x1x8x8 * 4x1x3x3 s1 p1"
    assert conv.flops == 2 * (1 * 4 * 8 * 8) * (1 * 3 * 3)
    assert [category(o) for o in ("aten::convolution.out", "aten::_native_batch_norm_legit_no_training.out",
                                  "aten::max_pool2d_with_indices.out", "aten::gelu.out", "aten::view_copy.out",
                                  "aten::mean.out", "aten::nonzero.out")] == [
        "convolution", "batch norm", "pooling", "activation", "copy, layout", "pooling", "other"]


def read_profile_from(pte: Path):
    """A profile of one run of every kernel call of ``pte`` (in a temporary file)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        entries = [(i.chain, i.index, "operator", 1, 1000) for i in instructions(pte)]
        return read_profile(profile_file(Path(tmp) / "p.json", 1, entries))


@pytest.mark.parametrize("entries, changes, message", [
    ([(0, 9, "operator", 1, 10)], {}, "mlp: the profile's operator at chain 0, index 9 is not in the program"),
    ([(0, 1, "delegate", 1, 10)], {},
     "mlp: the profile's delegate at chain 0, index 1 is not in the program (it holds a operator)"),
    ([], {"format": "other"}, "not a profile (format 'etsb-profile-1' expected)"),
    ([], {"runs": 0}, "'runs' (>= 1) or 'instructions' (a list) is missing"),
    ([(0, 1, "kernel", 1, 10)], {}, "instruction 0: needs a chain, an index and a kind"),
    ([], {"run": {"calls": 1}}, "'run' is not a {calls, ns, min_ns} of whole numbers"),
])
def test_bad_profiles_are_named(tmp_path, entries, changes, message):
    """A profile that is not one, or does not match the program, exits naming the file or model and what is wrong."""
    path = profile_file(tmp_path / "p.json", 1, entries, changes)
    with pytest.raises(SystemExit) as raised:
        join([read_profile(path)], instructions(MLP), "mlp")
    assert message in str(raised.value), raised.value
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(SystemExit, match=f"{tmp_path}/broken.json: not a profile"):
        read_profile(tmp_path / "broken.json")


def test_the_chart_is_a_well_formed_svg_of_every_row():
    """One bar per model, one rectangle per kind it spends time in, the shares printed where they fit."""
    colours = [("convolution", "#1f77b4"), ("activation", "#2ca02c"), ("other", "#7f7f7f")]
    svg = share_chart("t", [("resnet", "3.1 ms", [("convolution", 0.8), ("activation", 0.2)]),
                            ("mlp", "0.01 ms", [("other", 1.0)])], colours, "note")
    root = ElementTree.fromstring(svg)
    titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
    assert titles == ["convolution 80%", "activation 20%", "other 100%"]
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert {"resnet", "mlp", "3.1 ms", "80%", "20%", "100%", "note"} <= set(texts)
