"""Refusals on the wire: each reason code's gRPC status, and the status of an error.

The reasons and their status codes are the contract's
(:mod:`tongiaki.reasons`); :func:`to_status` turns a
:class:`~server.game.errors.ServiceError` into the ``google.rpc.Status`` with
an ``ErrorInfo`` that clients branch on.
"""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from server.game.errors import ServiceError
from tongiaki.reasons import DOMAIN, STATUS

#: Every reason code the service can return, with its gRPC status code.
REASONS: dict[str, grpc.StatusCode] = {
    reason: getattr(grpc.StatusCode, name) for reason, name in STATUS.items()
}


def code_of(error: ServiceError) -> grpc.StatusCode:
    """The gRPC status code of ``error``'s reason."""
    return REASONS[error.reason]


def to_status(error: ServiceError) -> Any:
    """The ``grpc.Status`` (with a ``google.rpc.Status`` and ``ErrorInfo``) of ``error``."""
    info = error_details_pb2.ErrorInfo(reason=error.reason, domain=DOMAIN, metadata=error.metadata)
    detail = any_pb2.Any()
    detail.Pack(info)
    code: int = getattr(code_pb2, code_of(error).name)
    status = status_pb2.Status(code=code, message=error.message, details=[detail])
    return rpc_status.to_status(status)
