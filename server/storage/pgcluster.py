"""A private PostgreSQL cluster: for tests, benchmarks, and ``python -m webclient --nodes``.

``initdb`` into a temporary folder (or a folder of one's own, kept between
runs), the server started with ``pg_ctl`` on a free port of 127.0.0.1 with its
unix socket in that folder, trust authentication on loopback only (no
password, nothing reachable from another host), stopped and removed afterwards
(a folder of one's own is kept). No system service is used or started. Databases are
created on demand::

    with PgCluster() as cluster:
        url = cluster.create_database()   # postgresql://postgres@127.0.0.1:PORT/NAME

PostgreSQL refuses to run as root: when this process is root, the folder
belongs to the ``postgres`` system user (Debian's ``postgresql`` package makes
it) and the programs run through ``runuser -u postgres --``.

The programs are found by ``TONGIAKI_PG_BINDIR``, else the newest
``/usr/lib/postgresql/*/bin`` (Debian's layout), else ``PATH``. ``make postgres``
installs Debian's package when none is found.

``durable=False`` (the tests) turns off ``fsync`` and synchronous commit: the
data is thrown away anyway. Benchmarks keep the default (every commit flushed,
as in production).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import uuid
from pathlib import Path
from types import TracebackType
from typing import Any

import psycopg

#: The database superuser of a private cluster (no password; trust on loopback).
SUPERUSER = "postgres"
#: The system user that runs the cluster when this process is root.
SYSTEM_USER = "postgres"
#: Database names this helper accepts (it quotes nothing it did not check).
_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


class ClusterError(RuntimeError):
    """The cluster could not be set up, started or used."""


def find_bindir() -> Path:
    """The folder holding ``initdb``, ``pg_ctl`` and ``postgres``."""
    override = os.environ.get("TONGIAKI_PG_BINDIR")
    if override:
        path = Path(override)
        if not (path / "initdb").is_file():
            raise ClusterError(f"TONGIAKI_PG_BINDIR={override} holds no initdb")
        return path
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: _version_key(p.parent.parent.name),
    )
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).parent
    raise ClusterError(
        "PostgreSQL is not installed (no initdb under /usr/lib/postgresql/*/bin or on PATH); "
        "`make postgres` installs Debian's postgresql package"
    )


def _version_key(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", name)) or (0,)


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now (the caller retries if it is taken)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


class PgCluster:
    """One private PostgreSQL server, from ``start()`` to ``stop()`` (or a ``with`` block)."""

    host = "127.0.0.1"

    def __init__(
        self,
        *,
        durable: bool = True,
        max_connections: int = 300,
        settings: dict[str, str] | None = None,
        bindir: Path | None = None,
        folder: Path | None = None,
    ) -> None:
        #: A folder of one's own: made if missing, its data kept (and reused) after stop.
        self.keep = folder
        self.durable = durable
        self.max_connections = max_connections
        self.settings = dict(settings or {})
        self.bindir = bindir
        self.folder: Path | None = None
        self.port = 0
        self._admin: psycopg.Connection[Any] | None = None
        self._lock = threading.Lock()
        self._as_root = os.geteuid() == 0

    # ------------------------------------------------------------ lifecycle

    def start(self) -> PgCluster:
        """initdb into a new temporary folder and start the server; returns ``self``."""
        if self.folder is not None:
            raise ClusterError("the cluster is already started")
        bindir = self.bindir or find_bindir()
        self.bindir = bindir
        if self.keep is not None:
            folder = self.keep.resolve()
            folder.mkdir(parents=True, exist_ok=True)
        else:
            folder = Path(tempfile.mkdtemp(prefix="tongiaki-pg-"))
        self.folder = folder
        atexit.register(self.stop)
        try:
            if self._as_root:
                try:
                    user = pwd.getpwnam(SYSTEM_USER)
                except KeyError:
                    raise ClusterError(
                        f"running as root needs the '{SYSTEM_USER}' system user "
                        "(Debian's postgresql package creates it)"
                    ) from None
                os.chown(folder, user.pw_uid, user.pw_gid)
            folder.chmod(0o700)
            if (self.data / "PG_VERSION").exists():  # a kept folder: its data is reused
                if (self.data / "postmaster.pid").exists():  # left running by a killed run
                    self._run(
                        "pg_ctl", "stop", "--pgdata", str(self.data), "--mode", "fast",
                        "--wait", "--silent", check=False,
                    )  # fmt: skip
                self._start_on_a_free_port()
                return self
            self._run(
                "initdb",
                "--pgdata",
                str(self.data),
                "--username",
                SUPERUSER,
                "--auth",
                "trust",
                "--encoding",
                "UTF8",
                "--locale",
                "C",
                "--no-sync",
                "--no-instructions",
            )
            # Trust on loopback only: the unix socket (in the private folder) and 127.0.0.1.
            self._write(
                self.data / "pg_hba.conf",
                "# private test cluster: trust on loopback only\n"
                "local all all trust\n"
                "host all all 127.0.0.1/32 trust\n",
            )
            self._start_on_a_free_port()
        except BaseException:
            self.stop()
            raise
        return self

    def _start_on_a_free_port(self, attempts: int = 5) -> None:
        last = ""
        for _ in range(attempts):
            self.port = free_port(self.host)
            self._write_config()
            result = self._run(
                "pg_ctl",
                "start",
                "--pgdata",
                str(self.data),
                "--log",
                str(self.log_file),
                "--wait",
                "--timeout",
                "60",
                "--silent",
                check=False,
            )
            if result.returncode == 0:
                return
            last = self.log_text()
            if "could not bind" not in last and "already in use" not in last:
                break
        raise ClusterError(f"PostgreSQL did not start:\n{last}")

    def _write_config(self) -> None:
        settings = {
            "listen_addresses": f"'{self.host}'",
            "port": str(self.port),
            "unix_socket_directories": f"'{self.folder}'",
            "max_connections": str(self.max_connections),
            "logging_collector": "off",
            "log_min_messages": "warning",
        }
        if not self.durable:
            settings.update(
                fsync="off",
                synchronous_commit="off",
                full_page_writes="off",
            )
        settings.update(self.settings)
        lines = "".join(f"{key} = {value}\n" for key, value in settings.items())
        self._write(self.data / "postgresql.auto.conf", lines)

    def stop(self) -> None:
        """Stop the server at once and remove its folder (safe to call twice)."""
        folder, self.folder = self.folder, None
        if folder is None:
            return
        atexit.unregister(self.stop)
        if self._admin is not None:
            with contextlib.suppress(psycopg.Error):
                self._admin.close()
            self._admin = None
        pid_file = folder / "data" / "postmaster.pid"
        if pid_file.exists():
            self._run(
                "pg_ctl",
                "stop",
                "--pgdata",
                str(folder / "data"),
                "--mode",
                # Kept data is shut down cleanly; a temporary cluster's is thrown away.
                "fast" if self.keep is not None else "immediate",
                "--wait",
                "--silent",
                check=False,
            )
        if self.keep is None:
            shutil.rmtree(folder, ignore_errors=True)

    def restart(self, mode: str = "fast") -> None:
        """Restart the server on the same port (``fast``: every connection is cut)."""
        if self.folder is None:
            raise ClusterError("the cluster is not started")
        if self._admin is not None:
            with contextlib.suppress(psycopg.Error):
                self._admin.close()
            self._admin = None
        self._run(
            "pg_ctl",
            "restart",
            "--pgdata",
            str(self.data),
            "--mode",
            mode,
            "--log",
            str(self.log_file),
            "--wait",
            "--timeout",
            "60",
            "--silent",
        )

    def __enter__(self) -> PgCluster:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    # ------------------------------------------------------------ databases

    @property
    def running(self) -> bool:
        """Whether the server is up (answers on its port)."""
        if self.folder is None:
            return False
        try:
            with psycopg.connect(self.url("postgres"), connect_timeout=5):
                return True
        except psycopg.OperationalError:
            return False

    def url(self, database: str = "postgres") -> str:
        """The ``postgresql://`` URL of ``database`` over TCP on 127.0.0.1."""
        if self.folder is None:
            raise ClusterError("the cluster is not started")
        return f"postgresql://{SUPERUSER}@{self.host}:{self.port}/{database}"

    def create_database(self, name: str | None = None) -> str:
        """A new, empty database (a fresh name unless given); returns its URL."""
        if name is None:
            name = "t_" + uuid.uuid4().hex[:16]
        if not _NAME.match(name):
            raise ClusterError(f"not a plain database name: {name!r}")
        self._admin_execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def ensure_database(self, name: str) -> str:
        """``name``'s URL, the database made first if it is not there yet."""
        if name not in self.databases():
            self.create_database(name)
        return self.url(name)

    def drop_database(self, name: str) -> None:
        """Remove ``name``, closing whatever connections are still open to it."""
        if not _NAME.match(name):
            raise ClusterError(f"not a plain database name: {name!r}")
        self._admin_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def databases(self) -> list[str]:
        """The names of the databases made here (not the templates nor ``postgres``)."""
        with self._lock:
            rows = self._connection().execute(
                "SELECT datname FROM pg_database "
                "WHERE NOT datistemplate AND datname <> 'postgres' ORDER BY datname"
            )
            return [str(row[0]) for row in rows]

    def _admin_execute(self, sql: str) -> None:
        with self._lock:
            self._connection().execute(sql.encode())

    def _connection(self) -> psycopg.Connection[Any]:
        if self._admin is None or self._admin.closed:
            self._admin = psycopg.connect(self.url("postgres"), autocommit=True)
        return self._admin

    # ------------------------------------------------------------ helpers

    @property
    def data(self) -> Path:
        """The cluster's data directory."""
        if self.folder is None:
            raise ClusterError("the cluster is not started")
        return self.folder / "data"

    @property
    def log_file(self) -> Path:
        """The server's log."""
        if self.folder is None:
            raise ClusterError("the cluster is not started")
        return self.folder / "postgres.log"

    def log_text(self) -> str:
        """What the server logged so far ('' before it wrote anything)."""
        try:
            return self.log_file.read_text(errors="replace")
        except OSError:
            return ""

    def _command(self, program: str, *args: str) -> list[str]:
        assert self.bindir is not None
        command = [str(self.bindir / program), *args]
        if self._as_root:
            return ["runuser", "-u", SYSTEM_USER, "--", *command]
        return command

    def _run(
        self, program: str, *args: str, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            self._command(program, *args),
            check=False,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            cwd=self.folder or "/",
            env={**os.environ, "LC_ALL": "C"},
        )
        if check and result.returncode != 0:
            raise ClusterError(
                f"{program} failed with status {result.returncode}:\n{result.stdout}{result.stderr}"
            )
        return result

    def _write(self, path: Path, text: str) -> None:
        """Write a file of the cluster, owned by whoever runs it."""
        path.write_text(text)
        if self._as_root:
            user = pwd.getpwnam(SYSTEM_USER)
            os.chown(path, user.pw_uid, user.pw_gid)
        path.chmod(0o600)
