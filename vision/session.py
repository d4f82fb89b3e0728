"""One ONNX model behind a stage: the session is made on first use (never at import), under a
lock, and shared between threads (onnxruntime sessions may run concurrently). What the stage
needs to know about its model — labels, input size, normalisation — is read from the model
file's metadata, so it travels with the weights."""

from __future__ import annotations

import json
import os
import threading

from mjcam.models.registry import verify


class ModelError(RuntimeError):
    """The model file is missing, unreadable or not the kind of model the stage needs."""


class _JsonValues(dict):
    """Metadata whose values are JSON, decoded when read (other keys may hold plain text)."""

    def __getitem__(self, key):
        return json.loads(super().__getitem__(key))


def default_threads() -> int:
    """Threads each model session computes with: ``MJCAM_THREADS`` where set, else two where the
    machine has them (a 12 MP photo reads about 14 % faster than on one; more gain little, the
    stages' networks being small)."""
    value = os.environ.get("MJCAM_THREADS", "")
    if value.strip().isdigit() and int(value) > 0:
        return int(value)
    return min(2, os.cpu_count() or 1)


class OnnxStage:
    """Base of the stages that run a model. Subclasses name the model (``what``) and read its
    metadata in :meth:`_configure` (a KeyError or ValueError there means the metadata is not
    what the stage needs). ``threads``: the session's threads (None: :func:`default_threads`)."""

    what = "model"

    def __init__(self, model_path: str, threads: int | None = None):
        self.model_path, self.threads = model_path, threads or default_threads()
        self._session = None
        self._lock = threading.Lock()

    @property
    def session(self):
        if self._session is None:
            with self._lock:
                if self._session is None:
                    self._session = self._load()
        return self._session

    def _load(self):
        import onnxruntime as ort

        if not os.path.exists(self.model_path):
            raise ModelError(f"{self.what} not found: {self.model_path}")
        wrong = verify(self.model_path)
        if wrong:
            raise ModelError(wrong)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = self.threads
        opts.inter_op_num_threads = 1
        if self.threads > 1:  # idle threads sleep rather than spin: the stages run one after another
            opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # onnxruntime plans memory per input shape and keeps each plan; ours vary from call to call
        # (the detector's look sizes, each photo's last batch), so the plans pile up: off, the
        # 12 MP valid photos peak 249 MB instead of 298, at the same speed
        opts.enable_mem_pattern = False
        try:
            sess = ort.InferenceSession(self.model_path, opts, providers=["CPUExecutionProvider"])
        except Exception as e:  # onnxruntime raises its own exception types
            raise ModelError(f"cannot load {self.what} {self.model_path}: {e}") from None
        raw = sess.get_modelmeta().custom_metadata_map
        try:
            self._configure(sess, _JsonValues(raw))
        except (KeyError, ValueError, TypeError) as e:
            raise ModelError(f"{self.model_path} has no {self.what} metadata ({e})") from None
        return sess

    def _configure(self, session, meta: dict) -> None:
        raise NotImplementedError
