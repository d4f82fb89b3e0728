"""Starting a training run from earlier weights: a bare state dict or a resumable checkpoint."""

import pytest

torch = pytest.importorskip("torch")

from models.onnx_io import load_weights  # noqa: E402


def test_weights_from_a_state_dict_or_a_checkpoint(tmp_path):
    net = torch.nn.Linear(3, 2)
    bare, full = tmp_path / "w.pt.best", tmp_path / "w.pt"
    torch.save(net.state_dict(), bare)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    torch.save({"model": net.state_dict(), "opt": opt.state_dict(), "epoch": 3, "best": 0.5}, full)
    for path in (bare, full):
        other = torch.nn.Linear(3, 2)
        other.load_state_dict(load_weights(str(path)))
        assert torch.equal(other.weight, net.weight) and torch.equal(other.bias, net.bias)
