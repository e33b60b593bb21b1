"""The pygame kiosk: the table's touchscreen.

- ``ui.app``: the main loop (``App``), ``trickref kiosk`` and ``run_default()`` (``trickref``
  with no arguments); ``ui.wake``: the table host's worker says "the table changed" (a
  redraw). Panel presses and card reads go to the table host, never through the loop.
- ``ui.scene`` / ``ui.scenes``: the scene state machine, one scene per module.
- ``ui.session``: one game on the kiosk: routing to scenes, bot pacing, hot-seat privacy.
- ``ui.table_client``: the kiosk's thin client of the table host (device/table/host.py, opened
  by device/table/open.py with the dealer simulated on a pty, the configured port, or the ideal
  dealer; the seat panels, the journal and the games folder), reading the snapshot the host's
  worker publishes after every change (``ui.table_snapshot``), never the live referee; ``ui.resume``: starting, resuming (from the
  journal) and saving games, every failure as words on screen.
- ``ui.card_art``, ``ui.suits``, ``ui.theme``, ``ui.widgets``, ``ui.keyboard``, ``ui.plot``: drawing.
- ``ui.screenshots``: ``trickref screenshots DIR``, and the staging API tests use to reach any
  scene through the public path (an instant-mode table host driven by the referee's own events).

Nothing here touches pygame at import time: modules import it inside functions or are only
imported once the app runs.
"""
