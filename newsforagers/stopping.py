"""A stop asked of the process (SIGINT, SIGTERM: Ctrl-C, ``kill``, scrapyd's ``cancel.json``)
ends a store's retries at once.

A Redis store retries a server that does not answer for ``FORAGERS_STORE_RETRY`` seconds (60 by
default), on the thread that called it — the reactor's. Scrapy's own signal handlers only
schedule a shutdown on the reactor, which cannot run before the store call returns: a scrapyd
job started while Redis was unreachable ignored ``cancel.json`` and a SIGTERM for a minute.
:func:`interrupt_stores_on_stop` puts a handler before Scrapy's (or whatever was there) that
first tells the stores to stop retrying (:meth:`~newsforagers.store.ColonyStore.interrupt`),
then hands the signal on: the call fails at once with one line naming the store, and the
process stops as asked.

The handler is the process's own (a signal handler belongs to a process, not to a crawler): it
holds the stores it interrupts weakly, so a store a forager closed and dropped goes. It is put
in place once per signal and store; Scrapy replaces it with its "kill" handler at the first
signal, as it does its own, so a second Ctrl-C still forces the end.
"""

from __future__ import annotations

import signal
import threading
import weakref
from typing import Any

#: The signals a stop is asked with.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_MARK = "_newsforagers_stores"


def interrupt_stores_on_stop(store: Any) -> bool:
    """Make SIGINT and SIGTERM interrupt ``store``'s retries before they reach the handler in
    place now. False when it cannot be done here (not the main thread: only that one may set
    signal handlers)."""
    if threading.current_thread() is not threading.main_thread():
        return False
    for signum in STOP_SIGNALS:
        current = signal.getsignal(signum)
        stores = getattr(current, _MARK, None)
        if stores is not None:
            stores.add(store)
            continue
        signal.signal(signum, _handler(current, store))
    return True


def _handler(previous: Any, store: Any):
    stores: weakref.WeakSet = weakref.WeakSet([store])

    def stop_requested(signum: int, frame: Any) -> None:
        for each in list(stores):
            each.interrupt()
        if callable(previous):
            previous(signum, frame)
        elif previous == signal.SIG_DFL:
            # what the signal would have done without us
            signal.signal(signum, signal.SIG_DFL)
            signal.raise_signal(signum)

    setattr(stop_requested, _MARK, stores)
    return stop_requested
