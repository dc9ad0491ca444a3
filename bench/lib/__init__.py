"""Shared helpers of the benchmarks in bench/, a module a job: paths and set-up
(env), the command line (cli), the compared tools' commands (tools), timing
(timing), processes and builds (processes), binaries' sizes (sizes),
workspaces (workspace), programs (models), their timed runs (rounds), FLOPs
(flops), tables and result files (results), charts (charts); sources and
templates in files/. Bench scripts import only this package, never each other."""
