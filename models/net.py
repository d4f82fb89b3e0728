"""A small MobileNet-like network for 64x64 tile crops (about 0.3 M parameters, ~7 M MACs)."""

from __future__ import annotations

import torch
from torch import nn


def _dw(cin: int, cout: int, stride: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin), nn.ReLU(inplace=True),
        nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
    )


class TileNet(nn.Module):
    def __init__(self, classes: int, width: float = 1.0):
        super().__init__()
        c = [max(8, int(v * width)) for v in (24, 48, 64, 128, 128, 256, 256)]
        self.features = nn.Sequential(
            nn.Conv2d(3, c[0], 3, 2, 1, bias=False), nn.BatchNorm2d(c[0]), nn.ReLU(inplace=True),  # 32
            _dw(c[0], c[1], 1),
            _dw(c[1], c[2], 2),  # 16
            _dw(c[2], c[2], 1),
            _dw(c[2], c[3], 2),  # 8
            _dw(c[3], c[4], 1),
            _dw(c[4], c[5], 2),  # 4
            _dw(c[5], c[6], 1),
        )
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(c[6], classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))
