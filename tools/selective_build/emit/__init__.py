"""Emitters: turn decided values into text. No decisions are made here."""
