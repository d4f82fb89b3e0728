"""Join exported classifiers into one ONNX file that answers the mean of their probabilities.

    python -m models.ensemble /tmp/run6.onnx /tmp/run12.onnx --out /tmp/pair.onnx

Every member must take the same input (size, mean, std) and give the same labels. The joined
graph feeds the one ``input`` to each member, takes each member's softmax, averages them and
answers the logarithm of the mean under the members' output name: a softmax of that (what
:class:`vision.classify.TileClassifier` takes of any model's output) is the mean probability
exactly, so the app reads the file like any other classifier. No weights change and no data is
needed: the members' graphs are copied as they are, their names prefixed ``m0/``, ``m1/``, …
A file joined before counts as its networks, so ``models.ensemble models/tile_classifier.onnx
new.onnx`` adds one network with the same weight as each of the others, and ``models.ensemble
models/tile_classifier.onnx new.onnx --leave-out 0`` puts ``new.onnx`` in place of network 0.
``--extract K`` writes network K of a joined file as a classifier file of its own (the quick
network the app reads every crop with first, ``models/tile_classifier_quick.onnx``).
"""

from __future__ import annotations

import argparse
import json
import os

KEYS = ("classes", "input_size", "mean", "std", "layout")  # must agree among the members


def networks(path: str) -> list[tuple[object, dict]]:
    """The networks of the classifier file ``path`` with their metadata: the file's own model, or,
    for a file this module joined, each of its members cut out again (``onnx.utils.Extractor``
    from the member's input to its logits), so that joining such a file with more networks
    weighs every network alike."""
    import onnx
    from onnx.utils import Extractor

    model = onnx.load(path)
    meta = {e.key: e.value for e in model.metadata_props}
    if "ensemble_of" not in meta:
        return [(model, meta)]
    shared = {k: meta[k] for k in KEYS if k in meta}
    cut = Extractor(onnx.shape_inference.infer_shapes(model))  # it needs the inner tensors' types
    out = []
    for i, own in enumerate(json.loads(meta["ensemble_of"])):
        feed = next(n for n in model.graph.node if n.name == f"m{i}/feed")
        soft = next(n for n in model.graph.node if n.name == f"m{i}/softmax")
        sub = cut.extract_model([feed.output[0]], [soft.input[0]])
        _unprefix(sub.graph, f"m{i}/")  # so that joining again does not nest the names
        sub.ir_version = model.ir_version
        del sub.opset_import[:]
        sub.opset_import.extend(model.opset_import)
        out.append((sub, {**shared, **own}))
    return out


def _unprefix(graph, prefix: str) -> None:
    """Drop ``prefix`` from every name in ``graph`` that carries it (tensors, nodes, initializers)."""
    def bare(name: str) -> str:
        return name[len(prefix):] if name.startswith(prefix) else name

    for n in graph.node:
        n.name = bare(n.name)
        n.input[:] = [bare(x) for x in n.input]
        n.output[:] = [bare(x) for x in n.output]
    for v in list(graph.initializer) + list(graph.input) + list(graph.output) + list(graph.value_info):
        v.name = bare(v.name)


def join(paths: list[str], leave_out=()):
    """The joined model (an ``onnx.ModelProto``) of the classifiers at ``paths`` (a file already
    joined counts as its networks), without the networks whose places in that list of networks
    are in ``leave_out``."""
    import onnx
    from onnx import TensorProto, helper

    found = [(p, m, meta) for p in paths for m, meta in networks(p)]
    if any(not 0 <= k < len(found) for k in leave_out):
        raise ValueError(f"--leave-out {sorted(leave_out)}: there are networks 0 to {len(found) - 1}")
    found = [f for k, f in enumerate(found) if k not in set(leave_out)]
    if len(found) < 2:
        raise ValueError("an ensemble needs at least two networks")
    models = [m for _, m, _ in found]
    metas = [meta for _, _, meta in found]
    for p, _, meta in found[1:]:
        for k in KEYS:
            if meta.get(k) != metas[0].get(k):
                raise ValueError(f"{p}: {k} {meta.get(k)} differs from {paths[0]}'s {metas[0].get(k)}")
    opsets = {(o.domain, o.version) for m in models for o in m.opset_import}
    if len(opsets) != 1:
        raise ValueError(f"the models are of different opsets: {sorted(opsets)}")
    # the first network's input and output (a network cut out of a joined file has the file's own)
    inp, out = models[0].graph.input[0], models[0].graph.output[0]
    nodes, inits, probs = [], [], []
    for i, m in enumerate(models):
        g = onnx.compose.add_prefix_graph(m.graph, f"m{i}/")
        # the member's input is the joined model's; its output goes through a softmax
        nodes.append(helper.make_node("Identity", [inp.name], [g.input[0].name], name=f"m{i}/feed"))
        nodes.extend(g.node)
        inits.extend(g.initializer)
        probs.append(f"m{i}/probabilities")
        nodes.append(helper.make_node("Softmax", [g.output[0].name], [probs[-1]], axis=1, name=f"m{i}/softmax"))
    inits.append(helper.make_tensor("ensemble/share", TensorProto.FLOAT, [], [1.0 / len(models)]))
    nodes += [helper.make_node("Sum", probs, ["ensemble/sum"], name="ensemble/sum"),
              helper.make_node("Mul", ["ensemble/sum", "ensemble/share"], ["ensemble/mean"], name="ensemble/mean"),
              helper.make_node("Log", ["ensemble/mean"], [out.name], name="ensemble/log")]
    graph = helper.make_graph(nodes, "ensemble", [inp], [out], inits)
    joined = helper.make_model(graph, opset_imports=models[0].opset_import, ir_version=models[0].ir_version,
                               producer_name="mjcam models.ensemble")
    for k in KEYS:
        if k in metas[0]:
            joined.metadata_props.add(key=k, value=metas[0][k])
    members = [{k: v for k, v in meta.items() if k not in KEYS} for meta in metas]
    joined.metadata_props.add(key="ensemble_of", value=json.dumps(members))
    onnx.checker.check_model(joined)
    return joined


def extract(path: str, k: int):
    """Network ``k`` of the classifier file ``path`` as a classifier model of its own (an
    ``onnx.ModelProto`` with the file's labels, input and normalisation in its metadata, and
    ``network_of``: which file and network it is)."""
    import onnx

    found = networks(path)
    if not 0 <= k < len(found):
        raise ValueError(f"--extract {k}: {path} has networks 0 to {len(found) - 1}")
    model, meta = found[k]  # (loaded or cut out afresh by networks(): labelled here as it is)
    model.producer_name = "mjcam models.ensemble"
    del model.metadata_props[:]
    for key, value in meta.items():
        model.metadata_props.add(key=key, value=value)
    model.metadata_props.add(key="network_of", value=json.dumps({"file": os.path.basename(path), "network": k}))
    onnx.checker.check_model(model)
    return model


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="join classifiers into one ONNX file answering their mean probability")
    ap.add_argument("models", nargs="+", help="exported classifiers (.onnx) with the same labels and input")
    ap.add_argument("--out", required=True)
    ap.add_argument("--leave-out", type=int, nargs="+", default=[], metavar="K",
                    help="leave out network K (counting the networks of all the files in order, from 0)")
    ap.add_argument("--extract", type=int, metavar="K",
                    help="write network K of the one file given as a classifier of its own instead of joining")
    a = ap.parse_args(argv)
    import onnx

    try:
        if a.extract is not None:
            if len(a.models) != 1:
                raise ValueError("--extract takes one file")
            onnx.save(extract(a.models[0], a.extract), a.out)
            print(f"wrote {a.out}: network {a.extract} of {a.models[0]}")
            return
        joined = join(a.models, a.leave_out)
    except ValueError as e:
        raise SystemExit(f"models.ensemble: {e}") from None
    onnx.save(joined, a.out)
    count = len(json.loads(next(e.value for e in joined.metadata_props if e.key == "ensemble_of")))
    print(f"wrote {a.out}: the mean of {count} networks")


if __name__ == "__main__":
    main()
