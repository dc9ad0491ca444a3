"""How tests/models/export_real.py (and export_quantized.py) prepare, export, check and write models."""
