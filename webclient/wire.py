"""Messages of the contract as JSON: the proto3 JSON mapping, snake_case field names.

Every field is written even when it holds its default (``"q": 0``), so browsers
never guess; enums are their names (``"COLOUR_RED"``); 64-bit integers are
strings, as the mapping says. An action received this way can be sent back
unchanged.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

from google.protobuf import json_format
from google.protobuf.message import Message

M = TypeVar("M", bound=Message)


def to_json(message: Message) -> dict[str, Any]:
    """``message`` as a JSON object."""
    result: dict[str, Any] = json_format.MessageToDict(
        message,
        preserving_proto_field_name=True,
        always_print_fields_with_no_presence=True,
    )
    return result


def dumps(message: Message) -> str:
    """``message`` as compact JSON text."""
    return json.dumps(to_json(message), separators=(",", ":"), ensure_ascii=False)


def from_json(value: Any, message: M) -> M:
    """Fill ``message`` from a JSON object; unknown fields are an error."""
    if not isinstance(value, dict):
        raise json_format.ParseError("expected a JSON object")
    json_format.ParseDict(value, message)
    return message
