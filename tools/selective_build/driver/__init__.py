"""etsb's embedded build driver: BUILD files evaluated by starlark-go, a target
graph, and ninja. ``labels``, the analysis modules (``analysis``, ``graph``,
``genrule``, ``cxx``, ``link``) and ``ninja`` are pure; ``evaluate`` runs the
evaluator subprocess; ``workspace`` is the file-system edge; ``layout`` names
where everything goes; ``primitives`` declares the rules BUILD files may call;
``state`` and ``fast`` make a no-op build cheap."""
