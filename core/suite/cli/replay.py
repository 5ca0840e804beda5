"""`suite replay RUN`: re-run a run's episodes with its recorded replies and compare the trajectories."""

from __future__ import annotations

import argparse

from suite.launch.consoles import console, err_console
from suite.launch.replay import replay_run
from suite.store.runsdir import find_run


def command(args: argparse.Namespace) -> int:
    """`suite replay RUN`: re-run every episode with the recorded replies; exit 1 on any difference (episodes that
    ended in model_error are counted apart, as not replayable)."""

    result = replay_run(find_run(args.run), args.out)
    diffs = result.differences
    for diff in diffs[:20]:
        err_console.print(f"differs: {diff}", highlight=False, markup=False)
    shown = f" ({min(20, len(diffs))} shown above)" if diffs else ""
    apart = (f", {len(result.not_replayable)} not replayable (ended in model_error: no reply was recorded for the "
             "call that failed)" if result.not_replayable else "")
    console.print(f"{result.identical}/{result.total} trajectories identical, {len(diffs)} differ{shown}{apart}",
                  highlight=False, markup=False)
    return 1 if diffs else 0
