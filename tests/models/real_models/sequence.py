"""The sequence and audio models of the corpus, written here from torch.nn
parts: recurrent nets, a BERT-like encoder, a GPT-like decoder, an M5-style
waveform net."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class RecurrentNet(nn.Module):
    """A plain ``nn.LSTM`` or ``nn.GRU`` whose outputs are returned flat."""

    def __init__(self, cell: type[nn.RNNBase], features: int, hidden: int, layers: int) -> None:
        super().__init__()
        self.rnn = cell(features, hidden, num_layers=layers, batch_first=True)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        output, state = self.rnn(x)
        states = state if isinstance(state, tuple) else (state,)
        return (output, *states)


def build_lstm() -> nn.Module:
    """A 2-layer LSTM: outputs the sequence, h_n and c_n."""
    return RecurrentNet(nn.LSTM, features=12, hidden=24, layers=2)


def build_gru() -> nn.Module:
    """A 2-layer GRU: outputs the sequence and h_n."""
    return RecurrentNet(nn.GRU, features=12, hidden=24, layers=2)


class TinyBert(nn.Module):
    """A BERT-like encoder: token and position embeddings, LayerNorm,
    ``nn.TransformerEncoder`` with a key-padding mask, and a tanh pooler on
    the first token followed by a classifier."""

    def __init__(self, vocab: int = 64, length: int = 12, dim: int = 32, heads: int = 2,
                 layers: int = 2, classes: int = 3) -> None:
        super().__init__()
        self.tokens = nn.Embedding(vocab, dim)
        self.positions = nn.Parameter(torch.randn(1, length, dim) * 0.02)
        self.norm = nn.LayerNorm(dim)
        layer = nn.TransformerEncoderLayer(dim, heads, dim_feedforward=2 * dim, dropout=0.0,
                                           activation="gelu", batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.pooler = nn.Linear(dim, dim)
        self.classifier = nn.Linear(dim, classes)

    def forward(self, ids: torch.Tensor, padding: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.norm(self.tokens(ids) + self.positions[:, : ids.shape[1]])
        h = self.encoder(h, src_key_padding_mask=padding)
        pooled = torch.tanh(self.pooler(h[:, 0]))
        return h, self.classifier(pooled)


class CausalSelfAttention(nn.Module):
    """Multi-head causal self-attention through ``scaled_dot_product_attention``."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=-1)
        q, k, v = (z.reshape(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, t, c))


class GptBlock(nn.Module):
    """A pre-norm GPT-2 block: causal attention and a GELU MLP, both residual."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, heads)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(approximate="tanh"),
                                 nn.Linear(4 * dim, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class TinyGpt(nn.Module):
    """A GPT-like decoder: token and learnt position embeddings, causal
    blocks, a final LayerNorm and a language-model head over the vocabulary."""

    def __init__(self, vocab: int = 64, length: int = 16, dim: int = 32, heads: int = 2,
                 layers: int = 2) -> None:
        super().__init__()
        self.tokens = nn.Embedding(vocab, dim)
        self.positions = nn.Parameter(torch.randn(1, length, dim) * 0.02)
        self.blocks = nn.Sequential(*(GptBlock(dim, heads) for _ in range(layers)))
        self.ln_f = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        h = self.tokens(ids) + self.positions[:, : ids.shape[1]]
        return self.head(self.ln_f(self.blocks(h)))


class M5(nn.Module):
    """The M5 raw-waveform classifier (Dai et al., 2017) at reduced width: a
    wide strided first Conv1d, then Conv1d/BatchNorm1d/ReLU/MaxPool1d stages,
    global average pooling and a linear classifier."""

    def __init__(self, channels: int = 16, classes: int = 10) -> None:
        super().__init__()

        def stage(cin: int, cout: int, kernel: int, stride: int = 1) -> list[nn.Module]:
            return [nn.Conv1d(cin, cout, kernel, stride=stride), nn.BatchNorm1d(cout), nn.ReLU(),
                    nn.MaxPool1d(4)]

        self.features = nn.Sequential(
            *stage(1, channels, 80, stride=4),
            *stage(channels, channels, 3),
            *stage(channels, 2 * channels, 3),
            nn.Conv1d(2 * channels, 2 * channels, 3), nn.BatchNorm1d(2 * channels), nn.ReLU(),
            nn.AdaptiveAvgPool1d(1),
        )
        self.fc = nn.Linear(2 * channels, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.log_softmax(self.fc(self.features(x).flatten(1)), dim=-1)
