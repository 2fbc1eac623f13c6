"""The OpenAPI 3.1 document of the JSON API, its schemas derived from the contract.

Each operation is one RPC of ``tongiaki.v1.GameService``; request and response
schemas are generated from the message descriptors, so the document cannot
drift from the proto files.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

from tongiaki.v1 import game_pb2, game_service_pb2
from webclient.routes import GRPC_ONLY, ROUTES, Route

_SCALARS: dict[int, dict[str, Any]] = {
    FieldDescriptor.TYPE_BOOL: {"type": "boolean"},
    FieldDescriptor.TYPE_STRING: {"type": "string"},
    FieldDescriptor.TYPE_BYTES: {"type": "string", "format": "byte"},
    FieldDescriptor.TYPE_INT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_SINT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_UINT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_INT64: {"type": "string", "format": "int64"},
    FieldDescriptor.TYPE_UINT64: {"type": "string", "format": "int64"},
    FieldDescriptor.TYPE_DOUBLE: {"type": "number"},
    FieldDescriptor.TYPE_FLOAT: {"type": "number"},
}

#: A request body for each operation with one: real values, accepted as they are.
EXAMPLES: dict[str, dict[str, Any]] = {
    "CreateGame": {
        "seats": ["COLOUR_YELLOW", "COLOUR_RED", "COLOUR_BLUE"],
        "settings": {
            "display_name": "Friday evening",
            "bots": [{"colour": "COLOUR_BLUE", "level": "BOT_LEVEL_GREEDY"}],
            "turn_timeout_seconds": 300,
            "timeout_bot": "BOT_LEVEL_RANDOM",
        },
    },
    "JoinGame": {"colour": "COLOUR_YELLOW", "display_name": "Ana"},
    "StartGame": {},
    "TakeBack": {"sequence": "4", "request_id": "9a1b77c2e3f0"},
    "SubmitAction": {
        "sequence": "3",
        "request_id": "5f2c9e1a07d4",
        "action": {"setup": {"beach": {"q": 0, "r": 0, "index": 0}}},
    },
    "LeaveGame": {},
    "SendMessage": {"phrase": "PHRASE_GOOD_GAME", "request_id": "3c41d0e2a9b8"},
    "ProposeRematch": {},
}

#: Query parameters' examples.
QUERY_EXAMPLES: dict[str, Any] = {"page_size": 20, "state": "GAME_STATE_OPEN"}

#: Where the human reference page is served.
REFERENCE_PATH = "/api/v1/reference"


def _ref(descriptor: Descriptor | EnumDescriptor) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{descriptor.full_name}"}


def _message(field: FieldDescriptor) -> Descriptor | None:
    """The message type of a message field that has a schema of its own."""
    kind = field.message_type
    if kind is None or kind.full_name == "google.protobuf.Timestamp":
        return None
    return kind


def _field(field: FieldDescriptor) -> dict[str, Any]:
    message = _message(field)
    if message is not None:
        schema: dict[str, Any] = _ref(message)
    elif field.type == FieldDescriptor.TYPE_MESSAGE:
        schema = {"type": "string", "format": "date-time"}
    elif field.enum_type is not None:
        schema = _ref(field.enum_type)
    else:
        schema = dict(_SCALARS[field.type])
    repeated: Any = getattr(field, "is_repeated", None)
    if repeated is None:
        repeated = getattr(field, "label", 0) == FieldDescriptor.LABEL_REPEATED
    return {"type": "array", "items": schema} if repeated else schema


def _schemas() -> dict[str, Any]:
    out: dict[str, Any] = {}
    todo: list[Descriptor | EnumDescriptor] = [
        *game_pb2.DESCRIPTOR.message_types_by_name.values(),
        *game_pb2.DESCRIPTOR.enum_types_by_name.values(),
        *game_service_pb2.DESCRIPTOR.message_types_by_name.values(),
    ]
    while todo:
        descriptor = todo.pop()
        if descriptor.full_name in out:
            continue
        if isinstance(descriptor, EnumDescriptor):
            out[descriptor.full_name] = {
                "type": "string",
                "enum": [v.name for v in descriptor.values],
            }
            continue
        properties = {}
        for field in descriptor.fields:
            properties[field.name] = _field(field)
            message = _message(field)
            if message is not None:
                todo.append(message)
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        oneofs = [o for o in descriptor.oneofs if not o.name.startswith("_")]
        if oneofs:
            schema["description"] = "; ".join(
                f"at most one of {', '.join(f.name for f in o.fields)}" for o in oneofs
            )
        out[descriptor.full_name] = schema
    return dict(sorted(out.items()))


def _error() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "error": {
                "type": "object",
                "properties": {
                    "code": {"type": "integer", "description": "HTTP status"},
                    "status": {"type": "string", "description": "gRPC status code name"},
                    "reason": {"type": "string", "description": "ErrorInfo reason code"},
                    "message": {"type": "string", "description": "for developers, English"},
                    "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
                },
            }
        },
    }


def _stream(route: Route) -> dict[str, Any]:
    """The operation of a route answered as Server-Sent Events."""
    return {
        "operationId": route.rpc,
        "summary": route.summary,
        "description": (f"gRPC: `tongiaki.v1.GameService/{route.rpc}`. {route.description}"),
        "parameters": [
            {"name": "game", "in": "path", "required": True, "schema": {"type": "string"}},
            {"name": "Last-Event-ID", "in": "header", "schema": {"type": "string"}},
            {"name": "after_sequence", "in": "query", "schema": {"type": "string"}},
        ],
        "responses": {"200": {"content": {"text/event-stream": {"schema": {"type": "string"}}}}},
    }


@cache
def document() -> dict[str, Any]:
    """The whole OpenAPI document."""
    service = game_service_pb2.DESCRIPTOR.services_by_name["GameService"]
    paths: dict[str, Any] = {}
    for route in ROUTES:
        if route.stream:
            paths.setdefault(route.url, {})[route.method] = _stream(route)
            continue
        rpc, path, verb = route.rpc, route.url, route.method
        method = service.methods_by_name[rpc]
        request, response = method.input_type, method.output_type
        operation: dict[str, Any] = {
            "operationId": rpc,
            "summary": route.summary,
            "description": f"{route.description}\n\ngRPC: `tongiaki.v1.GameService/{rpc}`.",
            "security": [{}, {"seatToken": []}],
            "responses": {
                "200": {"content": {"application/json": {"schema": _ref(response)}}},
                "default": {
                    "description": "refused; `reason` says why",
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}
                    },
                },
            },
        }
        parameters = []
        if "{game}" in path:
            parameters.append(
                {
                    "name": "game",
                    "in": "path",
                    "required": True,
                    "description": "the game id; the request's `name` is `games/{game}`",
                    "schema": {"type": "string"},
                }
            )
        if route.body:
            operation["requestBody"] = {
                "content": {
                    "application/json": {
                        "schema": _ref(request),
                        "example": EXAMPLES[rpc],
                    }
                },
                "description": "the request message; `name` comes from the path",
            }
        elif route.query:
            for field in request.fields:
                if field.name == "name":
                    continue
                parameter: dict[str, Any] = {
                    "name": field.name,
                    "in": "query",
                    "schema": _field(field),
                }
                if field.name in QUERY_EXAMPLES:
                    parameter["example"] = QUERY_EXAMPLES[field.name]
                parameters.append(parameter)
        if parameters:
            operation["parameters"] = parameters
        paths.setdefault(path, {})[verb] = operation
    schemas = _schemas()
    schemas["Error"] = _error()
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Tongiaki web gateway",
            "version": "v1",
            "description": (
                "The tongiaki.v1.GameService over HTTP and JSON (proto3 JSON mapping);"
                f" gRPC only: {', '.join(sorted(GRPC_ONLY))}. A page for people, with"
                f" examples: {REFERENCE_PATH}."
            ),
        },
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "seatToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "the seat_token of JoinGame",
                }
            },
        },
    }
