"""The pygame kiosk: the table's touchscreen.

- ``ui.app``: the main loop (``App``), ``trickref kiosk`` and ``run_default()`` (``trickref``
  with no arguments), ``post_table_event`` for other threads (GPIO seat panels, the dealer
  link) to hand events to the loop.
- ``ui.scene`` / ``ui.scenes``: the scene state machine, one scene per module.
- ``ui.session``: one game on the kiosk: routing to scenes, bot pacing, hot-seat privacy.
- ``ui.local_table``: a thin simulated table (engine + bots + a pretend dealer) with the view
  shape of engine.referee, to be swapped for the referee-backed host loop.
- ``ui.card_art``, ``ui.theme``, ``ui.widgets``, ``ui.keyboard``, ``ui.plot``: drawing.
- ``ui.screenshots``: ``trickref screenshots DIR``.

Nothing here touches pygame at import time: modules import it inside functions or are only
imported once the app runs.
"""
