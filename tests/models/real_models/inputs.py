"""Input makers of the real models: each takes a batch size and returns the
model's inputs."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

Inputs = tuple[torch.Tensor, ...]


def image_input(size: int, channels: int = 3) -> Callable[[int], Inputs]:
    """An input maker for a ``(batch, channels, size, size)`` image."""

    def make(batch: int) -> Inputs:
        return (torch.randn(batch, channels, size, size),)

    return make


def sequence_input(length: int, features: int) -> Callable[[int], Inputs]:
    """An input maker for a ``(batch, length, features)`` float sequence."""

    def make(batch: int) -> Inputs:
        return (torch.randn(batch, length, features),)

    return make


def token_input(length: int, vocab: int) -> Callable[[int], Inputs]:
    """An input maker for ``(batch, length)`` int64 token ids."""

    def make(batch: int) -> Inputs:
        return (torch.randint(0, vocab, (batch, length), dtype=torch.int64),)

    return make


def tokens_and_padding_input(length: int, vocab: int) -> Callable[[int], Inputs]:
    """Token ids and a bool key-padding mask (True = padding).

    Row ``b`` has ``b % (length // 2)`` padded positions at its end, so the
    first row has none and no row is entirely padding.
    """

    def make(batch: int) -> Inputs:
        ids = torch.randint(0, vocab, (batch, length), dtype=torch.int64)
        positions = torch.arange(length).unsqueeze(0)
        padded = torch.tensor([b % (length // 2) for b in range(batch)]).unsqueeze(1)
        mask = positions >= (length - padded)
        return ids, mask

    return make


def waveform_input(samples: int) -> Callable[[int], Inputs]:
    """A ``(batch, 1, samples)`` waveform: a few random sinusoids plus noise."""

    def make(batch: int) -> Inputs:
        t = torch.arange(samples, dtype=torch.float32) / 16000.0
        freqs = torch.rand(batch, 3, 1) * 2000.0 + 100.0
        phases = torch.rand(batch, 3, 1) * 2.0 * math.pi
        tones = torch.sin(2.0 * math.pi * freqs * t + phases).sum(dim=1, keepdim=True)
        return (0.3 * tones + 0.05 * torch.randn(batch, 1, samples),)

    return make
