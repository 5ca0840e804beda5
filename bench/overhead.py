"""Runner overhead: the suite's own time per step, and how well it overlaps 64 concurrent episodes.

Run: `python bench/overhead.py [--json] [--quick] [--no-inspect] [--dir DIR]`; the inspect-ai comparison needs
`pip install -e .[bench]`.

Everything goes through the real suite path: a run folder with its SQLite store and JSONL traces, the local
executor, the one episode loop, the `direct` agent and `ModelClient` through litellm with a `scripted/` model
(no reply reused from an earlier run: each call reaches the model and is written to the run's response cache).
The benchmark `overhead` defined below is that path's smallest plugin: each step prompts with the observation,
the scripted model answers `ACTION: go`, and the episode ends after 10 steps. Its
simulator is a counter, declared `inline_env` like OmniEAR's text world, so its calls run on the event loop (as
the inspect-ai solver below runs its own); `overhead-threaded` is the same with a worker thread per simulator
call, the default for simulators that do not declare it (replies are parsed on the loop in both, as
`inline_parse` declares: the two differ only in where the simulator runs).

(a) Step overhead, zero-latency model, one episode at a time. A step's wall time is the interval between two
    step records written to the trace (the first from the episode's start record). The time spent in the model
    call is the time litellm was at work within the step: inside `litellm.acompletion`, or running its deferred
    success logging (a task on the event loop that runs at the next await, sometimes inside the next call),
    overlaps counted once. `step_overhead_ms` is the median over steps of wall minus that: the loop, agent,
    prompt and parse hooks, ModelClient (cache key, ledger, limiter), trace and store. `step_total_ms` is the
    median wall time with litellm. Target: step_overhead_ms < 0.1. `step_overhead_threaded_ms` is the same
    with the simulator's calls in worker threads (it adds the threads' wake-ups).
(b) Concurrency efficiency: 64 episodes x 10 steps with a model of fixed 100 ms latency, all in flight at
    once. The ideal is 640 steps/s (every step waits only for its model call); efficiency = measured steps/s
    from the executor's start to the last episode's record stored (the run's closing summary, results.json, left
    out, as inspect-ai's log finalisation is) / 640. Target: >= 0.85. The model calls go to the run's model-call
    worker processes (`model.call_workers=auto`, the default); `efficiency_in_process` is the same with them off
    (`model.call_workers=0`), every call made on the run's loop. A plain-asyncio baseline (64 tasks x 10 sleeps of
    100 ms) shows what the machine allows with no work per step. From the CPU a step costs (measured) and the
    cores, the bench also works out the best efficiency any scheduler could reach (`efficiency_ceiling*`, see
    `efficiency_ceiling`), and litellm's own CPU per call (`litellm_cpu_ms_per_call`), measured alone.
(c) The same two workloads through inspect-ai in the same process: a custom `ModelAPI` registered with
    `@modelapi`, a solver that runs the 10-step loop (prompt, generate, parse, step), default logging (an
    .eval log in a temporary folder), `display="none"`, max_connections and max_samples 64 for (b). inspect's
    step overhead is its turn's wall time minus the time inside the `ModelAPI.generate` of the bench; its
    efficiency window runs from the first sample's solver start to the last one's end (its start-up and log
    finalisation are left out, in inspect's favour). Ratios are ours / inspect.

`efficiency_without_litellm` is a diagnostic only: workload (b) with `litellm.acompletion` answered by the script
itself, which no real run does; it shows how much of the shortfall is litellm's per-call work. bench/README.md
explains the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from suite.contract.hookspecs import hookimpl
from suite.contract.records import Action, Observation, Settlement, StepResult, Task
from suite.contract.registry import BenchmarkSpec, Metric
from suite.engine.host import default_config
from suite.models import cache_writer, register_script
from suite.models.event_loops import run_to_completion

BENCH = "overhead"  # its simulator runs on the event loop (`inline_env`), like OmniEAR's text world
BENCH_THREADED = "overhead-threaded"  # the same in a worker thread per call, the default for a simulator
STEPS = 10
EPISODES_B = 64
LATENCY_B_S = 0.1
IDEAL_STEPS_PER_S = EPISODES_B / LATENCY_B_S
IDEAL_MS = STEPS * LATENCY_B_S * 1000  # one episode of workload (b) with nothing but its model calls
TARGET_STEP_MS = 0.1  # issue 27
TARGET_STEP_THREADED_MS = 0.3  # issue 27
TARGET_EFFICIENCY = 0.85  # issue 27: 0.9 of the one-process ceiling (0.93)
ZERO_MODEL = "overhead-zero"
SLOW_MODEL = "overhead-100ms"


def reply(messages: list[dict[str, Any]]) -> str:
    """The scripted model's answer (a fixed one: the bench measures the path, not a policy)."""
    return "Thought: keep going.\nACTION: go"


class StepEnv:
    """A world that only counts its steps; the episode is done after `steps`."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.count = 0

    def reset(self) -> Observation:
        """Start at step 0."""
        self.count = 0
        return Observation(text=f"{self.task.id} step 0")

    def step(self, action: str) -> StepResult:
        """Count the step."""
        self.count += 1
        done = self.count >= self.task.data["steps"]
        return StepResult(Observation(text=f"{self.task.id} step {self.count}"), feedback="ok", done=done)

    def close(self) -> None:
        """Nothing to release."""


@hookimpl
def register(registry: Any) -> None:
    """Declare the `overhead` benchmark and its two scripted models (no latency, and 100 ms)."""
    register_script(ZERO_MODEL, reply)
    register_script(SLOW_MODEL, reply, latency_s=LATENCY_B_S, any_process=True)
    registry.add_benchmark(BenchmarkSpec(BENCH, "fixed-length episodes for the overhead benchmark",
                                         [Metric("success", "SR")], inline_env=True,
                                         inline_parse=True))
    registry.add_benchmark(BenchmarkSpec(BENCH_THREADED, "the same, simulator calls in worker threads",
                                         [Metric("success", "SR")], inline_parse=True))


#: when the latest episode record was stored (`on_episode_end`): a run's wall ends at its last one, leaving out the
#: run's closing summary (results.json), as inspect-ai's window leaves out its log finalisation
LAST_STORED = [0.0]


@hookimpl
def on_episode_end(run: Any, record: Any) -> None:
    """Note when an episode's record was stored."""
    LAST_STORED[0] = time.perf_counter()


@hookimpl
def load_tasks(benchmark: str, config: Any) -> list[Task]:
    """The tasks listed in the benchmark's config section (`<benchmark>.tasks`)."""
    return [Task(benchmark, t["id"], dict(t), max_steps=t["steps"]) for t in config.tasks]


@hookimpl
def make_env(benchmark: str, task: Task, config: Any) -> StepEnv:
    """A fresh counter."""
    return StepEnv(task)


@hookimpl
def build_prompt(benchmark: str, task: Task, observation: Observation, history: list[Any]) -> list[dict[str, Any]]:
    """The observation and the answer format as one user message."""
    return [{"role": "user", "content": f"{observation.text}\nAnswer with one line: ACTION: go"}]


@hookimpl
def parse_action(benchmark: str, task: Task, reply: str) -> Action:
    """`ACTION: go`, or a parse failure."""
    if "ACTION: go" not in (reply or ""):
        return Action.failure("no 'ACTION: go' line", text=reply or "")
    return Action(value="go", text="go")


@hookimpl
def settle(benchmark: str, task: Task, trajectory: Any, env: StepEnv) -> Settlement:
    """Success when every step was taken."""
    success = env.count >= task.data["steps"]
    return Settlement("success" if success else "agent_failure", {"success": success})


# ---------------------------------------------------------------- timing probes (workload a)


class Probes:
    """Timestamps of trace records, and when litellm was at work (its calls and its deferred logging)."""

    def __init__(self) -> None:
        self.started: dict[str, float] = {}
        self.stepped: dict[tuple[str, int], float] = {}
        self.calls: list[tuple[Any, float, float]] = []  # (request metadata, start, end) of each litellm call
        self.deferred: list[tuple[float, float]] = []

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        """Wrap FileSink.start/step, litellm.acompletion and litellm's async success handler; undo after."""
        from suite.engine import runner
        from suite.models import load_litellm

        litellm = load_litellm()  # first: it sets up litellm's environment before the import below
        from litellm.litellm_core_utils.litellm_logging import Logging

        sink_start, sink_step = runner.FileSink.start, runner.FileSink.step
        acompletion, success = litellm.acompletion, Logging.async_success_handler
        probes = self

        def start(sink: Any, task: Task, observation: Observation) -> None:
            """Write the start record, then note the time."""
            sink_start(sink, task, observation)
            probes.started[task.key] = time.perf_counter()

        def step(sink: Any, record: Any, observation: Observation) -> None:
            """Write the step record, then note the time."""
            sink_step(sink, record, observation)
            probes.stepped[(sink.writer.stem, record.index)] = time.perf_counter()

        async def timed_acompletion(**request: Any) -> Any:
            """litellm.acompletion, timed."""
            t0 = time.perf_counter()
            try:
                return await acompletion(**request)
            finally:  # the request's (episode, step) is worked out after the run: the probe's cost is not the step's
                probes.calls.append((request.get("metadata"), t0, time.perf_counter()))

        async def timed_success(logging_obj: Any, *args: Any, **kwargs: Any) -> Any:
            """litellm's deferred success logging, timed."""
            t0 = time.perf_counter()
            try:
                return await success(logging_obj, *args, **kwargs)
            finally:
                probes.deferred.append((t0, time.perf_counter()))

        runner.FileSink.start, runner.FileSink.step = start, step  # type: ignore[method-assign]
        litellm.acompletion, Logging.async_success_handler = timed_acompletion, timed_success
        try:
            yield
        finally:
            runner.FileSink.start, runner.FileSink.step = sink_start, sink_step  # type: ignore[method-assign]
            litellm.acompletion, Logging.async_success_handler = acompletion, success

    def steps(self) -> list[tuple[float, float, float]]:
        """(wall, inside litellm.acompletion, litellm at work in all) in seconds, for every step.

        litellm's deferred logging of one call may run while the next call waits for its worker thread, so
        the time litellm was at work within a step is the union of the spans, clipped to the step.
        """
        from suite.store.run_folder import safe_name

        stems = {safe_name(key): key for key in self.started}
        calls = {_request_key(metadata): (t0, t1) for metadata, t0, t1 in self.calls}
        spans = sorted([*calls.values(), *self.deferred])
        out = []
        for (stem, index), end in sorted(self.stepped.items()):
            key = stems[stem]
            begin = self.started[key] if index == 0 else self.stepped[(stem, index - 1)]
            call = calls[(key, index)]
            out.append((end - begin, call[1] - call[0], _covered(spans, begin, end)))
        return out


def _covered(spans: list[tuple[float, float]], begin: float, end: float) -> float:
    """Seconds of [begin, end] covered by the union of sorted `spans`."""
    total, reached = 0.0, begin
    for lo, hi in spans:
        lo, hi = max(lo, reached), min(hi, end)
        if hi > lo:
            total += hi - lo
            reached = hi
    return total


def _request_key(metadata: Any) -> tuple[str, int]:
    """The (episode, step) a model request belongs to, from the metadata ModelClient sends."""
    metadata = metadata or {}
    return str(metadata.get("episode")), int(metadata.get("step") or 0)


# ---------------------------------------------------------------- our runs


def run_suite(episodes: int, concurrency: int, model: str, out: Path, bench: str = BENCH,
              call_workers: int | str = "auto") -> tuple[float, float]:
    """Plan and run `episodes` x 10 steps of `bench` through the suite; (wall, CPU) seconds of the executor's run,
    the CPU of this process and of its model-call worker processes (`model.call_workers`)."""
    from omegaconf import OmegaConf
    from suite.engine.host import build_host
    from suite.launch.session import execute, start_session

    host = build_host(extra={BENCH: sys.modules[__name__]}, entry_points=False)
    cfg = default_config(sorted(host.registry.benchmarks))
    tasks = [{"id": f"e{i:03d}", "steps": STEPS} for i in range(episodes)]
    settings = {"run.plugins": [bench], "run.model": f"scripted/{model}", "run.agent": "direct",
                "run.executor": "local", "run.concurrency": concurrency, "model.cache": False,
                "model.call_workers": call_workers, f"{bench}.tasks": tasks,
                "model.cache_path": str(out.parent / "responses.sqlite")}  # the bench's own, not the user's cache
    for key, value in settings.items():
        OmegaConf.update(cfg, key, value, force_add=True)
    session, planned = start_session(host, cfg, str(out))

    async def timed() -> tuple[float, float]:
        """Run the executor; (wall, process CPU) seconds."""
        start, cpu = time.perf_counter(), _cpu_with_children()
        status = await execute(session, planned)  # closes (and waits for) the call workers at its end
        elapsed, cpu = LAST_STORED[0] - start, _cpu_with_children() - cpu  # wall: to the last record stored
        if status != "complete":
            raise RuntimeError(f"bench run ended {status}")
        return elapsed, cpu

    try:
        elapsed, cpu = run_to_completion(timed())  # as `suite run` runs it (its default executor)
        records = session.store.records()
    finally:
        session.store.close()
    bad = [r for r in records if r["outcome"] != "success" or r["steps"] != STEPS]
    if len(records) != episodes or bad:
        raise RuntimeError(f"bench run is not what it should be: {len(records)} records, e.g. {bad[:1]}")
    return elapsed, cpu


def _cpu_with_children() -> float:
    """CPU seconds of this process and of its ended children (the model-call workers, once closed)."""
    import resource

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def suite_step_overhead(episodes: int, root: Path) -> dict[str, float]:
    """Workload (a) through the suite: medians over every step of `episodes` sequential episodes, in ms; the
    runner's own time also with the simulator in worker threads (`step_overhead_threaded_ms`)."""
    run_suite(2, 1, ZERO_MODEL, root / "warm")  # litellm's lazy imports and first-call caches
    figures: dict[str, float] = {}
    for bench, suffix in ((BENCH_THREADED, "_threaded"), (BENCH, "")):
        probes = Probes()
        with probes.installed():
            _, cpu = run_suite(episodes, 1, ZERO_MODEL, root / f"a{suffix}", bench)
        steps = probes.steps()
        figures[f"step_overhead{suffix}_ms"] = _median_ms(wall - litellm for wall, _, litellm in steps)
        figures[f"step_cpu{suffix}_ms"] = per_step_ms(cpu, len(steps))
    figures.update({
        "step_total_ms": _median_ms(wall for wall, _, _ in steps),
        "litellm_call_ms": _median_ms(call for _, call, _ in steps),
        "litellm_in_step_ms": _median_ms(litellm for _, _, litellm in steps),
        "steps_a": len(steps),
    })
    return figures


def per_step_ms(seconds: float, steps: int) -> float:
    """Seconds spent over `steps` steps, as milliseconds a step."""
    return seconds * 1000 / steps if steps else 0.0


def suite_efficiency(root: Path, call_workers: int | str = "auto") -> tuple[float, float]:
    """Workload (b) through the suite: (steps/s over the ideal, CPU ms per step while it ran, the model-call
    workers' included)."""
    elapsed, cpu = run_suite(EPISODES_B, EPISODES_B, SLOW_MODEL, root, call_workers=call_workers)
    return EPISODES_B * STEPS / elapsed / IDEAL_STEPS_PER_S, cpu * 1000 / (EPISODES_B * STEPS)


@contextlib.contextmanager
def litellm_stubbed() -> Iterator[None]:
    """A diagnostic only: `litellm.acompletion` answers from the script itself, without litellm's layers."""
    from types import SimpleNamespace

    from suite.models import get_script, load_litellm

    litellm = load_litellm()
    acompletion = litellm.acompletion

    async def direct(model: str, messages: list[dict[str, Any]], metadata: Any = None, **_: Any) -> Any:
        """The script's reply in the shape ModelClient reads."""
        text = await get_script(model.split("/", 1)[1]).reply(messages, metadata or {})
        usage = SimpleNamespace(prompt_tokens=10, completion_tokens=5, total_tokens=15)
        return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=text))], usage=usage)

    litellm.acompletion = direct
    try:
        yield
    finally:
        litellm.acompletion = acompletion


def litellm_cost(calls: int) -> tuple[float, float]:
    """litellm's own CPU per call to the zero-latency scripted model, sequential, outside the suite (ms), and the
    part of it spent in its deferred success logging, which can run after the reply has been handed back."""
    from suite.models import load_litellm

    litellm = load_litellm()
    task = Task(BENCH, "e000", {"steps": STEPS})
    messages = build_prompt(BENCH, task, StepEnv(task).reset(), [])
    model = f"scripted/{ZERO_MODEL}"

    async def call_all(n: int) -> None:
        """`n` calls one after the other, then a pause for the last deferred logging."""
        for i in range(n):
            await litellm.acompletion(model=model, messages=messages, timeout=120, max_retries=0,
                                      metadata={"episode": "cost", "step": i})
        await asyncio.sleep(0.05)

    asyncio.run(call_all(50))  # first-call caches
    probes = Probes()
    with probes.installed():
        cpu = time.process_time()
        asyncio.run(call_all(calls))
        cpu = time.process_time() - cpu
    deferred = sum(end - start for start, end in probes.deferred)
    return cpu * 1000 / calls, deferred * 1000 / calls


def cores() -> int:
    """CPU cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def efficiency_ceiling(critical_ms: float, total_ms: float, workers: int) -> float:
    """An estimate of the best efficiency workload (b) can reach when each step costs `critical_ms` of CPU between
    a model reply and the next request (`total_ms` in all), on `workers` cores kept busy in parallel, with a
    perfect scheduler.

    Python runs one thread at a time per process, so one process serves at most 1/total_ms steps per ms. And in
    every round the 64 steps need 64 x critical_ms of CPU on `workers` cores, so the slowest episode's next
    request leaves at least (64 / workers - 1) x critical_ms after the first one's; with a fixed latency that lag
    never shrinks, and the slowest episode ends 10 x (100 ms + critical_ms) + that lag after the start.
    """
    spread = IDEAL_MS / (IDEAL_MS + _lag_steps(workers) * critical_ms)
    throughput = LATENCY_B_S * 1000 * workers / (EPISODES_B * total_ms) if total_ms > 0 else 1.0
    return min(1.0, spread, throughput)


def cpu_for_target(workers: int) -> float:
    """The most CPU a step may cost between reply and request (ms) for the target, by `efficiency_ceiling`."""
    return IDEAL_MS * (1 / TARGET_EFFICIENCY - 1) / _lag_steps(workers)


def _lag_steps(workers: int) -> float:
    """How many steps' CPU the slowest episode waits in all: its own 10, and the rest of its round's share."""
    return STEPS + EPISODES_B / workers - 1


def asyncio_efficiency() -> float:
    """Plain asyncio: 64 tasks x 10 sleeps of 100 ms; steps/s over the ideal."""

    async def episode() -> None:
        """Ten sleeps."""
        for _ in range(STEPS):
            await asyncio.sleep(LATENCY_B_S)

    async def run() -> float:
        """All 64 at once; wall seconds."""
        start = time.perf_counter()
        await asyncio.gather(*(episode() for _ in range(EPISODES_B)))
        return time.perf_counter() - start

    return EPISODES_B * STEPS / asyncio.run(run()) / IDEAL_STEPS_PER_S


# ---------------------------------------------------------------- inspect-ai


class InspectBench:
    """The same workloads through inspect-ai: a `@modelapi` provider and a 10-step solver."""

    def __init__(self) -> None:
        from inspect_ai.model import GenerateConfig, ModelAPI, ModelOutput, modelapi
        from inspect_ai.solver import Generate, TaskState, solver

        self.latency_s = 0.0
        self.model_s: dict[str, float] = {}
        self.step_s: list[tuple[str, float]] = []
        self.windows: list[tuple[float, float]] = []
        bench = self

        @modelapi(name="suitebench")
        class BenchAPI(ModelAPI):
            """Answers `ACTION: go` after the bench's latency."""

            def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                         config: GenerateConfig | None = None, **model_args: Any) -> None:
                super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())

            async def generate(self, input: list[Any], tools: list[Any], tool_choice: Any,
                               config: GenerateConfig) -> ModelOutput:
                """Wait the latency, then answer; the time inside is noted per prompt."""
                start = time.perf_counter()
                if bench.latency_s > 0:
                    await asyncio.sleep(bench.latency_s)
                text = reply([])
                output = ModelOutput.from_content(model=self.model_name, content=text)
                bench.model_s[input[-1].text] = time.perf_counter() - start
                return output

        @solver
        def step_loop(steps: int = STEPS) -> Callable[..., Any]:
            """Our episode loop as a solver: prompt, generate, parse, step, `steps` times."""
            from inspect_ai.model import ChatMessageUser

            async def solve(state: TaskState, generate: Generate) -> TaskState:
                """One sample: the episode loop."""
                env = StepEnv(Task(BENCH, f"s{state.sample_id}", {"steps": steps}))
                obs = env.reset()
                start = last = time.perf_counter()
                while True:
                    prompt = build_prompt(BENCH, env.task, obs, [])[0]["content"]
                    state.messages = [ChatMessageUser(content=prompt)]
                    state = await generate(state)
                    action = parse_action(BENCH, env.task, state.output.completion)
                    result = env.step(action.value)
                    now = time.perf_counter()
                    bench.step_s.append((prompt, now - last))
                    last, obs = now, result.observation
                    if result.done:
                        break
                bench.windows.append((start, last))
                return state

            return solve

        self._solver = step_loop

    def run(self, samples: int, concurrency: int, latency_s: float) -> float:
        """One eval of `samples` x 10 steps; returns the sample window (first solver start to last end)."""
        from inspect_ai import Task as InspectTask
        from inspect_ai import eval as inspect_eval
        from inspect_ai.dataset import Sample

        self.latency_s = latency_s
        self.model_s.clear()
        self.step_s.clear()
        self.windows.clear()
        task = InspectTask(dataset=[Sample(input="go", id=i) for i in range(samples)], solver=self._solver())
        with tempfile.TemporaryDirectory(prefix="suite-overhead-inspect-") as log_dir:
            logs = inspect_eval(task, model="suitebench/bench", log_dir=log_dir, display="none",
                                max_samples=concurrency, max_connections=concurrency)
        if logs[0].status != "success" or len(self.windows) != samples:
            raise RuntimeError(f"inspect eval ended {logs[0].status} with {len(self.windows)} samples")
        return max(end for _, end in self.windows) - min(start for start, _ in self.windows)

    def step_overhead(self, samples: int) -> dict[str, float]:
        """Workload (a) through inspect-ai: medians over every turn of `samples` sequential samples, in ms."""
        self.run(2, 1, 0.0)
        cpu = time.process_time()
        self.run(samples, 1, 0.0)
        cpu = time.process_time() - cpu
        return {
            "inspect_step_overhead_ms": _median_ms(wall - self.model_s[prompt] for prompt, wall in self.step_s),
            "inspect_step_total_ms": _median_ms(wall for _, wall in self.step_s),
            "inspect_step_cpu_ms": per_step_ms(cpu, len(self.step_s)),
        }

    def efficiency(self) -> tuple[float, float]:
        """Workload (b) through inspect-ai: (steps/s over the ideal, process CPU ms per step of the eval)."""
        cpu = time.process_time()
        window = self.run(EPISODES_B, EPISODES_B, LATENCY_B_S)
        cpu_ms = (time.process_time() - cpu) * 1000 / (EPISODES_B * STEPS)
        return EPISODES_B * STEPS / window / IDEAL_STEPS_PER_S, cpu_ms


# ---------------------------------------------------------------- report


def _median_ms(values: Any) -> float:
    """The median of seconds, in milliseconds."""
    return statistics.median(list(values)) * 1000


def measure(quick: bool, skip_inspect: bool, folder: str | None = None) -> dict[str, Any]:
    """Every figure: (a) and (b) through the suite, the asyncio baseline, and (c) through inspect-ai."""
    episodes_a, repeats = (10, 1) if quick else (30, 3)
    figures: dict[str, Any] = {"load_avg_1m": round(os.getloadavg()[0], 2)}
    with tempfile.TemporaryDirectory(prefix="suite-overhead-", dir=folder) as tmp:
        root = Path(tmp)
        figures.update(suite_step_overhead(episodes_a, root / "a"))
        run_suite(4, 4, SLOW_MODEL, root / "warm-b")
        ours, here, bare = [], [], []
        for i in range(repeats):
            ours.append(suite_efficiency(root / f"b{i}"))
            here.append(suite_efficiency(root / f"here{i}", call_workers=0))
            with litellm_stubbed():
                bare.append(suite_efficiency(root / f"bare{i}", call_workers=0))
        cache_writer.flush_all()  # replies still queued go to the bench's cache before its folder is removed
    base = [asyncio_efficiency() for _ in range(repeats)]
    from suite.models.call_workers import auto_count

    figures.update({
        "call_workers": auto_count("auto"),
        "efficiency": statistics.median(e for e, _ in ours),
        "efficiency_runs": [e for e, _ in ours],
        "cpu_ms_per_step_call_workers": statistics.median(c for _, c in ours),
        "efficiency_in_process": statistics.median(e for e, _ in here),
        "efficiency_in_process_runs": [e for e, _ in here],
        "cpu_ms_per_step": statistics.median(c for _, c in here),
        "asyncio_efficiency": statistics.median(base),
        "efficiency_without_litellm": statistics.median(e for e, _ in bare),
        "cpu_ms_per_step_without_litellm": statistics.median(c for _, c in bare),
    })
    figures["steps_per_s"] = figures["efficiency"] * IDEAL_STEPS_PER_S
    figures.update(ceilings(figures, 150 if quick else 500))
    inspect: dict[str, Any] = {"inspect_step_overhead_ms": None, "inspect_step_total_ms": None,
                               "inspect_step_cpu_ms": None,
                               "inspect_efficiency": None, "inspect_efficiency_runs": None,
                               "inspect_cpu_ms_per_step": None}
    if not skip_inspect:
        try:
            ib = InspectBench()
        except ImportError as exc:
            inspect["inspect_error"] = f"inspect-ai is not installed ({exc.name}): pip install -e .[bench]"
        else:
            inspect.update(ib.step_overhead(episodes_a))
            runs = [ib.efficiency() for _ in range(repeats)]
            inspect.update({"inspect_efficiency": statistics.median(e for e, _ in runs),
                            "inspect_efficiency_runs": [e for e, _ in runs],
                            "inspect_cpu_ms_per_step": statistics.median(c for _, c in runs)})
    figures.update(inspect)
    if figures["inspect_efficiency"]:
        figures["step_overhead_ratio"] = figures["step_overhead_ms"] / figures["inspect_step_overhead_ms"]
        figures["step_total_ratio"] = figures["step_total_ms"] / figures["inspect_step_total_ms"]
        figures["step_cpu_ratio"] = figures["step_cpu_ms"] / figures["inspect_step_cpu_ms"]
        figures["efficiency_ratio"] = figures["efficiency"] / figures["inspect_efficiency"]
    return {k: _rounded(v) for k, v in figures.items()}


def ceilings(figures: dict[str, Any], calls: int) -> dict[str, Any]:
    """What workload (b) could reach at best on this machine, from the CPU its steps and litellm's calls cost."""
    litellm_ms, deferred_ms = litellm_cost(calls)
    total_ms, workers = figures["cpu_ms_per_step"], cores()
    critical_ms = max(0.0, total_ms - deferred_ms)
    # litellm's share of a step in workload (b): the same run's CPU with and without litellm.acompletion
    litellm_step_ms = max(0.0, total_ms - figures["cpu_ms_per_step_without_litellm"])
    return {
        "cores": workers,
        "litellm_cpu_ms_per_call": litellm_ms,
        "litellm_deferred_ms_per_call": deferred_ms,
        "litellm_cpu_ms_per_step": litellm_step_ms,
        "efficiency_ceiling_one_process": efficiency_ceiling(critical_ms, total_ms, 1),
        "efficiency_ceiling": efficiency_ceiling(critical_ms, total_ms, workers),
        "efficiency_ceiling_litellm_only": efficiency_ceiling(max(0.0, litellm_step_ms - deferred_ms),
                                                              litellm_step_ms, workers),
        "cpu_ms_per_step_for_target": cpu_for_target(workers),
        "cpu_ms_per_step_for_target_one_process": cpu_for_target(1),
    }


def _rounded(value: Any) -> Any:
    """Floats (and lists of them) to 4 decimals for printing."""
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def _verdict(ok: bool) -> str:
    """`meets` or `misses` a target."""
    return "meets target" if ok else "MISSES target"


def print_table(f: dict[str, Any]) -> None:
    """The figures as readable lines."""
    print(f"machine: {os.cpu_count()} CPUs, load average {f['load_avg_1m']} at start")
    print(f"(a) per step, zero-latency scripted model, {f['steps_a']} steps, trace + store on:")
    print(f"    runner's own time     {f['step_overhead_ms']:.3f} ms   (target < {TARGET_STEP_MS} ms: "
          f"{_verdict(f['step_overhead_ms'] < TARGET_STEP_MS)}; simulator on the event loop)")
    threaded = f["step_overhead_threaded_ms"]
    print(f"    with a thread hop     {threaded:.3f} ms   (target < {TARGET_STEP_THREADED_MS} ms: "
          f"{_verdict(threaded < TARGET_STEP_THREADED_MS)}; simulator calls in worker threads, "
          "the default for a simulator that does not declare inline_env)")
    print(f"    CPU per step          {f['step_cpu_ms']:.3f} ms   (process CPU of the whole step, litellm included; "
          f"{f['step_cpu_threaded_ms']:.3f} ms with the thread hop: the figure to compare on a loaded machine)")
    print(f"    full step with litellm {f['step_total_ms']:.3f} ms   (litellm at work "
          f"{f['litellm_in_step_ms']:.3f} ms: litellm.acompletion {f['litellm_call_ms']:.3f} ms, "
          "then its deferred logging)")
    print(f"(b) 64 episodes x 10 steps, 100 ms model: {f['steps_per_s']:.0f} steps/s of {IDEAL_STEPS_PER_S:.0f}")
    print(f"    efficiency            {f['efficiency']:.3f}      (target >= {TARGET_EFFICIENCY}: "
          f"{_verdict(f['efficiency'] >= TARGET_EFFICIENCY)}; runs {f['efficiency_runs']}; model calls in "
          f"{f['call_workers']} worker process(es), model.call_workers=auto)")
    print(f"    CPU per step          {f['cpu_ms_per_step_call_workers']:.3f} ms   (this process and its model-call "
          "workers)")
    print(f"    in one process        {f['efficiency_in_process']:.3f}      (model.call_workers=0; runs "
          f"{f['efficiency_in_process_runs']}; CPU per step {f['cpu_ms_per_step']:.3f} ms, every thread "
          "of the process)")
    print(f"    plain asyncio         {f['asyncio_efficiency']:.3f}")
    print(f"    without litellm       {f['efficiency_without_litellm']:.3f}      (diagnostic only: the script answers "
          f"litellm.acompletion directly; CPU per step {f['cpu_ms_per_step_without_litellm']:.3f} ms)")
    print(f"    litellm               {f['litellm_cpu_ms_per_step']:.3f} ms of the CPU per step; alone, "
          f"{f['litellm_cpu_ms_per_call']:.3f} ms CPU per call to the scripted model, one call at a time "
          f"({f['litellm_deferred_ms_per_call']:.3f} ms of it deferred logging)")
    print(f"    ceilings on {f['cores']} cores (perfect scheduler, this CPU per step): "
          f"{f['efficiency_ceiling_one_process']:.3f} in one process, {f['efficiency_ceiling']:.3f} over every core, "
          f"{f['efficiency_ceiling_litellm_only']:.3f} for a runner that cost nothing besides litellm")
    print(f"    target {TARGET_EFFICIENCY} needs at most {f['cpu_ms_per_step_for_target']:.2f} ms CPU per step between "
          f"reply and request over every core ({f['cpu_ms_per_step_for_target_one_process']:.2f} ms in one process)")
    if f["inspect_efficiency"] is None:
        print(f"(c) inspect-ai: {f.get('inspect_error', 'skipped')}")
        return
    print("(c) inspect-ai, same workloads, default logging:")
    print(f"    step overhead         {f['inspect_step_overhead_ms']:.3f} ms   (ours / inspect "
          f"{f['step_overhead_ratio']:.2f}; full step {f['inspect_step_total_ms']:.3f} ms, "
          f"ours / inspect {f['step_total_ratio']:.2f})")
    print(f"    CPU per step          {f['inspect_step_cpu_ms']:.3f} ms   (ours / inspect {f['step_cpu_ratio']:.2f}; "
          "inspect's includes its eval's set-up and log writing)")
    print(f"    efficiency            {f['inspect_efficiency']:.3f}      (ours / inspect "
          f"{f['efficiency_ratio']:.2f}; runs {f['inspect_efficiency_runs']}; CPU per step "
          f"{f['inspect_cpu_ms_per_step']:.3f} ms)")


def main(argv: list[str] | None = None) -> int:
    """Measure and print the figures (one JSON object with --json)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="fewer steps and one run of each workload")
    parser.add_argument("--no-inspect", action="store_true", help="leave out the inspect-ai comparison")
    parser.add_argument("--dir", help="where the run folders go (default: the system's temporary folder)")
    args = parser.parse_args(argv)
    figures = measure(args.quick, args.no_inspect, args.dir)
    if args.json:
        print(json.dumps(figures))
    else:
        print_table(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
