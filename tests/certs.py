"""Certificates made by a test (openssl), for TLS between its own processes."""

from __future__ import annotations

import subprocess
from pathlib import Path


def self_signed(folder: Path, stem: str = "") -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and localhost, and its key."""
    cert, key = folder / f"{stem}cert.pem", folder / f"{stem}key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
         "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key
