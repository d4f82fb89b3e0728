"""Quantize the tile classifier and detector to 8 bits, calibrated on what the recogniser feeds them.

    python -m models.quantize --data DATA --photos 80 --out-dir /tmp/mjcam-int8

The recogniser reads ``--photos`` training photos (HK train and rethink-bonus train, in turns;
never the tuning or held-out photos, ``datasets.splits``) with the float models while every input
the classifier and the detector are given is kept; those inputs calibrate onnxruntime's static
quantization (QDQ, weights per output channel, activations' ranges by their extremes, or
``--calibration percentile`` / ``entropy``; ``--float-ends`` leaves each network's first and last
layers in floating point; ``--only`` quantizes one network; ``--classifier`` another classifier
than the shipped one, e.g. one taught for 8 bits by ``models.train --eight-bit``). Each model's
metadata (classes, input size, normalisation, threshold) is carried over. Try the results with
``MJCAM_CLASSIFIER`` / ``MJCAM_DETECTOR`` or the benchmarks' ``--model`` / ``--detector``.

Needs the ``onnx`` package (``pip install -e '.[train]'``).
"""

from __future__ import annotations

import argparse
import os
import tempfile

import numpy as np

from datasets.splits import split

#: calibration inputs kept per model at most (the detector's are whole looks, about 1.3 MB each)
MOST_INPUTS = 400


class _Recorder:
    """Wraps an onnxruntime session: runs it and keeps (a random share of) the feeds it is given."""

    def __init__(self, session, keep: list, rng: np.random.Generator, share: float):
        self._session, self._keep, self._rng, self._share = session, keep, rng, share

    def run(self, outputs, feed, *args, **kwargs):
        if len(self._keep) < MOST_INPUTS and self._rng.random() < self._share:
            self._keep.append({k: np.array(v) for k, v in feed.items()})
        return self._session.run(outputs, feed, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._session, name)


def calibration_inputs(data: str, photos: int, seed: int = 0, classifier_file: str | None = None) -> tuple[list, list]:
    """The classifier's and the detector's inputs while the recogniser reads ``photos`` training
    photos with the float models (``classifier_file``: that classifier in place of the shipped one,
    so that its crops are cut at its own input size)."""
    from mjcam.vision.classify import TileClassifier
    from mjcam.vision.pipeline import Recognizer

    from datasets.readers import held_out_sources, read_yolo

    s = split(data, seed=seed)
    rng = np.random.default_rng(seed)
    # the training photos held out of every model's training (where settings are chosen: the
    # benchmarks' ``--photos held-out``) are left out too
    held = held_out_sources(read_yolo(os.path.join(data, "roboflow-hk-chinese"), "train"), 0.1, 1)
    pools = [[r for r in s.hk_train if r.source not in held], list(s.rethink_train)]
    for p in pools:
        rng.shuffle(p)
    chosen = [r for pair in zip(*pools) for r in pair][:photos]
    rec = Recognizer(classifier=TileClassifier(classifier_file) if classifier_file else None)
    classifier, detector = [], []
    clf, det = rec.classifier, rec.stages.find.proposers[0]
    clf._session = _Recorder(clf.session, classifier, rng, 1.0)
    det._session = _Recorder(det.session, detector, rng, 0.5)
    for r in chosen:
        rec(r.path)
    return classifier, detector


#: the detector's nodes left in floating point: its heads (tile centres, sizes, offsets)
DETECTOR_FLOAT = ("/heat/Conv", "/size/Conv", "/offset/Conv", "/Sigmoid", "/Sigmoid_1")


#: inputs one by one, at most this many, for a calibration that makes histograms of activations
MOST_ALIKE = 600


def _alike(inputs: list) -> list:
    """The feeds split one input each and only those of the commonest shape kept (at most
    ``MOST_ALIKE``, spread over all): onnxruntime's histogram calibrators stack every activation
    of every feed, so all must share one shape (the detector's looks come in many sizes)."""
    ones = [{k: v[i:i + 1] for k, v in feed.items()} for feed in inputs for i in range(len(next(iter(feed.values()))))]
    if not ones:
        return []
    shapes = [tuple(v.shape for v in feed.values()) for feed in ones]
    common = max(set(shapes), key=shapes.count)
    kept = [feed for feed, shape in zip(ones, shapes) if shape == common]
    step = max(1, -(-len(kept) // MOST_ALIKE))
    return kept[::step]


#: how activations' ranges are set from the calibration inputs (onnxruntime's calibrators): their
#: extremes, or the 99.999th percentile of their magnitudes, or the range that loses least
#: information (entropy)
CALIBRATIONS = ("minmax", "percentile", "entropy")


def ends(path: str) -> tuple[str, ...]:
    """The nodes ``--float-ends`` leaves in floating point: the network's first convolution and its
    last fully connected layer, where it has one (a detector's heads are left in floating point
    anyway, :data:`DETECTOR_FLOAT`)."""
    import onnx

    nodes = onnx.load(path).graph.node
    convs = [n.name for n in nodes if n.op_type == "Conv"]
    dense = [n.name for n in nodes if n.op_type in ("Gemm", "MatMul")]
    return tuple(convs[:1] + dense[-1:])


def quantize(src: str, out: str, inputs: list, keep_float=(), calibration: str = "minmax") -> None:
    """``src`` quantized to 8 bits into ``out``, calibrated on ``inputs`` (feeds) as ``calibration``
    says (:data:`CALIBRATIONS`), the nodes ``keep_float`` left in floating point, metadata kept."""
    import onnx
    from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType,
                                          quantize_static)
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Feeds(CalibrationDataReader):
        def __init__(self):
            self._it = iter(inputs)

        def get_next(self):
            return next(self._it, None)

    method = {"minmax": CalibrationMethod.MinMax, "percentile": CalibrationMethod.Percentile,
              "entropy": CalibrationMethod.Entropy}[calibration]
    if calibration != "minmax":
        inputs = _alike(inputs)
    if not inputs:
        raise SystemExit(f"no calibration inputs for {src}: are the training photos under --data?")
    with tempfile.TemporaryDirectory() as tmp:
        pre = os.path.join(tmp, "pre.onnx")
        quant_pre_process(src, pre)
        missing = set(keep_float) - {n.name for n in onnx.load(pre).graph.node}
        if missing:
            raise SystemExit(f"{src}: no nodes named {', '.join(sorted(missing))} to leave in floating point")
        quantize_static(pre, out, Feeds(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        nodes_to_exclude=list(keep_float), calibrate_method=method)
    m, source = onnx.load(out), onnx.load(src)
    del m.metadata_props[:]
    for p in source.metadata_props:
        m.metadata_props.add(key=p.key, value=p.value)
    onnx.save(m, out)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m models.quantize", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--photos", type=int, default=80, help="training photos read to calibrate on")
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--calibration", choices=CALIBRATIONS, default="minmax",
                    help="how activations' ranges are set: their extremes (default), a percentile, or by entropy")
    ap.add_argument("--float-ends", action="store_true", help="leave each model's first and last layers in floating point")
    ap.add_argument("--only", choices=("classifier", "detector"), help="quantize this model only")
    ap.add_argument("--classifier", help="the classifier to quantize (default: the shipped one), e.g. one "
                                         "exported by models.train --eight-bit")
    a = ap.parse_args(argv)
    from models.registry import SHIPPED

    if os.path.abspath(a.out_dir) == os.path.dirname(SHIPPED["classifier"].path):
        raise SystemExit("--out-dir: a folder other than the shipped models' (they are read to calibrate)")
    if a.classifier and not os.path.isfile(a.classifier):
        raise SystemExit(f"--classifier: no such file {a.classifier}")
    os.makedirs(a.out_dir, exist_ok=True)
    classifier, detector = calibration_inputs(a.data, a.photos, a.seed, a.classifier)
    print(f"calibration inputs: classifier {len(classifier)} batches, detector {len(detector)} looks")
    for name, feeds, keep in (("classifier", classifier, ()), ("detector", detector, DETECTOR_FLOAT)):
        if a.only and name != a.only:
            continue
        src = a.classifier if name == "classifier" and a.classifier else SHIPPED[name].path
        keep = tuple(keep) + (ends(src) if a.float_ends else ())
        out = os.path.join(a.out_dir, SHIPPED[name].file)
        quantize(src, out, feeds, keep, a.calibration)
        print(f"{name}: {out} ({os.path.getsize(out) / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
