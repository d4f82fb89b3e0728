"""Teaching a network for 8 bits: it trains seeing its weights and inputs rounded as the 8-bit copy
``models.quantize`` makes of it will round them, so that copy reads as the float network does.

:func:`fold_batch_norms` first folds each batch norm into the convolution before it (the 8-bit copy
rounds the folded weights, and an exported network has them folded already); :func:`rounded` then
rounds, in the forward pass only, each convolution's and linear layer's weights (per output channel,
symmetric int8) and input (per tensor, uint8 between running extremes, kept in the checkpoint), but
for the layers named ``keep`` (left in floating point by ``models.quantize --float-ends``). The
gradient passes the rounding as if it were not there. :func:`taught_shape` does both, its first
and last layers kept. :func:`plain` takes the rounding off again before export: what is exported
is the float network, quantized afterwards by ``models.quantize``.
"""

from __future__ import annotations

import torch
from torch import nn

#: how fast an input's running extremes follow each batch's
MOMENTUM = 0.01


def fold_batch_norms(model: nn.Module) -> nn.Module:
    """``model`` with each ``BatchNorm2d`` that directly follows a ``Conv2d`` among its parent's
    children (in the order they were set, as these networks apply them) folded into that
    convolution's weights and bias and replaced by an identity; in place, returned. The network
    computes the same in evaluation mode."""
    for parent in list(model.modules()):
        children = list(parent.named_children())
        for (_, conv), (name, bn) in zip(children, children[1:]):
            if not (isinstance(conv, nn.Conv2d) and isinstance(bn, nn.BatchNorm2d)):
                continue
            with torch.no_grad():
                scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
                bias = bn.bias - bn.running_mean * scale
                if conv.bias is not None:
                    bias = bias + conv.bias * scale
                conv.weight.mul_(scale.reshape(-1, 1, 1, 1))
                conv.bias = nn.Parameter(bias.clone())
            setattr(parent, name, nn.Identity())
    return model


class _RoundedWeight(nn.Module):
    """A weight rounded to int8 per output channel, symmetric: the scale its largest magnitude over
    127, the values -127 to 127 (as onnxruntime's per-channel weights)."""

    def forward(self, w: torch.Tensor) -> torch.Tensor:
        dims = tuple(range(1, w.dim()))
        scale = (w.detach().abs().amax(dim=dims) / 127.0).clamp_min(1e-8)
        return torch.fake_quantize_per_channel_affine(w, scale, torch.zeros_like(scale, dtype=torch.int32), 0,
                                                      -127, 127)


class _InputRounding(nn.Module):
    """A layer's input rounded to uint8 between its running extremes (0 always inside them, as
    onnxruntime's activation ranges), the extremes updated while training. They are buffers, so a
    checkpoint keeps them and a resumed run rounds as the run it goes on from."""

    def __init__(self):
        super().__init__()
        self.register_buffer("extremes", torch.zeros(2))
        self.register_buffer("seen", torch.zeros((), dtype=torch.bool))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.training or not self.seen:
            now = torch.stack([x.detach().min().clamp(max=0), x.detach().max().clamp(min=0)])
            self.extremes.copy_(now if not self.seen else self.extremes + MOMENTUM * (now - self.extremes))
            self.seen.fill_(True)
        low, high = float(self.extremes[0]), float(self.extremes[1])
        scale = max((high - low) / 255.0, 1e-8)
        zero = int(min(255, max(0, round(-low / scale))))
        return torch.fake_quantize_per_tensor_affine(x, scale, zero, 0, 255)


def _round_input(module: nn.Module, args):
    return (module.input_rounding(args[0]),)


def rounded(model: nn.Module, keep: tuple[str, ...] = ()) -> nn.Module:
    """``model`` (its batch norms folded) with every ``Conv2d`` and ``Linear`` but those named in
    ``keep`` (module names, e.g. ``_conv_stem``) seeing its weights and input rounded to 8 bits;
    in place, returned."""
    from torch.nn.utils import parametrize

    for name, m in model.named_modules():
        if isinstance(m, (nn.Conv2d, nn.Linear)) and name not in keep:
            parametrize.register_parametrization(m, "weight", _RoundedWeight())
            m.input_rounding = _InputRounding()
            m._input_hook = m.register_forward_pre_hook(_round_input)
    return model


def taught_shape(model: nn.Module) -> nn.Module:
    """``model`` as a run taught for 8 bits trains it: batch norms folded, rounded but for its first
    and last layers (:func:`ends`); in place, returned."""
    return rounded(fold_batch_norms(model), ends(model))


def plain(model: nn.Module) -> nn.Module:
    """``model`` with the rounding :func:`rounded` added taken off (the float weights kept); in place."""
    from torch.nn.utils import parametrize

    for m in model.modules():
        if parametrize.is_parametrized(m, "weight"):
            parametrize.remove_parametrizations(m, "weight", leave_parametrized=False)
        hook = m.__dict__.pop("_input_hook", None)
        if hook is not None:
            hook.remove()
            del m.input_rounding
    return model


def taught(state: dict) -> bool:
    """Whether ``state`` (a state dict) is that of a network :func:`rounded` made."""
    return any(".parametrizations." in k for k in state)


def ends(model: nn.Module) -> tuple[str, ...]:
    """The names of ``model``'s first convolution and last linear layer: the layers ``models.quantize
    --float-ends`` leaves in floating point."""
    convs = [n for n, m in model.named_modules() if isinstance(m, nn.Conv2d)]
    linears = [n for n, m in model.named_modules() if isinstance(m, nn.Linear)]
    return tuple(convs[:1] + linears[-1:])
