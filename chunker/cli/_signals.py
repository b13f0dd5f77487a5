"""A signal that asks the command to stop (SIGTERM, SIGHUP) raised as an exception in the main
thread, so that the way out runs what any error runs: the workers stopped, ``--output``'s
temporary file removed. `main` then ends of the signal itself, as a killed process does (the
shell's status 128 + its number)."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

STOPPING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
"""The signals that end the command, cleanly. (SIGINT is Python's KeyboardInterrupt already.)"""


class Stopped(BaseException):
    """A stopping signal arrived (a BaseException: no ``except Exception`` keeps the work going)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _stop(signum: int, frame: FrameType | None) -> None:
    for s in STOPPING:
        signal.signal(s, signal.SIG_DFL)  # once: a second signal ends the process at once
    raise Stopped(signum)


def catch_stopping() -> None:
    """Raise `Stopped` for a stopping signal, from now on (the main thread only can)."""
    try:
        for s in STOPPING:
            signal.signal(s, _stop)
    except ValueError:
        pass  # not the main thread: the signals keep their defaults


def end_of(signum: int) -> int:
    """End this process of `signum`, as its default action would (after the clean-up); the
    status 128 + signum if it comes back."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass
    try:
        signal.signal(signum, signal.SIG_DFL)
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signum})
        os.kill(os.getpid(), signum)
    except (OSError, ValueError):
        pass
    return 128 + signum


@contextmanager
def held() -> Iterator[None]:
    """The stopping signals held back meanwhile (delivered at the end): processes forked in
    here start with them blocked, and take their own handlers before they let them in
    (`let_in`), so that none runs this process's handler."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, STOPPING)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def let_in() -> None:
    """In a worker process: the stopping signals' default actions, and unblocked."""
    for s in STOPPING:
        signal.signal(s, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPPING)
