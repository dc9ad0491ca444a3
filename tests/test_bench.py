"""The benchmarks' layout, read from their source (parsed, never run): bench
scripts share bench/lib/ and never import each other; each says what it
measures and how to run it; functions stay short, public ones documented;
each bench writes bench/results/<name>.md (bench_models.py: one file per set,
<name>_<set>.md), and bench/README.md links every one of them; the files
benches compile or write are in bench/lib/files."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import lib.models as bench_models_lib  # noqa: E402
from lib.models import STEP_SLACK, load_decoders, quantized_models, step_atol  # noqa: E402
from lib.rounds import Generated, parse_tokens, tokens_per_second  # noqa: E402

BENCH = Path(__file__).resolve().parent.parent / "bench"
SCRIPTS = sorted(BENCH.glob("*.py"))
BENCHES = [path for path in SCRIPTS if path.name.startswith("bench_")]
LIB = sorted((BENCH / "lib").glob("*.py"))


def imported(tree: ast.Module) -> set[str]:
    """The top-level names of every module a source imports."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def results_names(path: Path) -> list[str]:
    """The results files a bench writes: bench_models.py one per key of its SETS, any other one of its name."""
    if path.stem != "bench_models":
        return [path.stem]
    tree = ast.parse(path.read_text())
    sets = next(node.value for node in tree.body if isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "SETS" for t in node.targets))
    assert isinstance(sets, ast.Dict) and sets.keys, "bench_models.py: SETS should be a literal dict of the sets"
    return [f"{path.stem}_{key.value}" for key in sets.keys]


def test_there_are_benches_and_a_shared_library():
    assert len(BENCHES) >= 6 and LIB, (BENCHES, LIB)
    assert (BENCH / "bench_models.py") in BENCHES, "the model benchmarks are one script, bench_models.py"


@pytest.mark.parametrize("path", SCRIPTS + LIB, ids=lambda p: str(p.relative_to(BENCH)))
def test_no_bench_script_imports_another(path):
    scripts = {p.stem for p in SCRIPTS} | {"common"}
    wrong = imported(ast.parse(path.read_text())) & scripts
    assert not wrong, f"{path.name} imports the bench scripts {sorted(wrong)}: share code through bench/lib/"


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_every_script_says_what_it_measures_and_how_to_run_it(path):
    doc = ast.get_docstring(ast.parse(path.read_text()))
    assert doc, f"{path.name} has no module docstring"
    first = doc.split("\n\n")[0]
    assert len(first.split()) >= 6, f"{path.name}: the docstring's first paragraph should say what it measures"
    assert re.search(rf"python bench/{re.escape(path.name)}\b", doc), \
        f"{path.name}: the docstring should show how to run it (python bench/{path.name} ...)"


@pytest.mark.parametrize("path", BENCHES, ids=lambda p: p.name)
def test_every_bench_writes_its_results_file(path):
    """Each bench ends in lib.results.finish under its own name, which writes bench/results/<name>.md."""
    tree = ast.parse(path.read_text())
    names = [node.args[0].value for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "finish"
             and node.args and isinstance(node.args[0], ast.Constant)]
    assert names == [path.stem], f"{path.name} should call finish({path.stem!r}, ...) once, not {names}"
    assert "finish" in {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                        and node.module == "lib.results" for alias in node.names}


def test_results_go_to_bench_results():
    env = ast.parse((BENCH / "lib" / "env.py").read_text())
    values = {target.id: ast.unparse(node.value) for node in env.body if isinstance(node, ast.Assign)
              for target in node.targets if isinstance(target, ast.Name)}
    assert values["BENCH"] == "REPO / 'bench'" and values["RESULTS"] == "BENCH / 'results'", values
    results = (BENCH / "lib" / "results.py").read_text()
    assert 'or RESULTS) / f"{name}{suffix}"' in results and 'suffix: str = ".md"' in results
    assert "os.replace(" in results


def test_a_trial_run_writes_its_results_where_etsb_bench_results_says(monkeypatch, tmp_path):
    from lib.results import results_path

    monkeypatch.delenv("ETSB_BENCH_RESULTS", raising=False)
    assert results_path("bench_x") == BENCH / "results" / "bench_x.md"
    monkeypatch.setenv("ETSB_BENCH_RESULTS", str(tmp_path))
    assert results_path("bench_x", ".svg") == tmp_path / "bench_x.svg"


def test_the_readme_links_every_bench_to_its_results():
    readme = (BENCH / "README.md").read_text()
    missing = [name for p in BENCHES for name in results_names(p)
               if not re.search(rf"^\| `{re.escape(p.name)}` \|.*\(results/{name}\.md\)", readme, re.MULTILINE)]
    assert not missing, f"bench/README.md's table has no row linking results/<name>.md for {missing}"
    assert len(readme.splitlines()) < 120, "bench/README.md should stay short: results go to bench/results/"
    for name in (name for p in BENCHES for name in results_names(p)):
        assert (BENCH / "results" / f"{name}.md").exists(), f"no bench/results/{name}.md"


@pytest.mark.parametrize("path", SCRIPTS + LIB, ids=lambda p: str(p.relative_to(BENCH)))
def test_functions_are_short_and_public_ones_say_what_they_do(path):
    tree = ast.parse(path.read_text())
    long = [f"{node.name} ({node.end_lineno - node.lineno + 1} lines)" for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef) and node.end_lineno - node.lineno >= 60]
    assert not long, f"{path.name}: functions over 60 lines: {long}"
    public = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
    public += [sub for node in tree.body if isinstance(node, ast.ClassDef) for sub in node.body
               if isinstance(sub, ast.FunctionDef)]
    missing = [node.name for node in public if not node.name.startswith("_") and not ast.get_docstring(node)]
    assert not missing, f"{path.name}: public functions and classes without a docstring: {missing}"


def test_every_file_in_bench_lib_files_is_used():
    """Sources and templates the benches compile or write live in bench/lib/files, each named by a bench."""
    entries = sorted(path.name for path in (BENCH / "lib" / "files").iterdir())
    sources = "\n".join(path.read_text() for path in SCRIPTS + LIB)
    unused = [name for name in entries if f'"{name}"' not in sources]
    assert entries and not unused, f"bench/lib/files: nothing names {unused}"


def test_the_deploy_results_show_the_size_tests_the_parts_and_the_latency_goal():
    """bench_deploy.py's results: ExecuTorch's size test with etsb's and its CI's flags (and
    all portable operators on the host), the shipped binaries, each binary by part, and the
    x86-64 latency of each model against the 1.5x goal, by wall time and by the method's work."""
    text = (BENCH / "results" / "bench_deploy.md").read_text()
    headings = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert headings == ["ExecuTorch's size test, built here", "Shipped binaries", "By part", "Latency on x86-64"]
    assert "| platform | operators | etsb's size flags | ExecuTorch's CI flags | CI threshold |" in text
    assert re.search(r"^\| host \| all \d+ portable operators \| - \| [\d,]+ \| - \|$", text, re.MULTILINE)
    assert ("| runtime core | prim ops | kernels | registration | runner | model | C/C++ libraries, start-up "
            "| other |") in text
    latency = [line for line in text.splitlines() if line.startswith("| mlp |")]
    assert len(latency) == 1 and re.search(r"\| (met|not met)[^|]*\| [\d,]+ \| [\d,]+ \| [\d.]+x \| (met|not met)",
                                           latency[0]), latency


def test_the_runners_tokens_line_is_read_and_anything_else_is_not():
    assert parse_tokens("noise\ntokens: 5 17 3\n") == (5, 17, 3)
    assert parse_tokens("tokens: 1\ntokens: 2 3") == (2, 3)
    assert parse_tokens("tokens:") == ()
    assert parse_tokens("steps: 3") is None and parse_tokens("tokens: 1 x") is None


def test_tokens_per_second_counts_only_the_time_beyond_the_prompt():
    assert tokens_per_second(16, 10.0, 12.0) == pytest.approx(8000.0)
    assert tokens_per_second(16, 10.0, 10.0) is None and tokens_per_second(16, 10.0, 9.0) is None
    rounds = ((10.0, 12.0), (10.0, 14.0), (10.0, 9.0), (11.0, 12.0))   # 8000, 4000, none, 16000
    assert Generated(10.0, 12.0, rounds).decode_rate(16) == pytest.approx(8000.0)
    assert Generated(10.0, 9.0, ((10.0, 9.0),)).decode_rate(16) is None


def test_the_decoders_are_both_exports_with_the_manifests_prompt_and_continuation():
    decoders = {d.name: d for d in load_decoders(None)}
    assert sorted(decoders) == ["custom", "plain"]
    assert decoders["custom"].custom_ops and not decoders["plain"].custom_ops
    for decoder in decoders.values():
        assert decoder.pte.exists() and len(decoder.prompt) == 8 and len(decoder.expected) == 16
    assert decoders["custom"].operators == 19 and decoders["plain"].operators == 28
    with pytest.raises(SystemExit, match="unknown decoders"):
        load_decoders(["nope"])


def test_the_quantized_programs_are_held_to_one_step_and_only_the_cnn_has_a_twin():
    models, twins = quantized_models(None)
    assert [m.name for m in models] == ["cnn_int8", "embedding_int8_int4", "mlp_dynamic_int8"]
    assert sorted(twins) == ["cnn_int8"] and twins["cnn_int8"].pte.name == "cnn_int8_xnnpack.pte"
    steps = {name: info["quant_step"] for name, info in
             json.loads((REPO / "tests/models/quantized/manifest.json").read_text())["models"].items()}
    assert all(m.rtol == 0 and m.atol == steps[m.name] + STEP_SLACK for m in models)
    assert step_atol({"quant_step": 0.5}) == 0.5 + STEP_SLACK
    assert quantized_models(["mlp_dynamic_int8"])[1] == {}


def fullres_export(root: Path, negative: str = "") -> Path:
    """An export_fullres.py folder pair under ``root`` for one model "net" (``negative``: a number made -1)."""
    for folder, extra in (("real", {"max_abs_diff_fp32_vs_fp64": 2e-6, "max_abs_diff_eager_vs_runtime": 1e-6}),
                          ("delegated", {"tolerance": 3e-5, "delegate_calls": 1})):
        entry = {"pte": "net/net.pte", "operators": [], "inputs": [{"file": "forward.input_0.npy"}],
                 "outputs": [{"file": "forward.output_0.npy"}], **extra}
        entry.update({negative: -1} if negative in entry else {})
        (root / folder / "net").mkdir(parents=True)
        for name, data in (("net.pte", b"pte"), ("forward.input_0.npy", b"in"), ("forward.output_0.npy", b"out")):
            (root / folder / "net" / name).write_bytes(data)
        (root / folder / "manifest.json").write_text(json.dumps({"models": {"net": entry}}))
    return root


def test_the_full_resolution_set_holds_each_program_as_the_real_models_and_its_twin_to_its_tolerance(
        monkeypatch, tmp_path):
    monkeypatch.setattr(bench_models_lib, "FULLRES_DATA", fullres_export(tmp_path))
    programs = bench_models_lib.load_fullres(None)
    [model] = programs.models
    assert (model.name, model.atol, model.rtol, model.pte) == ("net", 10 * 2e-6, 1e-4, tmp_path / "real/net/net.pte")
    twin = programs.delegated["net"]
    assert (twin.atol, twin.rtol, twin.pte, twin.inputs) == (3e-5, 0.0, tmp_path / "delegated/net/net.pte",
                                                             (tmp_path / "delegated/net/forward.input_0.npy",))
    assert programs.cells == {"net": "1/0"}


@pytest.mark.parametrize("damage, message", [
    ("nothing exported", "no full-resolution programs in .*real: export them first with\n    .*export_fullres.py"),
    ("bad json", r"delegated/manifest.json: not an export_fullres.py manifest \(JSONDecodeError"),
    ("no inputs", r"real/manifest.json: not an export_fullres.py manifest \(KeyError: 'inputs'\)"),
    ("negative tolerance", r"delegated/manifest.json: net: tolerance is not a number >= 0"),
    ("missing output", r"real: net/forward.output_0.npy is missing: re-export with"),
    ("other inputs", "net: the delegated and the real model's inputs differ"),
    ("unknown model", r"unknown full-resolution models \['nope'\]; known: net \(see bench/export_fullres.py\)")])
def test_a_bad_full_resolution_export_is_named_with_the_command_that_makes_it(monkeypatch, tmp_path, damage,
                                                                               message):
    root = tmp_path / "fullres"
    if damage != "nothing exported":
        fullres_export(root, "tolerance" if damage == "negative tolerance" else "")
    if damage == "bad json":
        (root / "delegated/manifest.json").write_text("{")
    elif damage == "no inputs":
        (root / "real/manifest.json").write_text(json.dumps({"models": {"net": {"pte": "net/net.pte"}}}))
    elif damage == "missing output":
        (root / "real/net/forward.output_0.npy").unlink()
    elif damage == "other inputs":
        (root / "delegated/net/forward.input_0.npy").write_bytes(b"other")
    monkeypatch.setattr(bench_models_lib, "FULLRES_DATA", root)
    with pytest.raises(SystemExit, match=message):
        bench_models_lib.load_fullres(["nope"] if damage == "unknown model" else None)


def test_the_full_resolution_set_runs_both_sides_at_one_and_two_threads_over_xnnpack(monkeypatch):
    import bench_models

    monkeypatch.setattr(sys, "argv", ["bench_models.py", "--set", "fullres"])
    options = bench_models.parse_options()
    assert (options.sides, options.threads, options.base, options.rounds, options.split_rounds) == (
        ["xnnpack", "ours"], [1, 2], "xnnpack", 5, 3)
    assert bench_models.SETS["fullres"].split and bench_models.SETS["delegated"].split
    assert bench_models.runs(options.sides, options.threads) == [
        ("xnnpack 1t", "xnnpack", 1), ("xnnpack 2t", "xnnpack", 2), ("ours 1t", "ours", 1), ("ours 2t", "ours", 2)]


@pytest.mark.parametrize("argv, message", [
    (["--split-rounds", "-1"], "--split-rounds at least 0"), (["--rounds", "0"], "--rounds must be at least 1"),
    (["--sides", "ours,nope"], r"unknown sides \['nope'\]"), (["--models", "x", "--threads", "one"], None)])
def test_the_model_bench_refuses_bad_options(monkeypatch, capsys, argv, message):
    import bench_models

    monkeypatch.setattr(sys, "argv", ["bench_models.py", "--set", "fullres", *argv])
    with pytest.raises(SystemExit) as raised:
        bench_models.parse_options()
    assert raised.value.code != 0
    text = str(raised.value.code) if message else capsys.readouterr().err
    assert re.search(message or "argument --threads: invalid counts value: 'one'", text), text


def test_the_export_of_the_full_resolution_set_refuses_an_unknown_model_before_importing_torch():
    run = subprocess.run([sys.executable, str(BENCH / "export_fullres.py"), "--models", "resnet18,nope"],
                         capture_output=True, text=True, check=False)
    known = "efficientnet_b0, mobilenet_v2, mobilenet_v3_large, resnet18"
    assert run.returncode == 1 and f"unknown models ['nope']; known: {known}" in run.stderr, run


def test_the_split_by_kind_of_operator_puts_the_costliest_first_with_shares_and_speedups():
    from lib.profiles import Row
    from lib.split import DELEGATE, Split, by_kind, runs_for, split_table

    def row(kind: str, operator: str, ns: float) -> Row:
        return Row(0, 0, kind, operator, (), 1, ns, 0)

    ours = by_kind([row("operator", "aten::convolution.out", 3e6), row("operator", "aten::relu.out", 5e5),
                    row("operator", "aten::convolution.out", 1e6), row("operator", "aten::add.out", 5e5)])
    assert ours == {"convolution": 4.0, "activation": 0.5, "elementwise": 0.5}
    assert by_kind([row("delegate", "XnnpackBackend", 2e6)]) == {DELEGATE: 2.0}
    splits = {"ours 1t": Split(ours, 5.0, 3), "ours 2t": Split({"convolution": 2.0, "activation": 0.5}, 2.5, 3),
              "xnnpack 1t": Split({DELEGATE: 2.0}, 2.0, 3)}
    lines = split_table(splits, ["ours 1t", "ours 2t", "xnnpack 1t", "absent"], [("ours 1t", "ours 2t")]).splitlines()
    assert lines[0] == ("| kind of operator | ours 1t ms | ours 2t ms | xnnpack 1t ms | ours 1t share | ours 2t share "
                        "| xnnpack 1t share | ours 1t/ours 2t |")
    assert lines[2] == "| convolution | 4.00 | 2.00 | - | 80% | 80% | - | 2.00 |"
    assert [line.split(" | ")[0] for line in lines[3:]] == [f"| {DELEGATE}", "| activation", "| elementwise",
                                                            "| all instructions"]
    assert lines[-1] == "| all instructions | 5.00 | 2.50 | 2.00 | 100% | 100% | 100% | 2.00 |"
    assert (runs_for(None), runs_for(1000.0), runs_for(10.0), runs_for(1e-3)) == (3, 3, 30, 200)
