"""Club night: many tables on one Mosquitto broker, duplicate deals, live standings (docs/CLUB.md).

``link.ClubLink`` is the table's side (what a table host calls); ``hub.Hub`` the director's;
``broker.Broker`` runs Mosquitto; ``scoring`` is the pure duplicate scoring; ``web`` serves the
standings page; ``cli.register`` adds ``trickref club``.
"""
