"""Starting an untrusted bot's process natively: inside a bubblewrap sandbox, with limits.

Every bot process (a hosted Python bot, a command bot, an Atomas one-shot command) is
started through a ``Sandbox``. It gets its own mount, PID, IPC, UTS and network
namespaces; a root file system that holds only the system (``/usr``, ``/etc``), the Python
install and the engine package, all read-only; a small private ``/tmp`` whose ``bot``
folder is its working directory, with the files named on its command line copied in (a
per-turn bot's kept files too, laid out by ``engine.bots.keeper``: nothing of the host's
file system is ever writable inside); no network; its own session. It runs as a user of
its own: when the controller is root, a fresh unprivileged uid per bot (so the process
limit counts that bot alone); otherwise the caller's uid inside a user namespace, shown as
``nobody``. Its memory (address space), processes and open files are limited with
``prlimit``.

What the bot cannot see it cannot touch: the controller and the other bots are outside its
PID namespace (no signals, no ``ptrace``, no ``/proc/<pid>``), the other bots' files, the
controller's command line and the replay path are not in its file system. When the
sandbox's first process ends or is killed, the kernel kills everything left in its PID
namespace, so nothing a bot forked outlives its game.

``Unsandboxed`` starts the same processes directly (``--no-sandbox``), still with the
limits and in a process group of their own that is killed as a group.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

BWRAP = os.environ.get("KOTH_BWRAP", "/usr/bin/bwrap")  # Debian's bubblewrap
ENGINE_ROOT = Path(__file__).resolve().parents[2]
SANDBOX_ENGINE_ROOT = "/opt/koth"  # where the engine package is seen inside
WORKDIR = "/tmp/bot"  # the bot's working directory inside
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# Unprivileged uids for bots when the controller is root: one per bot, from a random start
# so two controllers on one machine rarely share one (the process limit is per uid).
_BOT_UIDS = range(200_000, 1_000_000)
_next_uid = _BOT_UIDS.start + secrets.randbelow(len(_BOT_UIDS) - 10_000)


class SandboxError(Exception):
    """The sandbox cannot start on this machine; the message says why, in one line."""


@dataclass(frozen=True)
class Limits:
    """Per bot process (its children share the process count)."""

    memory_mb: int = 1024  # address space
    processes: int = 128  # threads count too
    open_files: int = 256
    disk_mb: int = 64  # the private /tmp (memory-backed); a per-turn bot's kept files too
    files: int = 1024  # names (files, folders, links...) in a per-turn bot's kept folder

    def prlimit_args(self) -> list[str]:
        return ["prlimit", f"--as={self.memory_mb << 20}", f"--nproc={self.processes}",
                f"--nofile={self.open_files}", "--core=0", "--"]


def _allocate_uid() -> int:
    global _next_uid
    uid = _next_uid
    _next_uid = _BOT_UIDS.start if _next_uid + 1 >= _BOT_UIDS.stop else _next_uid + 1
    return uid


@dataclass(frozen=True)
class KeeperFds:
    """A per-turn bot's run with its kept folder (``engine.bots.kept``): the sandbox's first
    process is the keeper (``engine.bots.keeper``), which lays out the folder from
    ``archive`` (read-only), runs the bot and sends the folder back on ``report``."""

    archive: int
    report: int
    quota: int  # bytes of files kept
    max_entries: int  # files and folders kept


class Sandbox:
    """Starts processes in bubblewrap; ``jail()`` gives one bot its identity."""

    sandboxed = True
    engine_root = SANDBOX_ENGINE_ROOT
    workdir = WORKDIR

    def __init__(self, limits: Limits | None = None, bwrap: str = BWRAP) -> None:
        self.limits = limits or Limits()
        self.bwrap = bwrap
        self.as_root = os.geteuid() == 0
        python_dir = str(Path(sys.executable).parent)
        self.path = f"{python_dir}:{SYSTEM_PATH}"
        self.python = sys.executable

    def probe(self) -> None:
        """Start a sandbox once with the full set-up; raises ``SandboxError`` if it fails."""
        if not os.path.exists(self.bwrap):
            raise SandboxError(f"bubblewrap is not installed ({self.bwrap} is missing)")
        for tool in ("prlimit", "setpriv") if self.as_root else ("prlimit",):
            if shutil.which(tool) is None:
                raise SandboxError(f"{tool} (util-linux) is missing")
        jail = self.jail()
        try:
            done = jail.run([self.python, "-c", "import engine.bots.host"], timeout=30,
                            env={"PYTHONPATH": self.engine_root})
        except (OSError, subprocess.SubprocessError) as exc:
            raise SandboxError(f"bubblewrap did not start: {exc}") from None
        if done.returncode != 0:
            reason = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["no message"])[-1]
            raise SandboxError(f"bubblewrap failed to start a test sandbox: {reason}")

    def jail(self) -> Jail:
        return Jail(self, _allocate_uid() if self.as_root else 65534)

    def _binds(self) -> list[str]:
        """The read-only file system: the system, the Python install, the engine package
        (after the private /tmp is mounted: a Python install under /tmp stays visible)."""
        args: list[str] = []
        for top in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
            path = Path("/") / top
            if path.is_symlink():
                args += ["--symlink", os.readlink(path), f"/{top}"]
            elif path.is_dir():
                args += ["--ro-bind", str(path), f"/{top}"]
        args += ["--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
        made = {"/", "/usr", "/etc", "/opt", "/tmp"}
        args += ["--perms", "0755", "--dir", "/opt"]
        for prefix in _python_roots():
            for parent in reversed(Path(prefix).parents):
                if str(parent) not in made:
                    made.add(str(parent))
                    args += ["--perms", "0755", "--dir", str(parent)]
            args += ["--ro-bind", prefix, prefix]
            made.add(prefix)
        args += ["--perms", "0755", "--dir", SANDBOX_ENGINE_ROOT,
                 "--ro-bind", str(ENGINE_ROOT / "engine"), f"{SANDBOX_ENGINE_ROOT}/engine"]
        return args

    def command(self, uid: int, argv: Sequence[str], files: Mapping[str, tuple[int, bool]],
                env: Mapping[str, str], keeper: KeeperFds | None = None) -> list[str]:
        """The bwrap command line; ``files`` maps a name in the working dir to (fd, executable);
        with ``keeper``, a per-turn bot's run with its kept folder (``KeeperFds``)."""
        args = [self.bwrap, "--unshare-pid", "--unshare-ipc", "--unshare-net", "--unshare-uts",
                "--unshare-cgroup-try", "--die-with-parent", "--new-session"]
        if not self.as_root:
            args += ["--unshare-user", "--uid", str(uid), "--gid", str(uid)]
        tmp_bytes = self.limits.disk_mb << 20
        if keeper is not None:  # room to lay out a full quota of kept files beside the program files
            tmp_bytes = keeper.quota + sum(os.fstat(fd).st_size for fd, _ in files.values()) + (1 << 20)
        args += ["--size", str(tmp_bytes), "--perms", "1777", "--tmpfs", "/tmp"]
        args += self._binds()
        args += ["--dev", "/dev", "--proc", "/proc", "--perms", "0777", "--dir", WORKDIR]
        for name, (fd, executable) in files.items():
            args += ["--perms", "0755" if executable else "0644", "--file", str(fd), f"{WORKDIR}/{name}"]
        args += ["--chdir", WORKDIR, "--clearenv"]
        base_env = {"PATH": self.path, "HOME": WORKDIR, "TMPDIR": "/tmp", "LANG": "C.UTF-8",
                    "PYTHONDONTWRITEBYTECODE": "1"}
        for key, value in {**base_env, **env}.items():
            args += ["--setenv", key, value]
        args.append("--")
        if keeper is not None:
            args += [self.python, "-I", "-S", "-B", f"{SANDBOX_ENGINE_ROOT}/engine/bots/keeper.py",
                     str(keeper.archive), str(keeper.report), str(keeper.quota), str(keeper.max_entries),
                     str(uid if self.as_root else -1), *files, "--"]
        args += self.limits.prlimit_args()
        if self.as_root:
            args += ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                     "--no-new-privs", "--bounding-set=-all", "--inh-caps=-all", "--"]
        return args + list(argv)


class Unsandboxed:
    """``--no-sandbox``: the bot runs as the controller's user, in the controller's
    directory, with only the resource limits and a process group killed at the end."""

    sandboxed = False
    engine_root = str(ENGINE_ROOT)
    workdir = None
    path = None  # the controller's own PATH

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()
        self.python = sys.executable

    def probe(self) -> None:
        if shutil.which("prlimit") is None:
            raise SandboxError("prlimit (util-linux) is missing")

    def jail(self) -> Jail:
        return Jail(self, None)

    def command(self, uid: int | None, argv: Sequence[str], files: Mapping[str, tuple[int, bool]],
                env: Mapping[str, str], keeper: KeeperFds | None = None) -> list[str]:
        return [*self.limits.prlimit_args(), *argv]


class Jail:
    """One bot's identity in the sandbox: every process it starts runs under it."""

    def __init__(self, sandbox: Sandbox | Unsandboxed, uid: int | None) -> None:
        self.sandbox = sandbox
        self.uid = uid

    def private_dir(self) -> str:
        """Unsandboxed only: a new directory for ``popen(keep_dir=...)``, kept between the
        bot's processes (one per turn) until the caller removes it. (In the sandbox a bot's
        kept folder is never a host directory: ``engine.bots.kept``.)"""
        if self.sandbox.sandboxed:
            raise ValueError("a sandboxed bot's kept folder is a KeptFolder, not a host directory")
        return tempfile.mkdtemp(prefix="koth-bot-")

    def popen(self, argv: Sequence[str], files: Mapping[str, tuple[bytes, bool]] | None = None,
              env: Mapping[str, str] | None = None, stderr: int | None = subprocess.PIPE,
              keep_dir: str | None = None, keeper: KeeperFds | None = None) -> subprocess.Popen:
        """Start ``argv`` with byte pipes on stdin/stdout (and stderr unless told). Unsandboxed,
        in ``keep_dir`` (``private_dir``) when given; in the sandbox, with ``keeper`` for a
        per-turn bot's kept folder (its descriptors are passed in, and stay the caller's)."""
        files = files or {}
        if keep_dir is not None and self.sandbox.sandboxed:
            raise ValueError("no host directory is bound into the sandbox: use keeper")
        if not self.sandbox.sandboxed:
            full_env = dict(os.environ, **(env or {}))
            return subprocess.Popen(self.sandbox.command(None, argv, {}, {}), stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=stderr, env=full_env,
                                    start_new_session=True, cwd=keep_dir)
        fds: dict[str, tuple[int, bool]] = {}
        try:
            for name, (content, executable) in files.items():
                fd = os.memfd_create(f"bot-{name}")
                os.write(fd, content)
                os.lseek(fd, 0, os.SEEK_SET)
                fds[name] = (fd, executable)
            command = self.sandbox.command(self.uid, argv, fds, env or {}, keeper)
            passed = [fd for fd, _ in fds.values()]
            if keeper is not None:
                passed += [keeper.archive, keeper.report]
            return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=stderr, pass_fds=passed, start_new_session=True, env={})
        finally:
            for fd, _ in fds.values():
                os.close(fd)

    def run(self, argv: Sequence[str], timeout: float,
            env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess:
        """Run to the end with no input (the probe)."""
        process = self.popen(argv, env=env)
        try:
            out, err = process.communicate(b"", timeout=timeout)
        finally:
            kill_group(process)
        return subprocess.CompletedProcess(argv, process.returncode, out, err)


def kill_group(process: subprocess.Popen | None) -> None:
    """Kill the process and its whole group (in the sandbox: its whole PID namespace)."""
    if process is None:
        return
    if process.returncode is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        process.wait()
    else:
        # the leader is gone; anything it left in its group must go too
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _python_roots() -> list[str]:
    """The Python install's folders outside /usr, outermost first, without nesting."""
    roots = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix,
                                           sys.base_exec_prefix, str(Path(sys.executable).parent))}
    roots |= {str(Path(os.path.realpath(sys.executable)).parent)}
    kept: list[str] = []
    for root in sorted(roots, key=len):
        if root.startswith(("/usr/", "/etc/")) or root in ("/usr", "/etc"):
            continue
        if any(root == k or root.startswith(k + "/") for k in kept):
            continue
        kept.append(root)
    return kept
