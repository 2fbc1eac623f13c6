"""The JSON API's reference for people: one HTML page built from the OpenAPI document.

Every route with its summary, what it does, whether it needs a seat token, a
request that works as it stands (as ``curl``), the reason codes a refusal can
carry, and every message and enum of the contract. Self-contained: its style
is inline and it loads nothing from anywhere, so it works with no network.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from html import escape
from typing import Any

from webclient.openapi import document
from webclient.routes import BY_RPC

_STYLE = """
:root { color-scheme: light dark; --ink: #1b2430; --muted: #5a6678; --line: #d5dbe3;
  --card: #ffffff; --page: #eef2f6; --code: #f4f6f9; --accent: #1f5878; }
@media (prefers-color-scheme: dark) { :root { --ink: #e6ebf1; --muted: #a5b0bf; --line: #33404f;
  --card: #17202b; --page: #0f151d; --code: #0b1118; --accent: #7fb7d8; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--ink);
  background: var(--page); }
header, main { max-inline-size: 60rem; margin: 0 auto; padding: 1rem; }
h1 { margin: 0.5rem 0; font-size: 1.6rem; }
h2 { margin-block: 2rem 0.5rem; font-size: 1.25rem; }
h3 { margin: 0; font-size: 1.05rem; }
a { color: var(--accent); }
nav ul { columns: 2 16rem; padding-inline-start: 1.2rem; }
section.op, section.schema { background: var(--card); border: 1px solid var(--line);
  border-radius: 0.5rem; padding: 0.8rem 1rem; margin-block: 0.8rem; }
.route { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: baseline; }
.verb { font: 700 0.8rem ui-monospace, monospace; padding: 0.1rem 0.45rem; border-radius: 0.3rem;
  color: #fff; background: #2f6f4f; }
.verb.post { background: #1f5878; }
code, pre { font-family: ui-monospace, "Noto Sans Mono", monospace; font-size: 0.88rem; }
pre { background: var(--code); border: 1px solid var(--line); border-radius: 0.4rem;
  padding: 0.6rem 0.8rem; overflow-x: auto; white-space: pre-wrap; word-break: break-word; }
.muted { color: var(--muted); }
table { border-collapse: collapse; inline-size: 100%; }
td, th { text-align: start; padding: 0.2rem 0.5rem; border-block-end: 1px solid var(--line);
  vertical-align: top; }
.reasons code { display: inline-block; margin: 0.1rem 0.2rem; }
"""

#: Whether a route needs a seat token, for people.
_TOKEN_TEXT = {
    "required": "required (<code>Authorization: Bearer SEAT_TOKEN</code>).",
    "optional": "optional; without one you are a spectator.",
    "none": "none.",
}

_PLACEHOLDER_GAME = "GAME"


def _inline(text: str) -> str:
    """Escape ``text`` and turn its `backticks` into code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escape(text))


def _schema_name(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[1]
    if schema.get("type") == "array":
        return f"{_schema_name(schema['items'])}[]"
    return str(schema.get("format") or schema.get("type") or "object")


def _type_link(schema: dict[str, Any]) -> str:
    name = _schema_name(schema)
    base = name.removesuffix("[]")
    if base.startswith("tongiaki.v1.") or base == "Error":
        short = base.removeprefix("tongiaki.v1.")
        suffix = "[]" if name.endswith("[]") else ""
        return f'<a href="#{escape(base)}"><code>{escape(short)}</code></a>{suffix}'
    return f"<code>{escape(name)}</code>"


def _curl(base: str, path: str, verb: str, op: dict[str, Any]) -> str:
    url = base + path.replace("{game}", _PLACEHOLDER_GAME)
    query = [
        f"{p['name']}={p['example']}"
        for p in op.get("parameters", [])
        if p["in"] == "query" and "example" in p
    ]
    if query:
        url += "?" + "&".join(query)
    lines = [f"curl -X {verb.upper()} '{url}'" if verb != "get" else f"curl '{url}'"]
    if BY_RPC[op["operationId"]].token == "required":
        lines.append("  -H 'Authorization: Bearer SEAT_TOKEN'")
    body = op.get("requestBody")
    if body is not None:
        example = body["content"]["application/json"]["example"]
        lines.append("  -H 'Content-Type: application/json'")
        lines.append(f"  -d '{json.dumps(example, ensure_ascii=False)}'")
    return " \\\n".join(lines)


def _operation(base: str, path: str, verb: str, op: dict[str, Any]) -> str:
    rpc = op["operationId"]
    parts = [
        f'<section class="op" id="{escape(rpc)}">',
        f'<div class="route"><span class="verb {escape(verb)}">{escape(verb.upper())}</span>'
        f"<code>{escape(path)}</code><h3>{escape(op['summary'])}</h3></div>",
    ]
    for paragraph in op.get("description", "").split("\n\n"):
        parts.append(f"<p>{_inline(paragraph)}</p>")
    route = BY_RPC[rpc]
    parts.append(f"<p class='muted'>Seat token: {_TOKEN_TEXT[route.token]}</p>")
    query = [p for p in op.get("parameters", []) if p["in"] in ("query", "header")]
    if query:
        rows = "".join(
            f"<tr><td><code>{escape(p['name'])}</code></td><td>{escape(p['in'])}</td>"
            f"<td>{_type_link(p['schema'])}</td></tr>"
            for p in query
        )
        parts.append(f"<table><tr><th>parameter</th><th>in</th><th>type</th></tr>{rows}</table>")
    body = op.get("requestBody")
    if body is not None:
        schema = body["content"]["application/json"]["schema"]
        where = " (JSON; <code>name</code> comes from the path)" if "{game}" in path else " (JSON)"
        parts.append(f"<p>Body: {_type_link(schema)}{where}</p>")
    answer = op["responses"]["200"]["content"]
    kind, content = next(iter(answer.items()))
    parts.append(
        f"<p>Answer: {_type_link(content['schema'])}"
        f" <span class='muted'>({escape(kind)})</span></p>"
    )
    parts.append("<p>Example:</p>")
    parts.append(f"<pre>{escape(_curl(base, path, verb, op))}</pre>")
    reasons = route.reasons
    if reasons:
        codes = " ".join(f"<code>{escape(r)}</code>" for r in reasons)
        parts.append(f"<p class='reasons'>Refusals include {codes}.</p>")
    parts.append("</section>")
    return "\n".join(parts)


def _schema(name: str, schema: dict[str, Any]) -> str:
    short = name.removeprefix("tongiaki.v1.")
    parts = [f'<section class="schema" id="{escape(name)}"><h3><code>{escape(short)}</code></h3>']
    if "enum" in schema:
        values = " ".join(f"<code>{escape(v)}</code>" for v in schema["enum"])
        parts.append(f"<p>One of {values}.</p>")
    else:
        if "description" in schema:
            parts.append(f"<p class='muted'>{_inline(schema['description'])}</p>")
        rows = "".join(
            f"<tr><td><code>{escape(field)}</code></td><td>{_type_link(value)}</td></tr>"
            for field, value in schema.get("properties", {}).items()
        )
        if rows:
            parts.append(f"<table><tr><th>field</th><th>type</th></tr>{rows}</table>")
        elif "properties" in schema:
            parts.append("<p class='muted'>No fields.</p>")
    parts.append("</section>")
    return "\n".join(parts)


@lru_cache(maxsize=8)
def _page(base: str) -> str:
    doc = document()
    operations = [
        (path, verb, op) for path, item in doc["paths"].items() for verb, op in item.items()
    ]
    schemas = doc["components"]["schemas"]
    toc = "".join(
        f'<li><a href="#{escape(op["operationId"])}">{escape(op["summary"])}</a> '
        f"<span class='muted'>{escape(verb.upper())} {escape(path)}</span></li>"
        for path, verb, op in operations
    )
    body = "\n".join(_operation(base, path, verb, op) for path, verb, op in operations)
    types = "\n".join(_schema(name, schema) for name, schema in schemas.items())
    return f"""<!doctype html>
<html lang="en" dir="ltr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(doc["info"]["title"])}: API reference</title>
<style>{_STYLE}</style>
</head>
<body>
<header>
<h1>{escape(doc["info"]["title"])}: API reference</h1>
<p>The game server's <code>tongiaki.v1.GameService</code> over HTTP and JSON. Bodies and
answers are the contract's messages in the proto3 JSON mapping (field names in snake_case,
enums by name, 64-bit numbers as strings). The machine-readable form is
<a href="openapi.json"><code>openapi.json</code></a> (OpenAPI 3.1).</p>
<p>A seat token (from <a href="#JoinGame">Take a seat</a>) travels as
<code>Authorization: Bearer SEAT_TOKEN</code>; replace <code>GAME</code> in the examples with
a game's id, the part after <code>games/</code>. A refusal is
<code>{{"error": {{"code", "status", "reason", "message", "metadata"}}}}</code> with an HTTP
status; branch on <code>reason</code>, a stable code (each route below names its
usual ones; the contract's <code>tongiaki/reasons.py</code> lists them all).</p>
<nav><ul>{toc}</ul></nav>
</header>
<main>
<h2>Routes</h2>
{body}
<h2>Messages and enums</h2>
{types}
</main>
</body>
</html>
"""


def page(base: str) -> str:
    """The reference page, its examples aimed at ``base`` (e.g. ``http://127.0.0.1:8000``)."""
    return _page(base.rstrip("/"))
