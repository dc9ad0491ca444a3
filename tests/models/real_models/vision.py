"""The vision models of the corpus, built from torchvision's and timm's own
classes at narrow widths (and the imports that make those work on a CPU-only
torch)."""

from __future__ import annotations

import torch
from torch import nn


_TORCHVISION_STUBS: list = []


def import_torchvision():
    """Import torchvision from its CUDA wheel on a CPU-only torch.

    Its Python side registers fake kernels for ``torchvision::nms`` and
    ``torchvision::qnms``, which its unloadable C extension would define.
    Defining the schemas first lets the import succeed; the library object
    must stay alive, so it is kept in a module-level list.
    """
    if not _TORCHVISION_STUBS:
        try:
            torch.ops.torchvision.nms  # noqa: B018 - defined by a working extension
        except (AttributeError, RuntimeError):
            library = torch.library.Library("torchvision", "DEF")
            for op in ("nms", "qnms"):
                library.define(f"{op}(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
            _TORCHVISION_STUBS.append(library)
        else:
            _TORCHVISION_STUBS.append(None)
    import torchvision

    return torchvision


def import_timm():
    """Import timm (which imports torchvision)."""
    import_torchvision()
    import timm

    return timm


def build_resnet() -> nn.Module:
    """torchvision ResNet with Bottleneck blocks, rebuilt at narrow widths.

    ``ResNet.__init__`` fixes the stage widths at 64..512 (2048 channels out
    of a Bottleneck stage 4, about 10 MB of weights even at depth [1,1,1,1]),
    so the stem and stages are rebuilt with the class's own ``_make_layer`` at
    16/32/64/128 planes, then initialised as ``ResNet.__init__`` does.
    """
    models = import_torchvision().models
    resnet = models.resnet
    net = resnet.ResNet(resnet.Bottleneck, [1, 1, 1, 1], num_classes=10, width_per_group=64)
    stem = 16
    net.inplanes = stem
    net.conv1 = nn.Conv2d(3, stem, kernel_size=7, stride=2, padding=3, bias=False)
    net.bn1 = nn.BatchNorm2d(stem)
    net.layer1 = net._make_layer(resnet.Bottleneck, 16, 1)
    net.layer2 = net._make_layer(resnet.Bottleneck, 32, 1, stride=2)
    net.layer3 = net._make_layer(resnet.Bottleneck, 64, 1, stride=2)
    net.layer4 = net._make_layer(resnet.Bottleneck, 128, 1, stride=2)
    net.fc = nn.Linear(128 * resnet.Bottleneck.expansion, 10)
    for module in net.modules():
        if isinstance(module, nn.Conv2d):
            nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")
        elif isinstance(module, nn.BatchNorm2d):
            nn.init.ones_(module.weight)
            nn.init.zeros_(module.bias)
    return net


def build_mobilenet_v2() -> nn.Module:
    """torchvision MobileNetV2 at width 0.25."""
    return import_torchvision().models.MobileNetV2(width_mult=0.25, num_classes=10)


def build_mobilenet_v3_small() -> nn.Module:
    """torchvision MobileNetV3 small, width 0.5, reduced tail."""
    models = import_torchvision().models
    return models.mobilenet_v3_small(weights=None, width_mult=0.5, reduced_tail=True, num_classes=10)


def build_efficientnet() -> nn.Module:
    """torchvision EfficientNet with the B0 configuration scaled down."""
    efficientnet = import_torchvision().models.efficientnet
    setting, last_channel = efficientnet._efficientnet_conf(
        "efficientnet_b0", width_mult=0.25, depth_mult=0.34)
    return efficientnet.EfficientNet(setting, dropout=0.2, last_channel=last_channel, num_classes=10)


def build_squeezenet() -> nn.Module:
    """torchvision SqueezeNet 1.1 at full width with a 10-class head."""
    return import_torchvision().models.SqueezeNet(version="1_1", num_classes=10)


def build_shufflenet_v2() -> nn.Module:
    """torchvision ShuffleNetV2 with narrow stages."""
    return import_torchvision().models.ShuffleNetV2(
        stages_repeats=[2, 2, 2], stages_out_channels=[16, 32, 64, 128, 256], num_classes=10)


def build_densenet() -> nn.Module:
    """torchvision DenseNet with growth 8 and two dense blocks of two layers."""
    return import_torchvision().models.DenseNet(
        growth_rate=8, block_config=(2, 2), num_init_features=16, bn_size=4, num_classes=10)


def build_vit() -> nn.Module:
    """torchvision VisionTransformer, 2 layers of width 32 on 8x8 patches."""
    return import_torchvision().models.VisionTransformer(
        image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64,
        num_classes=10)


def build_swin() -> nn.Module:
    """torchvision SwinTransformer (v1): shifted 4x4 windows, two stages."""
    return import_torchvision().models.SwinTransformer(
        patch_size=[2, 2], embed_dim=16, depths=[2, 2], num_heads=[2, 4], window_size=[4, 4],
        stochastic_depth_prob=0.0, num_classes=10)


def build_convnext() -> nn.Module:
    """torchvision ConvNeXt with two stages of widths 16 and 32."""
    convnext = import_torchvision().models.convnext
    setting = [convnext.CNBlockConfig(16, 32, 2), convnext.CNBlockConfig(32, None, 2)]
    return convnext.ConvNeXt(setting, stochastic_depth_prob=0.0, layer_scale=0.5, num_classes=10)


def build_timm_resnet_d() -> nn.Module:
    """timm ResNet-D: deep 3-conv stem, average-pool shortcut downsampling."""
    resnet = import_timm().models.resnet
    return resnet.ResNet(resnet.BasicBlock, (1, 1, 1, 1), channels=(16, 32, 64, 128),
                         stem_width=8, stem_type="deep", avg_down=True, zero_init_last=False,
                         num_classes=10)


def build_timm_efficientvit() -> nn.Module:
    """timm EfficientViT (MIT): MBConv stages and ReLU linear attention."""
    efficientvit = import_timm().models.efficientvit_mit
    return efficientvit.EfficientVit(widths=(8, 16, 24, 32, 48), depths=(1, 1, 1, 1, 1),
                                     head_dim=8, head_widths=(96, 128), num_classes=10)


def build_timm_mobilevit() -> nn.Module:
    """timm MobileViT built from a ByobNet configuration with tiny widths."""
    timm = import_timm()
    byob = timm.models.byobnet
    mobilevit = timm.models.mobilevit
    cfg = byob.ByoModelCfg(
        blocks=(
            mobilevit._inverted_residual_block(d=1, c=16, s=1, br=2.0),
            mobilevit._inverted_residual_block(d=1, c=24, s=2, br=2.0),
            mobilevit._mobilevit_block(d=1, c=32, s=2, transformer_dim=32, transformer_depth=1,
                                       patch_size=2, br=2.0),
            mobilevit._mobilevit_block(d=1, c=48, s=2, transformer_dim=48, transformer_depth=1,
                                       patch_size=2, br=2.0),
        ),
        stem_chs=16, stem_type="3x3", stem_pool="", downsample="", act_layer="silu",
        num_features=128,
    )
    return byob.ByobNet(cfg, num_classes=10)
