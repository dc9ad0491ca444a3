"""Greedy generation with the LLM decoders (tests/models/llm) in a model
runner, timed whole-process: the runner's `--prompt IDS --generate N` prints
the tokens and no timing, so each round runs `--generate 0` (load + prompt)
and `--generate N` (load + prompt + N tokens) back to back, and the decode
rate is N over their difference. Times are the processes' CPU time (user +
system, from the children's rusage: the pool is one thread, so this is the
work done, less sensitive than wall time to the other processes on the
machine); every run's tokens are checked against torch's first."""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from lib.cli import choose
from lib.env import MODELS_DIR
from lib.results import markdown, ms_cell
from lib.rounds import child_env, usable_sides
from lib.timing import interleaved

LLM_DIR = MODELS_DIR / "llm"


@dataclass(frozen=True)
class Decoder:
    """An export of the decoder: its program, the prompt, torch's greedy
    continuation of it, whether it needs ExecuTorch's LLM custom operators, its operators."""

    name: str
    pte: Path
    prompt: tuple[int, ...]
    expected: tuple[int, ...]
    custom_ops: bool
    operators: int


@dataclass(frozen=True)
class Generated:
    """One decoder on one side: median CPU ms of the prompt-only and of the
    full process, and each round's pair (prompt-only ms, full ms)."""

    prompt_ms: float
    full_ms: float
    rounds: tuple[tuple[float, float], ...]

    def decode_rate(self, count: int) -> float | None:
        """Tokens per second of the ``count`` generated tokens: the median over the rounds' pairs."""
        rates = [r for p, f in self.rounds if (r := tokens_per_second(count, p, f)) is not None]
        return statistics.median(rates) if rates else None


def load_decoders(names: Sequence[str] | None) -> list[Decoder]:
    """The exports of tests/models/llm (or only ``names``), with the manifest's prompt and tokens."""
    manifest = json.loads((LLM_DIR / "manifest.json").read_text())
    prompt = tuple(manifest["prompt"])
    models = manifest["models"]
    return [Decoder(name, LLM_DIR / name / f"{name}.pte", prompt,
                    tuple(models[name]["tokens"][len(prompt):len(prompt) + manifest["new_tokens"]]),
                    models[name]["custom_ops"], len(models[name]["operators"]))
            for name in choose("decoders", names, sorted(models))]


def parse_tokens(stdout: str) -> tuple[int, ...] | None:
    """The ids of the runner's last "tokens: ..." line (prompt first), None without one."""
    lines = [line for line in stdout.splitlines() if line.startswith("tokens:")]
    if not lines:
        return None
    try:
        return tuple(int(word) for word in lines[-1].split()[1:])
    except ValueError:
        return None


def tokens_per_second(count: int, prompt_ms: float, full_ms: float) -> float | None:
    """``count`` tokens over the time the full run took beyond the prompt-only one (None when not beyond)."""
    return count / ((full_ms - prompt_ms) / 1000) if full_ms > prompt_ms else None


def generate(binary: Path, decoder: Decoder, count: int) -> tuple[float, str | None]:
    """``binary`` --prompt --generate ``count`` on ``decoder``: (CPU ms, a problem or None);
    the tokens it prints must be the prompt and torch's first ``count``."""
    command = [str(binary), "--model", str(decoder.pte), "--prompt", ",".join(map(str, decoder.prompt)),
               "--generate", str(count)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = subprocess.run(command, capture_output=True, text=True, env=child_env(None), check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000
    if run.returncode != 0:
        lines = [line.split("  key ")[0].strip() for line in run.stderr.strip().splitlines()
                 if not line.startswith(("I ", "W "))]   # not the runtime's log lines
        return cpu, "fails: " + " ".join(lines[:3] or [f"exit {run.returncode}"])
    tokens, expected = parse_tokens(run.stdout), decoder.prompt + decoder.expected[:count]
    return cpu, None if tokens == expected else f"tokens {tokens} are not torch's {expected}"


def bench_decoders(decoders: Sequence[Decoder], sides: Mapping[str, Mapping[str, Path]], rounds: int,
                   optional: Sequence[str] = ()) -> tuple[dict, list[str], list[str]]:
    """Per decoder, each side that serves it (a checked run first), timed in
    interleaved rounds: {decoder: {side: Generated}}, problems, notes (optional sides that cannot)."""
    results: dict[str, dict[str, Generated]] = {}
    problems, notes = [], []
    for decoder in decoders:
        count = len(decoder.expected)
        usable = usable_sides(decoder.name, list(sides), lambda side: generate(sides[side][decoder.name], decoder,
                              count)[1] if decoder.name in sides[side] else "no binary", optional, problems, notes)

        def timed(side: str, index: int) -> tuple[float, float] | None:
            runs = [generate(sides[side][decoder.name], decoder, n) for n in (0, count)]
            if found := [f"{decoder.name}, {side}, timed: {problem}" for _, problem in runs if problem]:
                problems.extend(found)
                return None
            return runs[0][0], runs[1][0]

        samples = interleaved(usable, rounds, timed)
        results[decoder.name] = {side: Generated(statistics.median(p for p, _ in s), statistics.median(f for _, f in s),
                                                 tuple(s)) for side, s in samples.items() if s}
        print(f"  {decoder.name}: " + ", ".join(f"{side} {g.prompt_ms:.2f}/{g.full_ms:.2f} ms"
                                                 for side, g in results[decoder.name].items()), flush=True)
    return results, problems, notes


def decoder_table(decoders: Sequence[Decoder], results: Mapping[str, Mapping[str, Generated]],
                  sides: Sequence[str]) -> str:
    """Per decoder: prompt-only and full ms, tokens/s per side, and the first side's rate over each other's."""
    rows = []
    for decoder in decoders:
        count, done = len(decoder.expected), results[decoder.name]
        rates = {s: done[s].decode_rate(count) if s in done else None for s in sides}
        rows.append([decoder.name, f"{len(decoder.prompt)} + {count}",
                     *(ms_cell(done[s].prompt_ms if s in done else None) for s in sides),
                     *(ms_cell(done[s].full_ms if s in done else None) for s in sides),
                     *(f"{r:,.0f}" if r else "-" for r in rates.values()),
                     *(f"{rates[sides[0]] / rates[s]:.2f}x" if rates[sides[0]] and rates[s] else "-"
                       for s in sides[1:])])
    headers = ["decoder", "prompt + generated", *(f"{s} prompt-only ms" for s in sides),
               *(f"{s} full ms" for s in sides), *(f"{s} tokens/s" for s in sides),
               *(f"{sides[0]}/{s} tokens/s" for s in sides[1:])]
    return markdown(headers, rows)
