"""Exporting a trained network to ONNX with what inference must know stored in the file; loading
weights to start a run from."""

from __future__ import annotations

import json
import os


def export_with_metadata(model, example, path: str, input_name: str, output_names: list[str],
                         dynamic_axes: dict, meta: dict) -> None:
    """``torch.onnx.export`` (opset 17) of ``model`` on ``example``, then ``meta`` written into the
    file's metadata (strings as they are, anything else as JSON), so labels, sizes and
    normalisation travel with the weights (read back by :class:`vision.session.OnnxStage`)."""
    import torch

    model.eval()
    tmp = path + ".tmp"
    torch.onnx.export(model, example, tmp, input_names=[input_name], output_names=output_names,
                      dynamic_axes=dynamic_axes, opset_version=17, dynamo=False)
    set_metadata(tmp, meta)
    os.replace(tmp, path)


def set_metadata(path: str, meta: dict) -> None:
    """``meta``'s keys written into the metadata of the ONNX file at ``path`` (strings as they are,
    anything else as JSON), replacing those keys where the file has them."""
    import onnx

    m = onnx.load(path)
    kept = [(p.key, p.value) for p in m.metadata_props if p.key not in meta]
    del m.metadata_props[:]
    for k, v in kept + [(k, v if isinstance(v, str) else json.dumps(v)) for k, v in meta.items()]:
        entry = m.metadata_props.add()
        entry.key, entry.value = k, v
    tmp = path + ".tmp"
    onnx.save(m, tmp)
    os.replace(tmp, path)


def load_weights(path: str) -> dict:
    """A network's weights from ``path``: either a bare state dict (the ``.best`` files) or a
    trainer's resumable checkpoint (weights under ``model``, with optimiser state and epoch)."""
    import torch

    state = torch.load(path, map_location="cpu", weights_only=False)
    if isinstance(state, dict) and isinstance(state.get("model"), dict) and "epoch" in state:
        return state["model"]
    return state


def weights_from_onnx(path: str, model, calibration, member: int | None = None) -> dict:
    """A state dict for ``model`` (a network of convolutions, each followed by a BatchNorm or not,
    and Linear layers, as :class:`models.net.TileNet`, the box refiner's ``RefineNet`` or the
    detector's ``DetNet``) rebuilt from an exported ONNX file, so a shipped model can be
    fine-tuned when its training checkpoint is gone (a Linear layer only where its shape agrees:
    the last is left as it is in a network of other classes).

    The export folded each BatchNorm into its convolution (weight ``W'``, bias ``b'``). The
    convolution takes ``W'``; its BatchNorm is set from statistics of ``W'x`` over the
    ``calibration`` batch (float tensor N×3×H×W, inputs as the network sees them): running mean
    ``m`` and variance ``v``, scale ``√(v + ε)``, shift ``m + b'``. In eval mode that is exactly
    ``W'x + b'``, and in training mode, where a batch's own statistics stand in for ``m`` and
    ``v``, nearly so — the network starts where the shipped model is rather than from a shock.
    A convolution with no BatchNorm after it takes ``W'`` and ``b'`` as they are.

    The exported nodes are named after the modules they came from (``/s4/s4.0/s4.0.0/Conv``): where
    every convolution's name names a convolution of ``model``, that says which is which (a network
    whose modules run in another order than they are declared, as the detector's feature
    pyramid); otherwise they are taken in the order declared.

    A file of several networks joined into one (as an earlier classifier was) gives the one numbered ``member``
    (0, 1, …; its weights are those named ``m<member>/…``)."""
    import numpy as np
    import onnx
    import torch
    from onnx import numpy_helper
    from torch import nn

    proto = onnx.load(path)
    graph = proto.graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    joined = next((len(json.loads(e.value)) for e in proto.metadata_props if e.key == "ensemble_of"), 0)
    if joined and member is None:
        raise ValueError(f"{path} joins {joined} networks: say which member to take")
    if member is not None and not 0 <= member < joined:
        raise ValueError(f"{path} has no member {member} (it joins {joined} networks)")
    prefix = "" if member is None else f"m{member}/"
    ours = [n for n in graph.node if n.input[1:2] and n.input[1].startswith(prefix)]
    conv_nodes = [n for n in ours if n.op_type == "Conv"]
    gemms = [n for n in ours if n.op_type == "Gemm"]
    named = dict(model.named_modules())
    mods = list(model.modules())
    follower = {id(m): mods[i + 1] for i, m in enumerate(mods[:-1]) if isinstance(mods[i + 1], nn.BatchNorm2d)}
    declared = [m for m in mods if isinstance(m, nn.Conv2d)]

    def module_name(node) -> str:  # "m0//s4/s4.0/s4.0.0/s4.0.0.0/Conv" -> "s4.0.0.0"
        parts = node.name[len(prefix):].strip("/").split("/")
        return parts[-2] if len(parts) >= 2 else ""

    by_name = [named.get(module_name(n)) for n in conv_nodes]
    convs = by_name if all(isinstance(m, nn.Conv2d) for m in by_name) else declared
    linear = [m for m in mods if isinstance(m, nn.Linear)]
    if len(convs) != len(conv_nodes) or len(set(map(id, convs))) != len(declared) or len(linear) != len(gemms):
        raise ValueError(f"{path}: {len(conv_nodes)} convolutions and {len(gemms)} linear layers for a network of "
                         f"{len(declared)} convolutions and {len(linear)} linear layers")
    pairs = []
    with torch.no_grad():
        for conv, node in zip(convs, conv_nodes):
            w = inits[node.input[1]]
            b = inits[node.input[2]] if len(node.input) > 2 else np.zeros(w.shape[0], np.float32)
            if tuple(conv.weight.shape) != w.shape:
                raise ValueError(f"{path}: weights {w.shape} for a convolution of {tuple(conv.weight.shape)}")
            conv.weight.copy_(torch.from_numpy(np.array(w)))
            bn = follower.get(id(conv))
            if bn is None:
                if conv.bias is not None:
                    conv.bias.copy_(torch.from_numpy(np.array(b)))
                elif np.any(b != 0):
                    raise ValueError(f"{path}: a bias for a convolution that has none and no BatchNorm after it")
                continue
            pairs.append((conv, bn))
            # first the identity: eval mode then computes the exported network exactly
            bn.running_mean.zero_()
            bn.running_var.fill_(1 - bn.eps)
            bn.weight.fill_(1)
            bn.bias.copy_(torch.from_numpy(np.array(b)))
        for gemm, layer in zip(gemms, linear):
            w, b = inits[gemm.input[1]], inits[gemm.input[2]]
            if not any(a.name == "transB" and a.i == 1 for a in gemm.attribute):
                w = w.T
            if tuple(layer.weight.shape) == w.shape:  # else a network of other classes: left as it is
                layer.weight.copy_(torch.from_numpy(np.array(w)))
                layer.bias.copy_(torch.from_numpy(np.array(b)))
        stats = {}
        hooks = [bn.register_forward_hook(lambda mod, inp, out, key=id(bn): stats.__setitem__(
            key, (inp[0].mean((0, 2, 3)), inp[0].var((0, 2, 3), unbiased=False)))) for _, bn in pairs]
        model.eval()
        model(calibration)
        for h in hooks:
            h.remove()
        for _, bn in pairs:
            m, v = stats[id(bn)]
            bn.running_mean.copy_(m)
            bn.running_var.copy_(v)
            bn.weight.copy_(torch.sqrt(v + bn.eps))
            bn.bias.add_(m)
    return model.state_dict()
