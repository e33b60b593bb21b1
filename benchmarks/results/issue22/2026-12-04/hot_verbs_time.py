import sys, time, importlib.util, subprocess, json, statistics
mode = sys.argv[1]; game = sys.argv[2]
sys.path.insert(0, "/var/tmp/cg")
spec = importlib.util.spec_from_file_location("eng", "/work/main/benchmarks/engine.py"); eng = importlib.util.module_from_spec(spec); spec.loader.exec_module(eng)
if mode == "hot":
    import _hot
    from trickref.engine import masks, spades_common as S
    from trickref.engine.actions import Action
    _hot.install(S.SpadesTrickState, Action, masks.SEAT_PLAY, masks.BIT, masks.SEAT_CARD, S.SEATS, masks.SUIT_PLAYS, S.NOT_SUIT)
opts = eng.SPADES_LIKE_OPENSPIEL if game == "partnership-spades" else {}
r = eng.our_hands(game, 4, opts, 1.5, 1)
print(r["hands_per_second"])
