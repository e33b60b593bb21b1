"""Headless kiosk tests: SDL's dummy video driver, no audio, a throwaway config file."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"
os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _config_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TRICKREF_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("TRICKREF_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("TRICKREF_HOME", str(tmp_path / "home"))  # journal and games folder


@pytest.fixture(autouse=True)
def _close_tables():
    """Stop the simulated dealers and worker threads of games a test left running."""
    yield
    import gc

    from trickref.ui.table_client import TableClient

    for obj in gc.get_objects():
        if isinstance(obj, TableClient):
            obj.close()


@pytest.fixture(params=[(800, 480), (1280, 720)], ids=["800x480", "1280x720"])
def size(request):
    return request.param


@pytest.fixture
def app(size):
    from trickref.ui.screenshots import make_app

    return make_app(size)


@pytest.fixture
def small_app():
    from trickref.ui.screenshots import make_app

    return make_app((800, 480))
