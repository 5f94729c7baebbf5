"""The optional sentence-transformers embedder, through a stand-in package: it must load local
files only (offline), return unit rows of the model's own size, and fail with a clear message."""

from __future__ import annotations

import importlib.machinery
import os
import sys
import types

import numpy as np
import pytest

from safebandit_core.battery.fit import build_battery_problem
from safebandit_core.battery.loader import load_embedded
from safebandit_core.data import embed


class FakeModel:
    """A stand-in SentenceTransformer: deterministic vectors of size 8 from the text's bytes."""

    calls: list[dict] = []

    def __init__(self, name: str, **kwargs) -> None:
        FakeModel.calls.append({"name": name, **kwargs, "offline": os.environ.get("HF_HUB_OFFLINE")})
        if name == "missing-model":
            raise OSError("not found in the local cache")

    def get_sentence_embedding_dimension(self) -> int:
        return 8

    def encode(self, texts, batch_size, convert_to_numpy, normalize_embeddings, show_progress_bar):
        out = np.array([[(sum(t.encode()) * (i + 1)) % 97 + 1.0 for i in range(8)] for t in texts])
        return out / np.linalg.norm(out, axis=1, keepdims=True) if normalize_embeddings else out


@pytest.fixture
def fake_package(monkeypatch):
    mod = types.ModuleType("sentence_transformers")
    mod.SentenceTransformer = FakeModel
    mod.__spec__ = importlib.machinery.ModuleSpec("sentence_transformers", loader=None)
    monkeypatch.setitem(sys.modules, "sentence_transformers", mod)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    FakeModel.calls.clear()
    return mod


def test_local_files_only_and_unit_rows(fake_package):
    emb = embed.make_embedder("sentence-transformers:my-local-model")
    assert FakeModel.calls[-1]["local_files_only"] is True
    assert FakeModel.calls[-1]["offline"] == "1"
    vecs = emb.embed(["a", "bb", "a"])
    assert vecs.shape == (3, 8) and emb.dim == 8
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0)
    np.testing.assert_array_equal(vecs[0], vecs[2])
    assert "sentence-transformers" in embed.available_embedders()


def test_missing_local_model_is_a_clear_error(fake_package):
    with pytest.raises(embed.EmbedderUnavailable, match="no local copy .*missing-model"):
        embed.make_embedder("sentence-transformers:missing-model")


def test_not_installed_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(embed.EmbedderUnavailable, match="not installed"):
        embed.SentenceEmbedder("anything")


def test_battery_problem_with_a_sentence_embedder(fake_package):
    steps = load_embedded().iloc[:1500]
    problem = build_battery_problem(steps, embedder=embed.make_embedder("sentence-transformers:m"))
    assert problem.X_replay.shape[1] == 8
    assert np.isfinite(problem.X_replay).all()
