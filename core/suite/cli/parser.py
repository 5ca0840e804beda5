"""The `suite` argument parser: one subparser per command; `key=value` overrides may stand anywhere after the
subcommand; usage errors are one line and exit 2."""

from __future__ import annotations

import argparse
import re
from typing import Any, NoReturn

import suite

#: a `key=value` config override (a flag starts with `-`)
OVERRIDE = re.compile(r"^[^-=][^=]*=")


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line (and exit 2), like every other error of the suite."""

    # the one form the suite calls (argparse's overloads only add a typed namespace argument)
    def parse_args(self, args: Any = None, namespace: Any = None) -> argparse.Namespace:  # type: ignore[override]
        """Parse the command line; `key=value` overrides may stand anywhere after the subcommand, between or after
        its flags (argparse alone takes them only in one run of positionals)."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras and hasattr(parsed, "overrides") and all(OVERRIDE.match(e) for e in extras):
            parsed.overrides = [*(parsed.overrides or []), *extras]
        elif extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed

    def error(self, message: str) -> NoReturn:
        """Print `<prog>: error: <message> (see <prog> --help)` and exit 2."""
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _config_arg(command: argparse.ArgumentParser) -> None:
    """`--config FILE`: YAML settings laid over the defaults before `key=value` overrides."""
    command.add_argument("--config", action="append", metavar="FILE", dest="config_files",
                         help="a YAML file of settings (e.g. `omniear: {max_steps: 20}`), over the defaults and under "
                              "key=value overrides; may be given several times")


def _selection_args(command: argparse.ArgumentParser) -> None:
    """`--limit`, `--tasks` and `--seed`, which pick tasks as `suite run` does."""
    command.add_argument("--limit", type=int, help="at most N tasks per benchmark (seeded sample, as `run` takes)")
    command.add_argument("--tasks", help="comma-separated task ids")
    command.add_argument("--seed", type=int, help="seed of the task sample (default 0)")


def build_parser() -> argparse.ArgumentParser:
    """The parser of the `suite` command and every subcommand."""
    parser = OneLineParser(prog="suite", description="Run embodied-agent benchmarks against any model.")
    parser.add_argument("--version", action="version", version=f"embodied-suite {suite.__version__}",
                        help="print the version of embodied-suite and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", help="one of the commands below")

    run = sub.add_parser("run", help="run benchmarks and print the cross-benchmark table")
    run.add_argument("--plugins", help="comma-separated plugins or benchmarks, e.g. omniear")
    run.add_argument("--model", help="litellm model string, e.g. openai/gpt-4o")
    run.add_argument("--agent", help="direct (default), oracle, or a plugin's agent")
    run.add_argument("--label", help="name this run's variant (e.g. cot-prompt): a report row of its own")
    run.add_argument("--protocol", help="start from each benchmark's named protocol preset (paper: the paper's "
                     "settings; what you set besides wins, and the report says what differs)")
    run.add_argument("--limit", type=int, help="at most N tasks per benchmark (seeded sample)")
    run.add_argument("--tasks", help="comma-separated task ids")
    run.add_argument("--repeats", type=int, help="run every selected task K times (reports give per-repeat stats)")
    run.add_argument("--seed", type=int, help="seed of the task sample and of seeded parts of episodes (default 0)")
    run.add_argument("--out", help="run folder to create (default runs/<timestamp>)")
    run.add_argument("--resume", metavar="RUN", help="resume an interrupted run folder")
    run.add_argument("--retry-infra", action="store_true", dest="retry_infra",
                     help="with --resume: also re-run episodes that ended in model_error, env_error or timeout")
    run.add_argument("--concurrency", type=int, help="episodes in flight at once")
    run.add_argument("--max-cost", type=float, dest="max_cost", help="stop cleanly once this many USD are spent")
    run.add_argument("--data-dir", dest="data_dir", help="data directory of the (single) selected benchmark")
    run.add_argument("--executor", choices=["local", "ray"],
                     help="local (default: one process) or ray (simulators as Ray actors)")
    run.add_argument("--ray-address", dest="ray_address", help="Ray cluster address (`auto` joins a running one)")
    run.add_argument("--cache", action="store_const", const=True,
                     help="reuse model replies that earlier runs stored in the response cache (model.cache=true; "
                          "a run always reuses its own on --resume)")
    run.add_argument("--trust-endpoint", action="store_true", dest="trust_endpoint",
                     help="with --resume: send model calls to the endpoint (model.params.api_base/base_url) the "
                          "run folder's config names, though this command line does not name it")
    run.add_argument("--no-report", action="store_true", help="do not print the report at the end")
    _config_arg(run)
    run.add_argument(
        "overrides", nargs="*", metavar="key=value", help="config overrides, e.g. omniear.observation_mode=global"
    )

    sub.add_parser("plugins", help="list installed plugins, their versions, benchmarks and hooks")

    tasks = sub.add_parser("tasks", help="list a plugin's tasks")
    tasks.add_argument("plugin", help="a plugin or benchmark name, e.g. omniear")
    tasks.add_argument("--data-dir", dest="data_dir", help="read this data directory instead of the default choice")
    _selection_args(tasks)
    _config_arg(tasks)
    tasks.add_argument("overrides", nargs="*", metavar="key=value",
                       help="config overrides, e.g. omniear.categories=[tool_use]")

    val = sub.add_parser("validate", help="schema-check data, then prove every task solvable with the oracle")
    val.add_argument("--plugins", required=True, help="comma-separated plugins or benchmarks to validate")
    val.add_argument("--data-dir", dest="data_dir", help="validate this data directory (of the single benchmark)")
    val.add_argument("--out", help="keep the oracle run here (default: a temporary folder)")
    _selection_args(val)
    _config_arg(val)
    val.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides, e.g. asgard.test_set=...")

    rep = sub.add_parser("report", help="render the cross-benchmark report of one or more runs")
    rep.add_argument("runs", nargs="+", metavar="RUN",
                     help="run folders; the first is the baseline the others are compared with")
    rep.add_argument("--format", choices=["table", "md", "csv", "json", "latex", "html"], default="table",
                     help="table (terminal, default), md, csv, json, latex (booktabs tables per benchmark), or html "
                          "(a static site written to --out)")
    rep.add_argument("--out", metavar="PATH",
                     help="write the report here instead of printing it: a file in the chosen format (a table as "
                          "plain text), or with --format html the folder of the site")
    rep.add_argument("--reference", action="store_true", default=None,
                     help="add each benchmark's published paper numbers as `paper: <model>` rows "
                          "(config: report.reference=true)")

    view = sub.add_parser("view", help="build the HTML report of one or more runs in a temporary folder and open it")
    view.add_argument("runs", nargs="+", metavar="RUN",
                      help="run folders; the first is the baseline the others are compared with")
    view.add_argument("--out", metavar="DIR", help="write the site here instead of a temporary folder")
    view.add_argument("--no-open", action="store_true", help="only print the page's path, do not open a browser")

    lst = sub.add_parser("runs", help="the run folders under a directory: status, model, agent, label, progress")
    lst.add_argument("root", nargs="?", metavar="DIR",
                     help="where to look (default: run.runs_dir, else $SUITE_RUNS_DIR, else ./runs)")

    exp = sub.add_parser("export", help="every finished episode's record of one or more runs, for your own analyses")
    exp.add_argument("runs", nargs="+", metavar="RUN", help="run folders to export")
    exp.add_argument("--format", choices=["jsonl", "csv"], default="jsonl",
                     help="jsonl (one record per line, default) or csv")
    exp.add_argument("--out", help="write to this file (default: standard output)")

    rpl = sub.add_parser("replay", help="re-run a run's episodes with its recorded replies; compare trajectories")
    rpl.add_argument("run", metavar="RUN", help="the run folder whose recorded replies are replayed")
    rpl.add_argument("--out", help="where to write the replayed run (default: a temporary folder)")

    data = sub.add_parser("data", help="official data and generated packs")
    data.add_argument("action", choices=["pull", "list", "where"],
                      help="pull: download official data; list: what is present; where: the data a run would use")
    data.add_argument("plugin", nargs="?", help="a plugin or benchmark name (pull needs one; default: all)")

    aud = sub.add_parser("audit", help="run every declared shortcut baseline; exit 1 when one's 95 %% interval is "
                                       "above its ceiling")
    aud.add_argument("--plugins", required=True, help="comma-separated plugins or benchmarks to audit")
    aud.add_argument("--data-dir", dest="data_dir", help="audit this data directory (of the single benchmark)")
    aud.add_argument("--limit", type=int, help="a seeded (stratified) sample of at most N tasks per benchmark "
                                                "(default: each benchmark's audit_limit, or every task)")
    aud.add_argument("--full", action="store_true", help="every task, also where a benchmark samples by default")
    aud.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    aud.add_argument("--baselines", help="comma-separated baseline names (default: every declared one)")
    aud.add_argument("--format", choices=["table", "json", "markdown"], default="table",
                     help="table (default), json, or markdown (a plugin README's table)")
    aud.add_argument("--jobs", type=int, help="baseline runs at once, each in its own process (default: one per "
                                              "core, at most 4; 1: one after the other in this process)")
    aud.add_argument("--out", help="keep the baseline runs here, one folder per benchmark and baseline "
                                   "(default: a temporary folder)")
    aud.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides, e.g. asgard.test_set=...")

    conf = sub.add_parser("conformance", help="replay recorded reference traces through our simulator")
    conf.add_argument("plugin", help="the plugin whose simulator is checked, e.g. omniear")
    conf.add_argument("--traces", required=True, help="a JSON Lines file of reference trajectories")
    conf.add_argument("--data-dir", dest="data_dir", required=True, help="the data the traces were recorded on")
    conf.add_argument("--format", choices=["table", "json"], default="table", help="table (default) or json")
    return parser
