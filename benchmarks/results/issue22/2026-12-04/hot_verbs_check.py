import random, sys, time
sys.path.insert(0, "/var/tmp/cg")
from trickref.engine import cards as C, masks, spades_common as S
from trickref.engine.actions import Action
from trickref.engine.games import new_game, game_class
import copy
cls = game_class("partnership-spades")
# the class whose methods are used: the one defining apply
target = [k for k in cls.__mro__ if "apply" in k.__dict__][0]
print("target", target)
opts = {"trump": "spades", "must_beat": False, "first_lead": "left"}
def snapshot(st):
    return (st.phase, st.on_turn, list(st.masks), [tuple(x) for x in st.trick], list(st.tricks), st.led, st.win_card, st.broken, list(st.actions), list(st.totals) if hasattr(st,'totals') else None)
def run(n, seed):
    rng = random.Random(seed); deck = C.full_deck(); out=[]
    st = new_game("partnership-spades", 4, opts)
    for _ in range(n):
        if st.over or st.hand_number >= 30: st = new_game("partnership-spades", 4, opts)
        rng.shuffle(deck); st.start_hand(deck)
        seats = st.turn_seats()
        while seats:
            seat = seats[0] if len(seats) == 1 else rng.choice(seats)
            legal = st.legal_actions(seat)
            a = rng.choice(legal)
            if rng.random() < 0.02: # an illegal attempt
                try: st.apply(rng.choice(masks.PLAY if hasattr(masks,'PLAY') else legal), (seat+1)%4)
                except Exception as e: out.append(type(e).__name__+str(e))
            if a.kind == "exchange":
                a = Action("exchange", (a.value[0], tuple(sorted(rng.sample(st.discards, len(a.value[0]))))))
            seats = st.apply(a, seat)
            out.append((tuple(legal), seats, snapshot(st)))
    return out
ref = run(200, 5)
import _hot
_hot.install(target, Action, masks.SEAT_PLAY, masks.BIT, masks.SEAT_CARD, S.SEATS, masks.SUIT_PLAYS, S.NOT_SUIT)
got = run(200, 5)
print("same:", ref == got, len(ref))
