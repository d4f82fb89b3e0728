"""The tile classifier: network, training and ONNX export (torch, optional extra ``train``)."""
