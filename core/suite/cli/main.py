"""The `suite` command: parse the arguments, run the subcommand's module, and turn every suite error into one line."""

from __future__ import annotations

import importlib
import logging
import signal
import sqlite3
import threading
from types import FrameType

from suite.cli.output import EXIT_INTERRUPTED
from suite.cli.parser import build_parser
from suite.contract.controls import InertFormatter
from suite.contract.errors import SuiteError, disk_full
from suite.launch.consoles import err_console


def _terminate(signum: int, frame: FrameType | None) -> None:
    """SIGTERM (what `timeout`, `docker stop`, Slurm and Kubernetes send) handled as Ctrl-C is at that moment: a
    running loop cancels its run, which is marked interrupted; elsewhere KeyboardInterrupt."""
    on_ctrl_c = signal.getsignal(signal.SIGINT)
    if not callable(on_ctrl_c):  # Ctrl-C ignored (a job started with nohup or `&`): a SIGTERM still stops it
        raise KeyboardInterrupt
    on_ctrl_c(signal.SIGINT, frame)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `suite` command."""
    args = build_parser().parse_args(argv)
    handler = logging.StreamHandler()
    handler.setFormatter(InertFormatter("warning: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    in_main_thread = threading.current_thread() is threading.main_thread()  # where Python runs signal handlers
    previous = signal.signal(signal.SIGTERM, _terminate) if in_main_thread else None
    try:
        # each subcommand is the module of its name (suite.cli.run, suite.cli.report, ...), imported only when it
        # runs, so a quick command never pays for what another one imports
        module = importlib.import_module(f"suite.cli.{args.command}")
        return int(module.command(args) or 0)
    except SuiteError as exc:
        err_console.print(f"error: {exc}", highlight=False, markup=False, soft_wrap=True)
        return exc.exit_code
    except KeyboardInterrupt:
        err_console.print("interrupted", highlight=False)
        return EXIT_INTERRUPTED
    except (OSError, sqlite3.Error) as exc:  # a run's own full disk is told apart, with its resume command
        if not disk_full(exc):
            raise
        err_console.print(f"error: the disk is full ({exc}); nothing written before was lost", highlight=False,
                          markup=False, soft_wrap=True)
        return SuiteError.exit_code
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    raise SystemExit(main())
