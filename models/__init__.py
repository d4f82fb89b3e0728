"""The shipped ONNX models and their registry (installed as ``mjcam.models``); in a checkout, also the code that trains them (``python -m models.train`` and others, the ``train`` extra)."""
