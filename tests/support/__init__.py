"""What the tests share: callers of every kind, doors to call, and the steps of a visit.

Test modules import from here, never from one another nor from ``conftest`` (which holds
only fixtures and settings)."""
