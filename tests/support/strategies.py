"""Hypothesis strategies shared by the engine's and the solver's property tests."""

from __future__ import annotations

from hypothesis import strategies as st

from door.engine import Variant

# The knobs that change which plays exist; scoring and undo do not.
RULE_KNOBS = {
    "draw": st.sampled_from([1, 3]),
    "passes": st.sampled_from([0, 1, 2, 3]),
    "reserve_size": st.sampled_from([0, 1, 5, 13, 26]),
    "columns": st.integers(1, 10),
    "base": st.sampled_from(["dealt", "ace", "choose"]),
    "wrap": st.sampled_from(["broken", "full"]),
    "moves": st.sampled_from(["whole", "partial"]),
    "spaces": st.sampled_from(["auto", "manual"]),
    "spaces_after_reserve": st.sampled_from(["any", "waste", "king"]),
}

rule_variants = st.builds(Variant, **RULE_KNOBS)

variants = st.builds(
    Variant,
    **RULE_KNOBS,
    undo=st.sampled_from(["none", "one", "unlimited"]),
    tournament=st.booleans(),
    scoring=st.sampled_from(["points", "vegas", "cards"]),
    multiplier=st.integers(1, 5),
    vegas_refund_on_win=st.booleans(),
)
