"""Join exported classifiers into one ONNX file that answers the mean of their probabilities.

    python -m models.ensemble models/tile_classifier.onnx /tmp/run12.onnx --out /tmp/pair.onnx

Every member must take the same input (size, mean, std) and give the same labels. The joined
graph feeds the one ``input`` to each member, takes each member's softmax, averages them and
answers the logarithm of the mean under the members' output name: a softmax of that (what
:class:`vision.classify.TileClassifier` takes of any model's output) is the mean probability
exactly, so the app reads the file like any other classifier. No weights change and no data is
needed: the members' graphs are copied as they are, their names prefixed ``m0/``, ``m1/``, …
"""

from __future__ import annotations

import argparse
import json

KEYS = ("classes", "input_size", "mean", "std", "layout")  # must agree among the members


def join(paths: list[str]):
    """The joined model (an ``onnx.ModelProto``) of the classifiers at ``paths``."""
    import onnx
    from onnx import TensorProto, helper

    if len(paths) < 2:
        raise ValueError("an ensemble needs at least two models")
    models = [onnx.load(p) for p in paths]
    metas = [{e.key: e.value for e in m.metadata_props} for m in models]
    for p, meta in zip(paths[1:], metas[1:]):
        for k in KEYS:
            if meta.get(k) != metas[0].get(k):
                raise ValueError(f"{p}: {k} {meta.get(k)} differs from {paths[0]}'s {metas[0].get(k)}")
    opsets = {(o.domain, o.version) for m in models for o in m.opset_import}
    if len(opsets) != 1:
        raise ValueError(f"the models are of different opsets: {sorted(opsets)}")
    first = models[0].graph
    inp, out = first.input[0], first.output[0]
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


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="join classifiers into one ONNX file answering their mean probability")
    ap.add_argument("models", nargs="+", help="exported classifiers (.onnx) with the same labels and input")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    import onnx

    onnx.save(join(a.models), a.out)
    print(f"wrote {a.out}: the mean of {len(a.models)} models")


if __name__ == "__main__":
    main()
