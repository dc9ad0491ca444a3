"""The real models of the corpus (tests/models/export_real.py exports them):
`MODELS`, each a `ModelSpec` built by `vision` (torchvision, timm) or
`sequence` (torch.nn), with inputs from `inputs`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from torch import nn

from .inputs import Inputs, image_input, sequence_input, token_input, tokens_and_padding_input, waveform_input
from .sequence import M5, TinyBert, TinyGpt, build_gru, build_lstm
from .vision import (
    build_convnext,
    build_densenet,
    build_efficientnet,
    build_mobilenet_v2,
    build_mobilenet_v3_small,
    build_resnet,
    build_shufflenet_v2,
    build_squeezenet,
    build_swin,
    build_timm_efficientvit,
    build_timm_mobilevit,
    build_timm_resnet_d,
    build_vit,
)

# The batch of batch-norm calibration (see ModelSpec).
CALIBRATION_BATCH = 8


@dataclass(frozen=True)
class ModelSpec:
    """One corpus model.

    ``build`` constructs the module with torch's default (random) init;
    ``make_inputs`` makes a tuple of inputs for a batch size: ``batch`` for the
    sample, ``CALIBRATION_BATCH`` for batch-norm calibration.
    """

    name: str
    description: str
    build: Callable[[], nn.Module]
    make_inputs: Callable[[int], Inputs]
    batch: int = 1


MODELS: tuple[ModelSpec, ...] = (
    ModelSpec("resnet", "torchvision ResNet, Bottleneck blocks [1,1,1,1], stem 16, planes "
              "16/32/64/128 (out 512), 10 classes, 64x64 RGB", build_resnet, image_input(64)),
    ModelSpec("mobilenet_v2", "torchvision MobileNetV2, width_mult 0.25, 10 classes, 64x64 RGB",
              build_mobilenet_v2, image_input(64)),
    ModelSpec("mobilenet_v3_small", "torchvision MobileNetV3 small config, width_mult 0.5, "
              "reduced tail, 10 classes, 64x64 RGB", build_mobilenet_v3_small, image_input(64)),
    ModelSpec("efficientnet", "torchvision EfficientNet B0 config, width_mult 0.25, depth_mult "
              "0.34, 10 classes, 64x64 RGB", build_efficientnet, image_input(64)),
    ModelSpec("squeezenet", "torchvision SqueezeNet 1.1, full width, 10 classes, 64x64 RGB",
              build_squeezenet, image_input(64)),
    ModelSpec("shufflenet_v2", "torchvision ShuffleNetV2, stages_repeats [2,2,2], channels "
              "[16,32,64,128,256], 10 classes, 64x64 RGB", build_shufflenet_v2, image_input(64)),
    ModelSpec("densenet", "torchvision DenseNet, growth_rate 8, block_config (2,2), "
              "num_init_features 16, 10 classes, 32x32 RGB", build_densenet, image_input(32)),
    ModelSpec("vit", "torchvision VisionTransformer, 32x32 RGB, patch 8, 2 layers, 2 heads, "
              "hidden 32, MLP 64, 10 classes", build_vit, image_input(32)),
    ModelSpec("swin", "torchvision SwinTransformer v1, patch 2, embed 16, depths [2,2], heads "
              "[2,4], window 4 (shifted), 10 classes, 32x32 RGB", build_swin, image_input(32)),
    ModelSpec("convnext", "torchvision ConvNeXt, stages 16->32 (2 blocks each), layer_scale 0.5, "
              "10 classes, 32x32 RGB", build_convnext, image_input(32)),
    ModelSpec("lstm", "torch.nn.LSTM, 12 features, hidden 24, 2 layers, batch_first, 10 steps; "
              "outputs: sequence, h_n, c_n", build_lstm, sequence_input(10, 12), batch=2),
    ModelSpec("gru", "torch.nn.GRU, 12 features, hidden 24, 2 layers, batch_first, 10 steps; "
              "outputs: sequence, h_n", build_gru, sequence_input(10, 12), batch=2),
    ModelSpec("bert_encoder", "BERT-like: Embedding(64, 32) + positions, LayerNorm, "
              "nn.TransformerEncoder (d_model 32, 2 heads, FF 64, GELU, 2 layers) with a bool "
              "key-padding mask, tanh pooler, 3 classes; outputs: hidden states, logits",
              TinyBert, tokens_and_padding_input(12, 64), batch=2),
    ModelSpec("gpt_decoder", "GPT-like decoder: Embedding(64, 32) + positions, 2 pre-norm blocks "
              "of causal SDPA (2 heads) and tanh-GELU MLP, LayerNorm, LM head over 64 tokens; "
              "16 tokens", TinyGpt, token_input(16, 64)),
    ModelSpec("audio_m5", "M5-style raw-waveform net: Conv1d(k80, s4)/BatchNorm1d/ReLU/MaxPool1d "
              "stages 16-16-32-32, global average pool, Linear, log_softmax; 4000 samples",
              M5, waveform_input(4000)),
    ModelSpec("timm_resnet_d", "timm ResNet-D: BasicBlock [1,1,1,1], channels 16..128, deep stem "
              "(width 8), avg_down, 10 classes, 64x64 RGB", build_timm_resnet_d, image_input(64)),
    ModelSpec("timm_efficientvit", "timm EfficientViT (MIT): widths 8/16/24/32/48, depths 1 each, "
              "head_dim 8, head widths 96/128, 10 classes, 64x64 RGB", build_timm_efficientvit,
              image_input(64)),
    ModelSpec("timm_mobilevit", "timm MobileViT (ByobNet): stem 16, IR 16/24, MobileViT blocks "
              "32/48 (transformer dims 32/48, depth 1, patch 2), 128 features, 10 classes, "
              "64x64 RGB", build_timm_mobilevit, image_input(64)),
)
