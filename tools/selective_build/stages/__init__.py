"""Stages: pure functions from model values to model values (select, merge, resolve)."""
