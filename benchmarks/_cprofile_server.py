"""``unokit serve`` under cProfile, switched on and off by signals.

``benchmarks/server_load.py --cprofile FILE`` starts the server through this script
instead of ``python -m unokit.cli serve``: the profiler is off until the benchmark sends
``SIGUSR1`` (the steady part begins) and writes its statistics to FILE (``pstats``'s
format) at ``SIGUSR2`` (the steady part ends). Only the thread the signals are handled in
is profiled: the main thread, which runs the event loop every room shares (the database
writer thread is not seen). Times are that thread's CPU time (``time.thread_time``), so
that a run on a machine others share is not skewed by the waits for a core.

    python benchmarks/_cprofile_server.py OUT.prof serve --port 8000 ...

Read it with ``python -m pstats OUT.prof`` (``sort tottime``, ``stats 40``).
"""

from __future__ import annotations

import cProfile
import signal
import sys
import time
from types import FrameType


def main() -> None:
    out = sys.argv[1]
    # the CPU time of the event loop's thread, not the wall clock: on a machine that
    # other work shares, a function's wall time would count the time it waited for a core
    profiler = cProfile.Profile(time.thread_time)

    def begin(signum: int, frame: FrameType | None) -> None:
        profiler.enable()

    def end(signum: int, frame: FrameType | None) -> None:
        profiler.disable()
        profiler.dump_stats(out)

    signal.signal(signal.SIGUSR1, begin)
    signal.signal(signal.SIGUSR2, end)
    sys.argv = ["unokit", *sys.argv[2:]]
    from unokit.cli import main as unokit_main
    unokit_main()


if __name__ == "__main__":
    main()
