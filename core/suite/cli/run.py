"""`suite run`: run benchmarks (or resume a run), then print the table and say how the run ended."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from suite.cli.output import EXIT_INFRA_FAILURES, EXIT_INTERRUPTED, EXIT_MODEL_FAILED, EXIT_STOPPED

if TYPE_CHECKING:
    from suite.engine import runner


def _finish(session: runner.RunSession, status: str, show_report: bool) -> int:
    from suite.launch.consoles import console, err_console
    from suite.report import render, summarize
    from suite.store.infra import summarize_infra

    root = session.store.root
    unfinished = len(session.store.unfinished())
    infra = summarize_infra(session.store.records())
    session.store.close()
    if status == "interrupted":
        err_console.print(f"interrupted: finished episodes are stored; resume with `suite run --resume {root}`")
        return EXIT_INTERRUPTED
    if session.stop_cause:
        err_console.print(f"stopped: {session.stop_cause}; {unfinished} episode(s) not run stay pending: fix the "
                          f"cause, then `suite run --resume {root} --retry-infra`", highlight=False, markup=False,
                          soft_wrap=True)
        return EXIT_MODEL_FAILED
    if show_report:
        cfg = session.cfg.report
        render(summarize(session.host, [root], cfg.bootstrap, cfg.confidence, cfg.seed, bool(cfg.get("reference"))),
               "table", console)
    if status != "stopped":
        err_console.print(f"run folder: {root}", highlight=False)
    if infra is not None:
        err_console.print(infra.line(root), highlight=False, markup=False, soft_wrap=True)
    if status == "stopped":
        err_console.print(f"stopped: the cost budget was reached; resume with `suite run --resume {root} --max-cost N`")
        return EXIT_STOPPED
    return 0 if infra is None else EXIT_INFRA_FAILURES


def _check_model_first(args: argparse.Namespace) -> None:
    """Refuse a `--model` litellm certainly cannot place before the seconds of importing the runner and plugins,
    where nothing else on the command line (a config file, an override, an agent, a resumed run) can change
    which model runs or how litellm places it; the full check still runs in the session."""
    overrides = [o for o in getattr(args, "overrides", None) or [] if o.startswith(("model", "run"))]
    if args.model and not (args.resume or args.agent or getattr(args, "config_files", None) or overrides):
        from suite.models.preflight import refuse_certainly_unplaced

        refuse_certainly_unplaced(str(args.model))


def command(args: argparse.Namespace) -> int:
    """`suite run`: run benchmarks (or resume a run) and print the table."""
    _check_model_first(args)
    # imported here, after the quick model check: the runner and the plugins take seconds to import
    from suite.engine.host import build_host
    from suite.launch.compose import Options
    from suite.launch.session import execute_session, open_session
    from suite.store.runsdir import find_run

    host = build_host()
    session, tasks = open_session(host, Options.of(args), find_run(args.resume) if args.resume else None)
    status = execute_session(session, tasks)
    return _finish(session, status, not args.no_report)
