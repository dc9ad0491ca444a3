"""Shared helpers of the benchmarks in bench/: paths and set-up (env), timing
(timing), processes, builds and sizes (processes), workspaces (workspace),
models and their runs (models), tables, charts and result files (results,
charts). Bench scripts import only this package, never each other."""
