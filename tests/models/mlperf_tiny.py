"""MLPerf Tiny's four reference architectures, as PyTorch modules with random
weights: the networks microcontroller int8 deployments are measured on.

==============  =================================================================
ds_cnn          keyword spotting: 49x10 MFCC frames, a (10, 4) stride-2 stem,
                four depthwise-separable blocks, average pooling, 12 classes
mobilenet_v1    visual wake words: MobileNetV1 at width 0.25 (8 to 256 channels,
                13 depthwise-separable blocks), 2 classes
resnet8         image classification: three residual stacks of 16, 32 and 64
                channels on 32x32 images, 10 classes
fc_autoencoder  anomaly detection: 640 inputs through four 128-wide layers to a
                code of 8, and back to 640
==============  =================================================================

Each takes a ``scale``: ``"reference"`` is MLPerf Tiny's size (the bench), and
``"small"`` the same layer structure with fewer channels or pixels (the tests'
corpus, where a program must build and run under QEMU in seconds).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn


def _conv_bn_relu(cin: int, cout: int, kernel, stride=1, padding=0, groups: int = 1) -> list[nn.Module]:
    return [nn.Conv2d(cin, cout, kernel, stride=stride, padding=padding, groups=groups, bias=False),
            nn.BatchNorm2d(cout), nn.ReLU()]


def _separable(cin: int, cout: int, stride: int = 1) -> list[nn.Module]:
    """A depthwise 3x3 (with ``stride``) then a pointwise 1x1, each with batch norm and ReLU."""
    return _conv_bn_relu(cin, cin, 3, stride, 1, groups=cin) + _conv_bn_relu(cin, cout, 1)


class DsCnn(nn.Module):
    """DS-CNN (keyword spotting) on 1x49x10 MFCC frames."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        layers = _conv_bn_relu(1, channels, (10, 4), (2, 2), (5, 1))
        for _ in range(4):
            layers += _separable(channels, channels)
        self.features = nn.Sequential(*layers)
        self.pool = nn.AvgPool2d((25, 5))
        self.classifier = nn.Linear(channels, 12)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.pool(self.features(x)).flatten(1))


class MobileNetV1(nn.Module):
    """MobileNetV1 at width 0.25 (visual wake words), two classes."""

    # (output channels, stride) of the 13 separable blocks at width 1, divided by 4.
    BLOCKS = ((16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2), (128, 1), (128, 1), (128, 1), (128, 1),
              (128, 1), (256, 2), (256, 1))

    def __init__(self, pixels: int) -> None:
        super().__init__()
        layers, channels = _conv_bn_relu(3, 8, 3, 2, 1), 8
        for out, stride in self.BLOCKS:
            layers += _separable(channels, out, stride)
            channels = out
        self.features = nn.Sequential(*layers)
        self.pool = nn.AvgPool2d(pixels // 32)
        self.classifier = nn.Linear(channels, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.pool(self.features(x)).flatten(1))


class _Residual(nn.Module):
    """Two 3x3 convolutions and a shortcut (a strided 1x1 convolution where the shape changes), added, then ReLU."""

    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.body = nn.Sequential(*_conv_bn_relu(cin, cout, 3, stride, 1),
                                  nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout))
        self.shortcut = nn.Identity() if stride == 1 and cin == cout else nn.Conv2d(cin, cout, 1, stride=stride)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.body(x) + self.shortcut(x))


class ResNet8(nn.Module):
    """ResNet-8 (image classification): stacks of 16, 32 and 64 channels."""

    def __init__(self, pixels: int) -> None:
        super().__init__()
        self.stem = nn.Sequential(*_conv_bn_relu(3, 16, 3, 1, 1))
        self.stacks = nn.Sequential(_Residual(16, 16, 1), _Residual(16, 32, 2), _Residual(32, 64, 2))
        self.pool = nn.AvgPool2d(pixels // 4)
        self.classifier = nn.Linear(64, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.pool(self.stacks(self.stem(x))).flatten(1))


class FcAutoencoder(nn.Module):
    """The anomaly-detection autoencoder: 640 -> 4 x width -> 8 -> 4 x width -> 640, ReLU between."""

    def __init__(self, width: int) -> None:
        super().__init__()
        sizes = [640, width, width, width, width, 8, width, width, width, width]
        layers: list[nn.Module] = []
        for cin, cout in zip(sizes, sizes[1:]):
            layers += [nn.Linear(cin, cout), nn.ReLU()]
        self.body = nn.Sequential(*layers, nn.Linear(width, 640))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)


@dataclass(frozen=True)
class Architecture:
    """One architecture at both scales: how to build it, and its input's shape."""

    name: str
    description: str
    reference: tuple[dict, tuple[int, ...]]  # (constructor arguments, input shape)
    small: tuple[dict, tuple[int, ...]]
    build: type

    def module(self, scale: str) -> nn.Module:
        """The architecture at ``scale`` ("reference" or "small"), random weights, in eval mode."""
        arguments, _ = getattr(self, scale)
        return self.build(**arguments).eval()

    def input_shape(self, scale: str) -> tuple[int, ...]:
        return getattr(self, scale)[1]


ARCHITECTURES = {a.name: a for a in (
    Architecture("ds_cnn", "DS-CNN keyword spotting (49x10 MFCCs, 12 classes)",
                 ({"channels": 64}, (1, 1, 49, 10)), ({"channels": 16}, (1, 1, 49, 10)), DsCnn),
    Architecture("mobilenet_v1", "MobileNetV1-0.25 visual wake words (2 classes)",
                 ({"pixels": 96}, (1, 3, 96, 96)), ({"pixels": 32}, (1, 3, 32, 32)), MobileNetV1),
    Architecture("resnet8", "ResNet-8 image classification (10 classes)",
                 ({"pixels": 32}, (1, 3, 32, 32)), ({"pixels": 16}, (1, 3, 16, 16)), ResNet8),
    Architecture("fc_autoencoder", "FC autoencoder anomaly detection (640 inputs)",
                 ({"width": 128}, (1, 640)), ({"width": 32}, (1, 640)), FcAutoencoder),
)}
