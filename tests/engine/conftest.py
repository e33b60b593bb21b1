"""pytest setup of the engine tests: the hypothesis profiles live in engine_helpers."""

import engine_helpers  # noqa: F401  (registers and loads the hypothesis profile)
