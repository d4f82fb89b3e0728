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
    import onnx
    import torch

    model.eval()
    tmp = path + ".tmp"
    torch.onnx.export(model, example, tmp, input_names=[input_name], output_names=output_names,
                      dynamic_axes=dynamic_axes, opset_version=17, dynamo=False)
    m = onnx.load(tmp)
    for k, v in meta.items():
        entry = m.metadata_props.add()
        entry.key, entry.value = k, v if isinstance(v, str) else json.dumps(v)
    onnx.save(m, path)
    os.remove(tmp)


def load_weights(path: str) -> dict:
    """A network's weights from ``path``: either a bare state dict (the ``.best`` files) or a
    trainer's resumable checkpoint (weights under ``model``, with optimiser state and epoch)."""
    import torch

    state = torch.load(path, weights_only=False)
    if isinstance(state, dict) and isinstance(state.get("model"), dict) and "epoch" in state:
        return state["model"]
    return state
