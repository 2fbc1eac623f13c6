"""How deeply JSON text nests, found without parsing it (standard library only).

Parsers recurse once per level of nesting, so text nested thousands of levels
deep exhausts the stack; it is measured and refused before it is parsed. The
gateway uses this too.
"""

from __future__ import annotations


def depth(text: str | bytes, most: int) -> int:
    """The deepest nesting of arrays and objects in ``text``, counting up to ``most + 1``.

    Brackets inside strings do not count. The scan stops as soon as the depth
    passes ``most``, so the answer ``most + 1`` means "too deep".
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    level = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            level += 1
            if level > deepest:
                deepest = level
                if deepest > most:
                    return deepest
        elif char in "]}":
            level -= 1
    return deepest
