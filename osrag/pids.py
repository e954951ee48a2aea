"""Processes watching processes: whether a process id names a live process on this host,
and a worker that dies with the process that started it.

One probe for every caller that watches another process: the ingest and embedding
workers watching their owner (:func:`die_with_parent`), the ingest lock judging a
holder, the node tools judging a recorded engine pid.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time


def pid_alive(pid: int) -> bool:
    """True when a process with this id exists (even one owned by another user)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, owned by another user
    return True


WATCH_SECONDS = 0.5
"""How often a worker checks that the process that started it is alive."""
_PR_SET_PDEATHSIG = 1


def die_with_parent(owner: int) -> None:
    """In a worker process: exit as soon as ``owner`` (the process that started the pool)
    or this process's parent (a fork server) is gone.

    On Linux the kernel is asked to SIGKILL this process when its parent exits
    (``prctl(PR_SET_PDEATHSIG)``); everywhere a daemon thread also polls, every
    :data:`WATCH_SECONDS`, whether the parent changed (this process was re-parented) or
    ``owner`` no longer exists, and then ends the process without clean-up."""
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the polling thread below still covers it
    if os.getppid() != parent:  # the parent died before the death signal was armed
        os._exit(1)
    watcher = threading.Thread(
        target=_watch, args=(owner, parent), name="osrag-parent-watch", daemon=True
    )
    watcher.start()


def _watch(owner: int, parent: int) -> None:
    while True:
        time.sleep(WATCH_SECONDS)
        if os.getppid() != parent or not pid_alive(owner):
            os._exit(1)
