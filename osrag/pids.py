"""Whether a process id names a live process on this host.

One probe for every caller that watches another process: the ingest worker
watching its owner, the ingest lock judging a holder, the node tools judging a
recorded engine pid.
"""

from __future__ import annotations

import os


def pid_alive(pid: int) -> bool:
    """True when a process with this id exists (even one owned by another user)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, owned by another user
    return True
