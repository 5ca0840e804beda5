"""The Python API in a script: run a benchmark offline, read its report, and look at its episodes with pandas.

    python examples/api.py [RUN_FOLDER]

Runs OmniEAR's oracle agent on 5 tasks (no model, no key, no network, about a second), prints each headline metric
with its confidence interval, then the episodes as a DataFrame when pandas is installed (`pip install -e
".[pandas]"`). CI runs it (tests/test_api.py)."""

from __future__ import annotations

import sys

import suite
from suite.contract.errors import ConfigError


def main(out: str | None = None) -> None:
    """Run, report, tabulate."""
    run = suite.run("omniear", agent="oracle", limit=5, seed=0, out=out, progress=False)
    print(f"run folder: {run.root} ({run.status})")
    report = run.report()  # the object `suite report RUN --format json` prints (docs/report.md)
    for row in report["rows"]:
        for benchmark, group in row["benchmarks"].items():
            for name, m in group["metrics"].items():
                print(f"{benchmark} {name}: {m['mean']:.3f} [{m['ci_low']:.3f}, {m['ci_high']:.3f}] (n={m['n']})")
    try:
        episodes, headline = run.to_pandas()
    except ConfigError as exc:  # pandas is an optional extra
        print(exc)
        return
    print(episodes[["episode_id", "outcome", "steps"]].to_string(index=False))
    print(headline[["benchmark", "metric", "mean", "ci_low", "ci_high", "n"]].to_string(index=False))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
