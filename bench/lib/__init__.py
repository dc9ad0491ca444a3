"""The benches' shared helpers, a module a job (each module's docstring says
which); the sources and templates they compile or write are in files/. Bench
scripts import only this package, never each other."""
