"""Pictures that decode to far more than their file size: every pixel format goes through one path
that holds at most the decoded picture, a tile and the result; a picture whose decoder would need
more than the budget is refused before it is decoded. Peaks are measured in a child process (its
own VmHWM), on pictures of 36 MP so that the tests stay fast; benchmarks/decode_memory.py measures
the same at the 200 MP limit."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from mjcam.vision import io as vio
from mjcam.vision.io import ImageError, load_photo

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIDE = 6000  # 36 MP
MB = 1024 * 1024

_CHILD = r"""
import json, sys
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) * 1024
import numpy, cv2, PIL.Image
from mjcam.vision.io import load_photo
from mjcam.cli import main
import contextlib, io
what, path, small = sys.argv[1:4]
with contextlib.redirect_stdout(io.StringIO()):  # a small picture first: libraries and models loaded
    main(["classify", small, "--json"]) if what == "classify" else load_photo(small, 1600)
base = hwm()
if what == "classify":
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = main(["classify", path, "--json"])
    assert code == 0, out.getvalue()
else:
    arr, size = load_photo(path, 1600)
print(json.dumps({"base": base, "peak": hwm()}))
"""


def _peak(*args) -> int:
    """Bytes the child's peak rose by while it read the picture."""
    linux = os.path.exists("/proc/self/status")
    if not linux:
        pytest.skip("peak memory is read from /proc")
    r = subprocess.run([sys.executable, "-c", _CHILD, *args], cwd=ROOT, capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": ROOT, "MJCAM_THREADS": "1"})
    assert r.returncode == 0, r.stderr[-2000:]
    d = json.loads(r.stdout.strip().splitlines()[-1])
    return d["peak"] - d["base"]


def _small(tmp_path) -> str:
    from PIL import Image

    p = tmp_path / "small.png"
    Image.new("RGB", (64, 80), (10, 200, 30)).save(p)
    return str(p)


def _save(kind: str, path):
    from benchmarks.decode_memory import make  # the same pictures the memory benchmark makes

    make(f"{kind}.png", SIDE, str(path))


# the most the decoded picture itself takes (Pillow keeps 1, 2 or 4 bytes a pixel), and 40 MB for a
# tile and the result
@pytest.mark.parametrize("kind, per_pixel", [("grey16", 2), ("palette-transparent", 1), ("bilevel", 1),
                                             ("rgba", 4), ("rgb", 4)])
def test_peak_memory_is_the_decoded_picture_whatever_the_pixel_format(tmp_path, kind, per_pixel):
    p = tmp_path / f"{kind}.png"
    _save(kind, p)
    rise = _peak("load", str(p), _small(tmp_path))
    assert rise < SIDE * SIDE * per_pixel + 40 * MB, f"{kind}: {rise / MB:.0f} MB"


def test_classify_reads_a_huge_picture_from_a_smaller_copy(tmp_path):
    from PIL import Image

    big = tmp_path / "big.png"
    Image.new("RGB", (8200, 4400), (10, 200, 30)).save(big)  # 36 MP, read from a copy 4096 wide
    rise = _peak("classify", str(big), _small(tmp_path))
    # the decoded picture (4 bytes a pixel), not it and a full-size RGB copy or two (10 bytes)
    assert rise < 8200 * 4400 * 4 + 80 * MB, f"{rise / MB:.0f} MB"


def test_tiles_give_the_same_picture_as_converting_it_whole(tmp_path, monkeypatch):
    from PIL import Image

    rng = np.random.default_rng(1)
    a = rng.integers(0, 256, (301, 517, 4), dtype=np.uint8)
    monkeypatch.setattr(vio, "TILE", 64)  # many tiles, ragged at the right and bottom edges
    for whole_pixels in (0, vio.WHOLE_PIXELS):  # an RGB picture at full scale: tiles, then copied at once
        monkeypatch.setattr(vio, "WHOLE_PIXELS", whole_pixels)
        for mode in ("RGBA", "RGB", "L", "P", "1"):
            im = Image.fromarray(a, "RGBA").convert(mode)
            for f in (1, 3, 8):
                whole = np.asarray(vio._rgb(im).reduce(f) if f > 1 else vio._rgb(im))
                got = vio._converted(im, f)
                assert np.array_equal(got, whole) and got.flags.writeable, (mode, f, whole_pixels)
    wide = Image.fromarray((a[..., 0].astype(np.int32) * 200), "I")  # one scale for the whole picture
    assert np.array_equal(vio._converted(wide, 2), np.asarray(vio._rgb(wide).reduce(2)))


@pytest.mark.parametrize("orientation", range(1, 9))
def test_every_exif_orientation_is_turned_as_pillow_turns_it(tmp_path, orientation):
    from PIL import Image, ImageOps

    rng = np.random.default_rng(orientation)
    a = np.kron(rng.integers(0, 256, (6, 9, 3), dtype=np.uint8), np.ones((10, 10, 1), np.uint8))
    exif = Image.Exif()
    exif[0x0112] = orientation
    p = tmp_path / "turned.png"
    Image.fromarray(a).save(p, exif=exif)
    img, size = load_photo(str(p))
    want = np.asarray(ImageOps.exif_transpose(Image.open(p)).convert("RGB"))
    assert np.array_equal(img, want) and size == (want.shape[1], want.shape[0]) and img.flags.writeable


def test_a_picture_whose_decoder_needs_more_than_the_budget_is_refused(tmp_path, monkeypatch):
    from PIL import Image

    monkeypatch.setattr(vio, "DECODE_BUDGET", 20 * MB)
    pic = Image.new("RGB", (2000, 2000), (10, 200, 30))  # 16 MB decoded
    pic.save(tmp_path / "baseline.jpg")
    pic.save(tmp_path / "progressive.jpg", progressive=True, subsampling=0)  # + 24 MB of coefficients
    pic.save(tmp_path / "plain.webp")  # 16 bytes a pixel in the decoder
    assert load_photo(str(tmp_path / "baseline.jpg"), 800)[0].shape == (800, 800, 3)
    for name, advice in (("progressive.jpg", "baseline"), ("plain.webp", "JPEG or PNG")):
        with pytest.raises(ImageError) as e:
            load_photo(str(tmp_path / name), 800)
        assert e.value.kind == "too-large" and advice in str(e.value) and "\n" not in str(e.value)


def test_formats_with_no_business_here_are_not_opened(tmp_path):
    from PIL import Image

    p = tmp_path / "tile.png"
    Image.new("RGB", (64, 64), (1, 2, 3)).save(tmp_path / "tile.tga")
    os.replace(tmp_path / "tile.tga", p)  # a TGA named .png: judged by content, and not read
    with pytest.raises(ImageError) as e:
        load_photo(str(p))
    assert e.value.kind == "not-an-image"


def test_an_unreadable_file_says_so(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    p = tmp_path / "locked.jpg"
    p.write_bytes(b"\xff\xd8\xff")
    p.chmod(0)
    with pytest.raises(ImageError) as e:
        load_photo(str(p))
    assert e.value.kind == "unreadable" and "permission denied" in str(e.value)


def _jpeg(path, orientation: int = 1, **save) -> np.ndarray:
    """A photo-like colour JPEG (odd sides, so that reduced sizes round up), EXIF-turned."""
    from PIL import Image

    rng = np.random.default_rng(3)
    a = np.kron(rng.integers(0, 256, (41, 63, 3), dtype=np.uint8), np.ones((25, 25, 1), np.uint8))[:1023, :1571]
    a = (a.astype(np.int16) + rng.integers(-20, 21, a.shape)).clip(0, 255).astype(np.uint8)
    exif = Image.Exif()
    exif[0x0112] = orientation
    Image.fromarray(a).save(path, "JPEG", exif=exif, **save)
    return a


@pytest.mark.parametrize("save", [{"quality": 90}, {"quality": 70, "subsampling": 0},
                                  {"quality": 95, "progressive": True, "subsampling": 2}])
def test_a_colour_jpeg_decoded_by_opencv_is_pillows_picture(tmp_path, monkeypatch, save):
    """Colour JPEGs are decoded by OpenCV straight into the array: pixel for pixel what Pillow
    gives, at full size and reduced 2, 4 and 8 times, whatever the EXIF orientation."""
    real, taken = vio._opencv_jpeg, []

    def opencv(*args):
        taken.append(real(*args))
        return taken[-1]

    for orientation in (1, 6):
        p = tmp_path / f"o{orientation}.jpg"
        _jpeg(p, orientation, **save)
        for args in ({}, {"max_side": 800}, {"max_side": 400}, {"max_side": 300}, {"reduce": 8}):
            monkeypatch.setattr(vio, "_opencv_jpeg", opencv)
            fast = load_photo(str(p), **args)
            assert taken[-1] is not None  # the OpenCV path was taken
            monkeypatch.setattr(vio, "_opencv_jpeg", lambda *a: None)
            slow = load_photo(str(p), **args)
            same = fast[1] == slow[1] and np.array_equal(fast[0], slow[0])
            assert same and fast[0].flags.writeable, (orientation, args)
            assert fast[1] == ((1571, 1023) if orientation == 1 else (1023, 1571))  # turned as a person sees it


def test_jpegs_opencv_does_not_decode_as_pillow_go_through_pillow(tmp_path):
    """A JPEG cut short is refused as before, also when a complete thumbnail sits in its header;
    grey and CMYK JPEGs are read by Pillow."""
    from PIL import Image

    a = _jpeg(tmp_path / "whole.jpg")
    data = (tmp_path / "whole.jpg").read_bytes()
    (tmp_path / "cut.jpg").write_bytes(data[:len(data) * 2 // 3])
    with pytest.raises(ImageError, match="corrupt or truncated"):
        load_photo(str(tmp_path / "cut.jpg"))
    thumb = (tmp_path / "thumb.jpg")
    Image.fromarray(a[:40, :60]).save(thumb, "JPEG")
    payload = b"Exif\0\0" + thumb.read_bytes()  # a thumbnail's own scan and end marker, in an APP1 segment
    with_thumb = data[:2] + b"\xff\xe1" + (len(payload) + 2).to_bytes(2, "big") + payload + data[2:]
    assert vio._jpeg_complete(with_thumb) and not vio._jpeg_complete(with_thumb[:len(with_thumb) * 2 // 3])
    (tmp_path / "cut-thumb.jpg").write_bytes(with_thumb[:len(with_thumb) * 2 // 3])
    with pytest.raises(ImageError, match="corrupt or truncated"):
        load_photo(str(tmp_path / "cut-thumb.jpg"))
    for mode in ("L", "CMYK"):
        p = tmp_path / f"{mode}.jpg"
        Image.fromarray(a).convert(mode).save(p, "JPEG", quality=90)
        with Image.open(p) as im:
            assert vio._opencv_jpeg(str(p), im, im.size) is None
            want = np.asarray(im.convert("RGB"))
        assert np.array_equal(load_photo(str(p))[0], want)


def test_bytes_after_the_end_marker_and_mpo_files_take_the_opencv_path(tmp_path, monkeypatch):
    """Some phones add bytes after a JPEG's end (a motion photo's video, a maker's trailer); an
    MPO holds a second picture after the first: OpenCV decodes the first picture, as Pillow does."""
    from PIL import Image

    a = _jpeg(tmp_path / "whole.jpg")
    (tmp_path / "trailer.jpg").write_bytes((tmp_path / "whole.jpg").read_bytes() + b"\x00ftypmp42" + bytes(5000))
    Image.fromarray(a).save(tmp_path / "pair.mpo", "MPO", save_all=True, append_images=[Image.fromarray(a[::-1])])
    real, taken = vio._opencv_jpeg, []
    monkeypatch.setattr(vio, "_opencv_jpeg", lambda *args: taken.append(real(*args)) or taken[-1])
    for name in ("trailer.jpg", "pair.mpo"):
        fast = load_photo(str(tmp_path / name), 800)[0]
        assert taken[-1] is not None, name
        with Image.open(tmp_path / name) as im:
            assert im.format in ("JPEG", "MPO")
        monkeypatch.setattr(vio, "_opencv_jpeg", lambda *args: None)
        assert np.array_equal(fast, load_photo(str(tmp_path / name), 800)[0]), name
        monkeypatch.setattr(vio, "_opencv_jpeg", lambda *args: taken.append(real(*args)) or taken[-1])


def test_a_colour_jpeg_takes_no_more_than_its_decoded_pixels(tmp_path):
    from benchmarks.decode_memory import make

    p = tmp_path / "photo.jpg"
    make("baseline.jpg", SIDE, str(p))
    rise = _peak("load", str(p), _small(tmp_path))  # decoded at half size: 9 MP, 3 bytes a pixel
    assert rise < (SIDE // 2) ** 2 * 3 + 40 * MB, f"{rise / MB:.0f} MB"


def test_decode_speed_benchmark_times_both_paths_on_the_same_pixels(tmp_path, capsys):
    from benchmarks.decode_speed import main

    _jpeg(tmp_path / "a.jpg")
    main([str(tmp_path / "a.jpg"), "--rounds", "2", "--side", "800"])
    out = capsys.readouterr().out
    assert "1 of them decoded by OpenCV" in out and "Pillow" in out and "the same pixels: yes" in out
    assert vio._opencv_jpeg.__name__ == "_opencv_jpeg"  # the OpenCV path put back
