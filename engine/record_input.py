"""A record file read as untrusted input: what ``records.parse`` checks before it reads a field.

Whatever file a person hands to ``trickref replay`` or ``trickref verify`` (a record from
another table, a file that only looks like one, something made to break the reader) ends in
one ``RecordError`` naming the field and the problem, never a traceback:

- nesting: Python's JSON reader follows nesting by recursion, so a few thousand ``[`` end in
  RecursionError, and a file nested just under that limit breaks later code that walks it. A
  record is at most 7 levels deep (record, hands, hand, actions, action, exchange, cards), so
  anything deeper than ``MAX_DEPTH`` is refused;
- ``hands`` must be there (a record of a game not dealt yet has ``"hands": []``): a file
  without it is not a game record, and replaying it as an empty game would say nothing wrong;
- a deck holds card names (``"QS"``, RECORDS.md "Cards"): the engine's card numbers are not
  part of the format, so ``51`` in a deck is not a card.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from .errors import RecordError

MAX_DEPTH = 32  # far above a record's 7 levels, far below the JSON reader's recursion limit


def load_json(data: str | bytes) -> Any:
    """The JSON value of a record file's text; RecordError ("file") when it is not JSON, not
    UTF-8, or nested deeper than ``MAX_DEPTH``."""
    try:
        obj = json.loads(data)
    except json.JSONDecodeError as e:
        raise RecordError("file", f"not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None
    except UnicodeDecodeError as e:
        raise RecordError("file", f"not UTF-8 text: {e.reason}") from None
    except RecursionError:
        raise RecordError("file", f"nested too deeply to read (a record is at most {MAX_DEPTH} levels deep)") from None
    check_depth(obj)
    return obj


def check_depth(obj: Any, limit: int = MAX_DEPTH) -> None:
    """RecordError ("file") when ``obj`` nests lists and objects more than ``limit`` deep
    (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, Mapping):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            raise RecordError("file", f"nested more than {limit} levels deep (a record is at most 7): not a game record")
        stack.extend((c, depth + 1) for c in children if isinstance(c, (Mapping, list)))


def require_hands(obj: Mapping[str, Any]) -> None:
    """RecordError ("hands") when the record has no ``hands`` list at all."""
    if "hands" not in obj:
        raise RecordError("hands", "missing: a record lists its hands (\"hands\": [] before the first deal)")


def check_card_names(deck: Sequence[Any], field: str) -> None:
    """RecordError naming the first entry of ``deck`` that is not a card name (a string)."""
    for i, c in enumerate(deck):
        if not isinstance(c, str):
            raise RecordError(f"{field}[{i}]", f"not a card: {c!r} (cards are written like 'QS' or 'TD')")
