"""How tests/models/export_ops.py makes, lowers, checks and writes the cases of `ops_cases`."""
