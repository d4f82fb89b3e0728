"""The ImageNet backbones in plain torch load their published checkpoints key for key."""

import pytest

torch = pytest.importorskip("torch")

from models.backbones import BACKBONES, WeightsMissing, checkpoint_path, pretrained  # noqa: E402


@pytest.mark.parametrize("name", sorted(BACKBONES))
def test_a_checkpoint_loads_with_no_key_missing_or_left_over(name):
    try:
        path = checkpoint_path(name)
    except WeightsMissing as e:
        pytest.skip(str(e))
    state = torch.load(path, map_location="cpu", weights_only=True)
    net = BACKBONES[name]()
    result = net.load_state_dict(state, strict=False)
    assert not result.missing_keys and not result.unexpected_keys
    model = pretrained(name, 44).eval()
    with torch.no_grad():
        assert model(torch.zeros(2, 3, 96, 96)).shape == (2, 44)


@pytest.mark.parametrize("name", sorted(BACKBONES))
def test_each_backbone_takes_a_new_head_of_any_size(name):
    net = BACKBONES[name]()
    net.replace_head(7)
    with torch.no_grad():
        assert net.eval()(torch.zeros(1, 3, 64, 64)).shape == (1, 7)
