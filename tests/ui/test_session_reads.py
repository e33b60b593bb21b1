"""The session routes the kiosk from the table's published view without copying it.

Routing reads a few fields of the public view several times a frame (``route``, ``busy``,
``update``, ``after_action``); a deep copy at each read, of a view that grows with the game's
history, was a fifth of the CPU of a whole six-player Cancellation Hearts game by taps, whose
wall time on a loaded machine is its CPU over the share of a core it gets (issue 18). Code that
keeps or changes a view still gets its own copy (``public_view``)."""

from __future__ import annotations

from trickref.ui import table_snapshot
from trickref.ui.screenshots import start_game


def test_routing_reads_the_published_view_without_copying(small_app, monkeypatch):
    app = small_app
    session = start_game(app, "hearts", 4, humans=(0,), seed=5, options={"target": 50})
    app.route()
    route = session.route()
    copies: list[str] = []
    real = table_snapshot.TableSnapshot.public_view

    def counted(self):  # type: ignore[no-untyped-def]
        copies.append("public_view")
        return real(self)

    monkeypatch.setattr(table_snapshot.TableSnapshot, "public_view", counted)
    for _ in range(5):
        assert session.route() == route
        session.busy  # noqa: B018 - a read, as the loop does
        session.update(0.01)
        session.after_action()
    assert copies == []
    table = session.table
    assert table.public_read() is table.snapshot.public
    # the copy is still there for code that keeps a view, and equal to what routing read
    mine = table.public_view()
    assert mine == dict(table.public_read()) and mine is not table.public_read()
