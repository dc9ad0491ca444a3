"""Figures the READMEs and docs quote from bench results files, held to
those files (parsed, nothing run): bench/results/bench_models_delegated.md
against README.md's XNNPACK sentence, bench/README.md's XNNPACK summary and
docs/backends.md's table; bench/results/bench_cortex_m.md against
docs/cortex_m.md's DS-CNN figures; bench/results/bench_deploy.md against the
shipped sizes README.md and docs/deploy.md quote. A new run of the bench that moves a figure fails
here until the prose says what the results say."""

from __future__ import annotations

import re

import pytest

from conftest import REPO

DELEGATED = REPO / "bench" / "results" / "bench_models_delegated.md"


def tables(text: str) -> dict[str, list[dict[str, str]]]:
    """Each markdown table of a results file, under the paragraph before it
    (up to its first '('), as rows of column heading -> cell."""
    found: dict[str, list[dict[str, str]]] = {}
    paragraph, lines = "", text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("|"):
            heading = [cell.strip() for cell in line.strip("|").split("|")]
            rows = []
            index += 2  # the heading and its separator
            while index < len(lines) and lines[index].startswith("|"):
                rows.append(dict(zip(heading, (cell.strip() for cell in lines[index].strip("|").split("|")))))
                index += 1
            found[paragraph.split(" (", 1)[0].strip()] = rows
            continue
        if line.strip():
            paragraph = line
        index += 1
    return found


def summary(text: str, ratio: str) -> tuple[str, str]:
    """The geometric mean and range a results file's summary line gives ``ratio``, as printed."""
    match = re.search(rf"^{re.escape(ratio)}: geometric mean (\S+x), range (\S+x) over", text, re.M)
    assert match, f"{DELEGATED.name}: no summary line for {ratio}"
    return match.group(1), match.group(2)


def prose(path) -> str:
    """A markdown file's text with its line breaks as spaces (sentences wrap anywhere)."""
    return re.sub(r"\s+", " ", path.read_text())


@pytest.fixture(scope="module")
def delegated() -> str:
    return DELEGATED.read_text()


def test_the_readme_quotes_the_delegated_ratios(delegated):
    ours_mean, ours_range = summary(delegated, "ours 1t/xnnpack 1t")
    optimized_mean, optimized_range = summary(delegated, "optimized 1t/xnnpack 1t")
    quoted = (f"etsb's portable kernels take {ours_range} XNNPACK's time on the delegated models (geometric mean "
              f"{ours_mean}), ExecuTorch's prebuilt optimized kernels {optimized_range} (geometric mean "
              f"{optimized_mean})")
    assert quoted in prose(REPO / "README.md"), f"README.md should say, as {DELEGATED.name} does: {quoted}"


def test_the_bench_readme_quotes_the_delegated_means_and_sizes(delegated):
    ours_mean, _ = summary(delegated, "ours 1t/xnnpack 1t")
    optimized_mean, _ = summary(delegated, "optimized 1t/xnnpack 1t")
    found = tables(delegated)
    xnnpack = {row["program"]: float(row["total KB"].replace(",", ""))
               for row in found["Size of the xnnpack binaries"]}
    ours = {row["program"]: float(row["total KB"].replace(",", "")) for row in found["Size of the ours binaries"]}
    ratios = [xnnpack[program] / ours[program] for program in xnnpack]
    quoted = (f"etsb + XNNPACK {ours_mean} faster than etsb portable and {optimized_mean} faster than ExecuTorch "
              f"optimized on one thread (geometric means), at {min(ratios):.1f}-{max(ratios):.1f}x the portable "
              "binary's size")
    assert quoted in prose(REPO / "bench" / "README.md"), f"bench/README.md should say: {quoted}"
    # The per-model ratios of its where-the-time-goes summary too.
    latency = {row["program"]: row["ours 1t/xnnpack 1t"].split()[0] for row in found["Latency, 1 thread(s)"]}
    sentence = re.search(r"Against etsb \+ XNNPACK .*?geometric mean (\S+x) .*?: ((?:\w+ [\d.]+x, )+\w+ [\d.]+x)",
                         prose(REPO / "bench" / "README.md"))
    assert sentence and sentence.group(1) == ours_mean
    assert dict(reversed(item.split()) for item in sentence.group(2).split(", ")) == {
        ratio: program for program, ratio in latency.items()}


def test_the_backends_table_is_the_results(delegated):
    found = tables(delegated)
    latency = {row["program"]: row for row in found["Latency, 1 thread(s)"]}
    xnnpack = {row["program"]: row["total KB"] for row in found["Size of the xnnpack binaries"]}
    ours = {row["program"]: row["total KB"] for row in found["Size of the ours binaries"]}
    docs = tables((REPO / "docs" / "backends.md").read_text())
    rows = next(rows for rows in docs.values() if rows and "etsb + XNNPACK" in rows[0])
    assert sorted(row["model"] for row in rows) == sorted(latency)
    for row in rows:
        measured = latency[row["model"]]
        ratio = lambda side: measured[f"{side} 1t/xnnpack 1t"].split()[0]  # noqa: E731
        assert row == {"model": row["model"], "etsb + XNNPACK": f"{measured['xnnpack 1t ms']} ms",
                       "etsb portable": f"{measured['ours 1t ms']} ms ({ratio('ours')})",
                       "ExecuTorch optimized": f"{measured['optimized 1t ms']} ms ({ratio('optimized')})",
                       "size with XNNPACK": f"{xnnpack[row['model']]} KB",
                       "size portable": f"{ours[row['model']]} KB"}, f"docs/backends.md's row of {row['model']}"



def test_the_cortex_m_guide_quotes_the_ds_cnn_figures():
    """docs/cortex_m.md's DS-CNN instructions table and its flash and RAM
    sentence are bench/results/bench_cortex_m.md's."""
    found = tables((REPO / "bench" / "results" / "bench_cortex_m.md").read_text())
    sizes = {row["board"]: row for row in found["## Flash and RAM per board"] if row["model"] == "ds_cnn"}
    speed = {row["board"]: row for row in found["## Instructions per inference"] if row["model"] == "ds_cnn"}
    guide = (REPO / "docs" / "cortex_m.md").read_text()
    rows = next(rows for rows in tables(guide).values() if rows and "portable / CMSIS-NN" in rows[0])
    assert {row["board"]: (row["CMSIS-NN (`cortex_m::`, etsb)"], row["portable / CMSIS-NN"].rstrip("x"))
            for row in rows} == {board: (row["etsb instructions"], f"{float(row['portable / etsb'][:-1]):.1f}")
                                 for board, row in speed.items()}
    m55, m4, m33 = (sizes[board] for board in ("cortex-m55", "cortex-m4", "cortex-m33"))
    quoted = (f"{m55['etsb flash']} B and {m55['etsb RAM']} B on the Cortex-M55 (the goal: 96 KB and 48 KB), "
              f"{m4['etsb flash']} B and {m4['etsb RAM']} B on the Cortex-M4, {m33['etsb flash']} B and "
              f"{m33['etsb RAM']} B on the Cortex-M33")
    assert quoted in re.sub(r"\s+", " ", guide), f"docs/cortex_m.md should say: {quoted}"


def test_the_shipped_sizes_quoted_are_the_deploy_bench_results():
    """README.md's shipped MLP and docs/deploy.md's "Measured" table are
    bench/results/bench_deploy.md's bytes (size test and shipped models, per platform)."""
    found = tables((REPO / "bench" / "results" / "bench_deploy.md").read_text())
    table = lambda column: next(rows for rows in found.values() if rows and column in rows[0])  # noqa: E731
    shipped = {(row["platform"], row["model"]): row["bytes"] for row in table("matches torch")}
    size_test = {row["platform"]: row for row in table("CI threshold") if row.get("operators") == "none"}
    mlp = shipped[("host", "mlp")]
    assert f"corpus MLP is then a {mlp}-byte binary" in prose(REPO / "README.md"), \
        f"README.md should quote the shipped MLP as bench_deploy.md does: {mlp} bytes"
    assert f"The corpus MLP built this way is {mlp} bytes stripped on x86-64" in prose(REPO / "docs" / "deploy.md")
    platforms = ("host", "aarch64-linux", "cortex-m55")
    expected = {
        "size test, ExecuTorch's CI flags": [size_test[platform]["ExecuTorch's CI flags"] for platform in platforms],
        "size test, etsb's size flags": [size_test[platform]["etsb's size flags"] for platform in platforms],
        "MLP, shipped": [shipped[(platform, "mlp")] for platform in platforms],
        "CNN, shipped": [shipped[(platform, "cnn")] for platform in platforms],
        "attention block, shipped": [shipped[(platform, "attention")] for platform in platforms],
    }
    measured = next(rows for rows in tables((REPO / "docs" / "deploy.md").read_text()).values()
                    if rows and "aarch64 Linux" in rows[0])
    quoted = {row[""]: [row["x86-64"], row["aarch64 Linux"], row["Cortex-M55"]] for row in measured}
    for label, figures in expected.items():
        assert quoted.get(label) == figures, f"docs/deploy.md's row {label!r} should be {figures}"
