"""etsb's embedded build driver: BUILD files evaluated by starlark-go, a target
graph, and ninja. ``labels`` and ``graph`` and ``ninja`` are pure; ``evaluate``
runs the evaluator subprocess; ``driver`` is the file-system edge."""
