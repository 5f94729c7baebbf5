"""``shapes.first_max`` is ``jnp.argmax`` over the last axis, index for index: ties, infinities and NaN included."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from safebandit_core.shapes import first_max

SPECIAL = st.sampled_from([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 0.5])
VALUE = st.one_of(SPECIAL, st.floats(-3, 3))


@given(st.lists(st.lists(VALUE, min_size=1, max_size=9), min_size=1, max_size=6).filter(
    lambda rows: len({len(r) for r in rows}) == 1))
def test_first_max_is_argmax_on_every_row(rows):
    """Any values (repeated, signed zeros, ±∞, NaN): the same index as ``jnp.argmax``, row by row."""
    x = jnp.asarray(rows, jnp.float64)
    assert np.array_equal(np.asarray(first_max(x)), np.asarray(jnp.argmax(x, axis=-1)))


def test_first_max_inside_a_vmapped_scan_matches_argmax():
    """As the policies use it: one-hot masks of the first maximum under ``vmap`` in a ``scan`` (float32 too)."""
    for dtype in (jnp.float64, jnp.float32):
        x = jax.random.randint(jax.random.PRNGKey(0), (40, 7, 12), 0, 4).astype(dtype)  # many ties

        def step(f, dtype=dtype):
            return lambda c, row: (c, jax.vmap(lambda r: jax.nn.one_hot(f(r), r.shape[0], dtype=dtype))(row))

        ours = jax.lax.scan(step(first_max), 0, x)[1]
        theirs = jax.lax.scan(step(jnp.argmax), 0, x)[1]
        assert np.array_equal(np.asarray(ours), np.asarray(theirs))
