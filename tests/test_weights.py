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


def test_a_shipped_onnx_model_becomes_the_same_network_again():
    pytest.importorskip("onnx")
    import numpy as np
    import onnxruntime as ort

    from models.net import TileNet
    from models.onnx_io import weights_from_onnx

    gen = torch.Generator().manual_seed(0)
    calibration, probe = torch.randn(32, 3, 64, 64, generator=gen), torch.randn(8, 3, 64, 64, generator=gen)
    state = weights_from_onnx("models/tile_up.onnx", TileNet(2), calibration)  # the which-way-up probe
    fresh = TileNet(2)
    fresh.load_state_dict(state)
    fresh.eval()
    session = ort.InferenceSession("models/tile_up.onnx")
    want = session.run(None, {session.get_inputs()[0].name: probe.numpy()})[0]
    with torch.no_grad():
        got = fresh(probe).numpy()
    assert np.abs(got - want).max() < 1e-4 * max(1.0, np.abs(want).max())
    # the BatchNorms carry the calibration batch's statistics
    stem_out = torch.nn.functional.conv2d(calibration, fresh.features[0].weight, stride=2, padding=1)
    assert torch.allclose(fresh.features[1].running_mean, stem_out.mean((0, 2, 3)), atol=1e-4)


def test_a_network_of_other_classes_keeps_its_own_last_layer():
    pytest.importorskip("onnx")
    from models.net import TileNet
    from models.onnx_io import weights_from_onnx

    net = TileNet(8)
    before = net.head[-1].weight.clone()
    weights_from_onnx("models/tile_up.onnx", net, torch.randn(4, 3, 64, 64))
    assert torch.equal(net.head[-1].weight, before)
    with pytest.raises(ValueError, match="convolutions"):
        weights_from_onnx("models/tile_up.onnx", torch.nn.Sequential(torch.nn.Linear(2, 2)), torch.randn(1, 2))


def test_the_shipped_box_refiner_becomes_the_same_network_again():
    pytest.importorskip("onnx")
    import numpy as np
    import onnxruntime as ort

    from models.onnx_io import weights_from_onnx
    from models.refiner import WINDOW, RefineNet

    gen = torch.Generator().manual_seed(0)
    calibration = torch.randn(32, 3, WINDOW, WINDOW, generator=gen)
    probe = torch.randn(8, 3, WINDOW, WINDOW, generator=gen)
    fresh = RefineNet()  # two linear layers: both are taken
    fresh.load_state_dict(weights_from_onnx("models/box_refiner.onnx", RefineNet(), calibration))
    fresh.eval()
    session = ort.InferenceSession("models/box_refiner.onnx")
    want = session.run(None, {session.get_inputs()[0].name: probe.numpy()})[0]
    with torch.no_grad():
        got = fresh(probe).numpy()
    assert np.abs(got - want).max() < 1e-4 * max(1.0, np.abs(want).max())



def test_detector_views_take_a_colour_cast_with_cast():
    import numpy as np

    from models.detector import random_view

    grey = np.full((300, 400, 3), 128, np.uint8)
    boxes = np.array([[50.0, 60.0, 90.0, 120.0]], np.float32)
    spread = []
    for cast in (0.0, 1.0):
        views = [random_view(grey, boxes, np.random.default_rng(i), cast=cast)[0] for i in range(24)]
        # how far red and blue lie apart, as a share of the level, over the views
        spread.append(np.mean([abs(float(v[..., 0].mean()) - float(v[..., 2].mean())) / max(1.0, float(v.mean()))
                               for v in views]))
    assert spread[1] > 1.5 * spread[0]

def test_refiner_windows_blurred_further_with_blur():
    import numpy as np

    from models.refiner import Windows

    rng = np.random.default_rng(0)
    photo = (rng.random((200, 300, 3)) * 255).astype(np.uint8)  # fine detail everywhere
    items = [(photo, [(100.0, 60.0, 140.0, 115.0)] * 16, None)]

    def sharpness(ds):  # mean absolute step between neighbouring pixels, over the windows
        return float(np.mean([np.abs(np.diff(ds[i][0].numpy(), axis=2)).mean() for i in range(len(ds))]))

    plain, blurred = Windows(items, 1), Windows(items, 1, blur=1.0)
    assert len(blurred) == len(plain) == 16
    assert sharpness(blurred) < 0.7 * sharpness(plain)
