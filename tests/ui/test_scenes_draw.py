"""Every scene draws at both sizes without error (the screenshot scenarios, headless)."""

from __future__ import annotations

import pytest

from trickref.ui import draw as D
from trickref.ui.screenshots import make_app, scenarios

NAMES = [name for name, _ in scenarios()]


@pytest.mark.parametrize("name", NAMES)
def test_scene_draws_at_both_sizes(name):
    fn = dict(scenarios())[name]
    for size in ((800, 480), (1280, 720)):
        app = make_app(size)
        D.text_log = []
        try:
            scene = fn(app)
            app.render(force=True)
            texts = list(D.text_log)
        finally:
            D.text_log = None
        assert scene is not None and texts, name
        # every tappable button is a real touch target (>= 48 px at 800x480)
        for b in app.scene.buttons():
            if b.visible and b.enabled and b.rect.width:
                assert min(b.rect.size) >= 48 * app.theme.scale - 1, (name, b.name, b.rect)
        # nothing drawn off screen: buttons lie within the screen
        for b in app.scene.buttons():
            if b.visible and b.rect.width:
                assert app.screen.get_rect().contains(b.rect), (name, b.name, b.rect)


def test_screenshots_command_writes_pngs(tmp_path):
    from trickref.ui.screenshots import render_all

    files = render_all(tmp_path, only="home")
    assert {"home-800x480.png", "home-1280x720.png"} <= {f.name for f in files}
    assert all(f.stat().st_size > 1000 for f in files)
