"""Readers: bytes and text in (yaml, ``.pte``, command-line values), model values
out, every problem reported as a located UserError."""
