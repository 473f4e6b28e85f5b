"""Shared test settings.

Hypothesis runs a moderate number of examples by default, so the whole suite stays fast
on CI; ``HYPOTHESIS_PROFILE=thorough`` runs many more for a deliberate search.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
