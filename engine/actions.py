"""The shape of actions (CONFORMANCE.md "Decisions").

:func:`validate` tells a malformed action (not an action at all) from one that
is well formed but not an option of the pending decision; only the first is
``MALFORMED_ACTION``.
"""

from __future__ import annotations

from typing import Any

from .errors import ActionError, Reason
from .tiles import COLOURS

_INT = "int"
_HEX = "hex"
_BEACH = "beach"
_TAKE = "beach-or-null"
_INTS = "ints"
_SHIPS = "ships"

#: Every act with its keys and what each holds.
SCHEMAS: dict[str, dict[str, str]] = {
    "setup": {"beach": _BEACH},
    "expand": {"island": _HEX, "beaches": _INTS, "take": _TAKE},
    "royal": {"island": _HEX},
    "settle": {},
    "tonga": {"beaches": _INTS},
    "single": {"beach": _BEACH},
    "emigrate": {"beach": _BEACH, "dir": _INT},
    "land": {"ships": _SHIPS},
    "place": {"from": _HEX, "dir": _INT},
    "settle_ship": {"beach": _BEACH},
}


def _is_int(value: Any) -> bool:
    return type(value) is int


def _ints(value: Any, length: int | None = None) -> bool:
    return (
        isinstance(value, (list, tuple))
        and (length is None or len(value) == length)
        and all(_is_int(v) for v in value)
    )


def _fits(kind: str, value: Any) -> bool:
    if kind == _INT:
        return _is_int(value)
    if kind == _HEX:
        return _ints(value, 2)
    if kind == _BEACH:
        return _ints(value, 3)
    if kind == _TAKE:
        return value is None or _ints(value, 3)
    if kind == _INTS:
        return _ints(value)
    if kind == _SHIPS:
        return isinstance(value, (list, tuple)) and all(
            isinstance(s, (list, tuple)) and len(s) == 2 and _is_int(s[0]) and s[1] in COLOURS
            for s in value
        )
    raise AssertionError(kind)


def validate(action: Any) -> None:
    """Raise ``MALFORMED_ACTION`` unless ``action`` has the shape of some act."""
    if not isinstance(action, dict):
        raise ActionError(Reason.MALFORMED_ACTION, "an action is a JSON object")
    act = action.get("act")
    schema = SCHEMAS.get(act) if isinstance(act, str) else None
    if schema is None:
        raise ActionError(Reason.MALFORMED_ACTION, f"unknown act {act!r}", acts=sorted(SCHEMAS))
    keys = set(action) - {"act"}
    if keys != set(schema):
        raise ActionError(
            Reason.MALFORMED_ACTION,
            f"{act!r} takes the keys {sorted(schema)}, not {sorted(keys)}",
            act=act,
            expected=sorted(schema),
        )
    for key, kind in schema.items():
        if not _fits(kind, action[key]):
            raise ActionError(
                Reason.MALFORMED_ACTION, f"{act!r}: {key!r} is not a {kind}", act=act, field=key
            )
