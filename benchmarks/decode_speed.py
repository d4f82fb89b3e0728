"""Time to load a phone photo at the working size: colour JPEGs decoded by OpenCV (as shipped)
against the same photos decoded by Pillow, side by side in one process.

    python -m benchmarks.decode_speed [PHOTO ...] [--rounds 5] [--side 1600]

Each photo is loaded with ``vision.io.load_photo(path, side)`` as the recogniser loads it (EXIF
turn, reduced decode, shrink to the working copy), once through the OpenCV path and once with it
turned off so that Pillow decodes, the two taking turns over ``--rounds`` rounds; each path's
quickest round counts. The two arrays are compared pixel for pixel. With no photos named, the
sample photos are grown to 4000 x 3000 JPEGs (quality 92, 4:2:0) in a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def twelve_mp_samples(folder: str) -> list[str]:
    """The sample photos grown to 4000 x 3000 JPEGs in ``folder``."""
    out = []
    for name in sorted(os.listdir(os.path.join(ROOT, "samples"))):
        if name.endswith(".jpg"):
            img = cv2.imread(os.path.join(ROOT, "samples", name))
            path = os.path.join(folder, name.replace(".jpg", "-12mp.jpg"))
            cv2.imwrite(path, cv2.resize(img, (4000, 3000), interpolation=cv2.INTER_CUBIC),
                        [cv2.IMWRITE_JPEG_QUALITY, 92])
            out.append(path)
    return out


def main(argv=None) -> None:
    from mjcam.vision import io as vio

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("photos", nargs="*", help="photos to load (default: the samples grown to 12 MP)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--side", type=int, default=1600, help="the working copy's long side")
    args = ap.parse_args(argv)
    opencv, taken = vio._opencv_jpeg, set()

    def counted(path, *rest):
        arr = opencv(path, *rest)
        if arr is not None:
            taken.add(path)
        return arr

    with tempfile.TemporaryDirectory() as tmp:
        photos = args.photos or twelve_mp_samples(tmp)
        best = {"OpenCV": np.inf, "Pillow": np.inf}
        same = True
        try:
            for k in range(max(1, args.rounds)):
                arrays = {}
                for name in (("OpenCV", "Pillow") if k % 2 == 0 else ("Pillow", "OpenCV")):
                    vio._opencv_jpeg = counted if name == "OpenCV" else (lambda *a: None)
                    t0 = time.perf_counter()
                    arrays[name] = [vio.load_photo(p, args.side)[0] for p in photos]
                    best[name] = min(best[name], (time.perf_counter() - t0) / len(photos))
                same &= all(np.array_equal(a, b) for a, b in zip(arrays["OpenCV"], arrays["Pillow"]))
        finally:
            vio._opencv_jpeg = opencv
    print(f"{len(photos)} photos, working copy {args.side} px, quickest of {args.rounds} rounds; "
          f"{len(taken)} of them decoded by OpenCV on its path (the rest by Pillow on both)")
    for name, s in best.items():
        print(f"  {name:7s} {1000 * s:6.1f} ms a photo")
    print(f"ratio OpenCV/Pillow: {best['OpenCV'] / best['Pillow']:.2f}x; the same pixels: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
