"""Seconds from `suite run --model M` to its one-line refusal, for each form of a model string litellm cannot use:
a bare known-family name, a bare typo, an unknown provider prefix, a misspelt provider; each in a fresh process
(the README promises about a second). `--json` prints one JSON object."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

FORMS = {
    "bare_known_family": "claude-3-5-sonnet",
    "bare_typo": "gemini-3.1-pro",
    "unknown_provider": "foo/bar",
    "misspelt_provider": "opneai/gpt-4o",
}


def seconds_to_refuse(model: str, runs: int) -> float:
    """Median wall seconds of `suite run --plugins omniear --model MODEL` to its exit (which must be 2)."""
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "suite.cli.main", "run", "--plugins", "omniear",
                                   "--model", model, "--limit", "1", "--out", os.path.join(out, "run")],
                                  capture_output=True, text=True)
            times.append(time.perf_counter() - start)
        if done.returncode != 2:
            raise SystemExit(f"--model {model}: exit {done.returncode}, expected 2: {done.stderr.strip()[-300:]}")
    return statistics.median(times)


def main() -> None:
    """Time each form and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--runs", type=int, default=3, help="runs per form (the median is kept)")
    args = parser.parse_args()
    figures: dict[str, object] = {form: round(seconds_to_refuse(model, args.runs), 3) for form, model in FORMS.items()}
    figures["worst_s"] = max(v for v in figures.values() if isinstance(v, float))
    figures["load_avg_1m"] = round(os.getloadavg()[0], 2)
    if args.json:
        print(json.dumps(figures))
        return
    for form, model in FORMS.items():
        print(f"{form:20} --model {model:28} {figures[form]:.2f} s")
    print(f"worst {figures['worst_s']:.2f} s (load {figures['load_avg_1m']})")


if __name__ == "__main__":
    main()
