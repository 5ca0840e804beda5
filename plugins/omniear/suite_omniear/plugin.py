"""The OmniEAR benchmark plugin: hooks over our simulator (suite_omniear.sim), prompts, scoring, data."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from suite.contract.env import Env
from suite.contract.hookspecs import hookimpl
from suite.contract.records import Action, Observation, Settlement, StepRecord, StepResult, Task, Trajectory
from suite.contract.registry import AgentSpec, BenchmarkSpec, DataSource, Metric, Registry, ShortcutBaseline
from suite.engine.agents import Agent, AgentContext, AgentTurn, PolicyAgent

from suite_omniear import flipper, prompting, scoring, valid_replies
from suite_omniear.data import CATEGORIES, AttributeTable, EvalTask, find_attribute_table, load_attribute_table
from suite_omniear.data import load_tasks as load_eval_tasks
from suite_omniear.oracle import OraclePlanner
from suite_omniear.report_view import report_view
from suite_omniear.settings import CONFIG_SCHEMA
from suite_omniear.sim.simulator import OmniSim

BENCH = "omniear"
HERE = Path(__file__).parent
PACK_DIR = HERE / "pack" / "data"
UPSTREAM = "ZJU-REAL/OmniEmbodied"
#: the command statuses of a step whose every agent's command failed or was refused (`StepResult.failed`)
FAILED_STATUSES = ("FAILURE", "INVALID")
UPSTREAM_COMMIT = "c4cae720a334a01812365ad0f0eafad30b5664ce"
log = logging.getLogger("suite.omniear")


class OmniEnv:
    """One OmniEAR episode: a fresh simulator per task, as the reference harness runs them."""

    def __init__(self, task: Task, config: Any) -> None:
        self.task = task
        eval_task: EvalTask = task.data["eval_task"]
        self.sim = OmniSim.from_eval_task(eval_task, task.data["attribute_table"], str(config.observation_mode),
                                          frozenset(config.get("fixes") or ()))
        self.done_claims: list[int] = []
        #: every check holds in the scene file: a first step that runs no command (an unparsable two-agent reply)
        #: still completes the task, since the reference verifies after every step
        self.complete_at_start = self.sim.verifier.all_hold(self.sim.world)

    def _observation(self) -> Observation:
        return Observation(text=self.sim.observation(), data={"actions": self.sim.available_actions()})

    def reset(self) -> Observation:
        """The environment description before the first command."""
        return self._observation()

    def step(self, commands: dict[str, str]) -> StepResult:
        """Run one command per agent; the episode ends when the reference harness would stop."""
        out = self.sim.step(commands)
        if scoring.claims_done(commands):
            self.done_claims.append(self.sim.steps_taken)
        results = {a: {"status": r.status, "message": r.message} for a, r in out.results.items()}
        info: dict[str, Any] = {"results": results, "checks_passed": list(out.checks_passed),
                                "task_success": out.task_success}
        if out.overall is not None:
            info["overall"] = {"status": out.overall.status, "message": out.overall.message}
            feedback = f"{out.overall.status} - {out.overall.message}"
        else:
            feedback = next(f"{r['status']} - {r['message']}" for r in results.values())
        failed = all(r["status"] in FAILED_STATUSES for r in results.values())
        return StepResult(self._observation(), feedback=feedback, done=out.terminated, info=info, failed=failed)

    def close(self) -> None:
        """Nothing to release."""


def _is_data_dir(path: Path) -> bool:
    root = _eval_root(path)
    return any((root / split / "task").is_dir() for split in ("single-independent", "multi-independent"))


def _eval_root(path: Path) -> Path:
    """The folder holding the splits: the data dir itself, or its `eval/` (as pulled from upstream)."""
    path = Path(path)
    return path / "eval" if (path / "eval").is_dir() and not (path / "single-independent").is_dir() else path


def _pull(dest: Path, console: Any) -> None:
    from suite.data.pull import GitHubSnapshot

    GitHubSnapshot(UPSTREAM, UPSTREAM_COMMIT, ("data/eval/", "data/attribute_actions.csv"), strip="data/")(
        dest, console)


def fixed_plan_agent(ctx: AgentContext) -> PolicyAgent:
    """The `fixed-plan` baseline agent (`valid_replies.explore_then_done`), through the benchmark's parser."""

    def policy(task: Task, env: Any, observation: Observation, history: list[StepRecord]) -> Action:
        return prompting.parse_reply(valid_replies.explore_then_done(task, observation, len(history)),
                                     task.data["agents"])

    return PolicyAgent(policy)


@hookimpl
def register(registry: Registry) -> None:
    """Declare the benchmark, its oracle, its data and its conformance checker."""
    registry.add_benchmark(BenchmarkSpec(
        name=BENCH,
        description="OmniEAR: physical, tool-use and collaboration reasoning in a text world (1-2 agents)",
        headline=[Metric("success", "SR"), Metric("success_single", "SR single"),
                  Metric("success_multi", "SR multi"), Metric("steps", "steps", percent=False,
                                                              higher_is_better=False, unit="steps")],
        detail_tables=scoring.detail_tables,
        reference=HERE / "reference.json",
        # on Ray: a step takes microseconds, so an episode mostly waits on the model: one actor per CPU, running up to
        # 64 episodes at once on its event loop (as the local executor runs them all in one process)
        resources={"num_cpus": 1, "episodes": 64},
        inline_env=True,  # a pure-Python text world: a step takes about 10 us
        config_schema=CONFIG_SCHEMA,
        config_defaults=Path(__file__).parent / "config.yaml",
        protocols={"paper": Path(__file__).parent / "protocols" / "paper.yaml"},
        valid_reply=valid_replies.valid_reply,
        stop_reply=valid_replies.stop_reply,
        chance=0.0,  # success needs the world changed as the task asks: guessing earns nothing
        audit_by=lambda task: task.category,
        baselines=[ShortcutBaseline("fixed-plan", "the same plan for every task, never reading the observation: "
                                    "every agent explores where it stands, then declares DONE", agent="fixed-plan",
                                    ceiling=5.0, chance=0.0),
                   ShortcutBaseline("learned-flipper", "never reads the task: explores room by room and applies the "
                                    "no-tool verbs fitted per category on the other folds (the set that solved most "
                                    "training tasks of the category) to every object it discovers "
                                    "(suite_omniear.flipper)", learner=flipper.fit,
                                    reads=("text", "category", "history"),
                                    ceiling={"*": 5.0, **{c: 5.0 for c in CATEGORIES}}, chance=0.0)],
    ))
    registry.add_agent(AgentSpec("fixed-plan", fixed_plan_agent, "a shortcut baseline: explore, then DONE, never "
                                 "reading the observation", benchmarks=(BENCH,)))
    registry.add_report_view(report_view(BENCH))
    registry.add_data_source(DataSource(
        BENCH,
        official=f"eval split of github.com/{UPSTREAM} at {UPSTREAM_COMMIT[:8]} (MIT)",
        pack_dir=PACK_DIR,
        pack_label="generated OmniEAR pack (seeded, oracle-validated)",
        pull=_pull,
        official_blobs=HERE / "official_blobs.json",
        is_data_dir=_is_data_dir,
    ))
    from suite_omniear.conformance import run_conformance

    registry.add_conformance(BENCH, run_conformance)
    registry.add_agent(AgentSpec("oracle", OracleAgent, "privileged planner over the hidden scene and goal",
                                 benchmarks=(BENCH,)))


class OracleAgent(Agent):
    """Our privileged planner, stepping the same loop as every agent; it says why it gave up on a check."""

    def __init__(self, ctx: Any) -> None:
        self.planner: OraclePlanner | None = None

    async def begin(self, task: Task, env: Env) -> None:
        """Plan over this episode's simulator."""
        if not isinstance(env, OmniEnv):
            raise TypeError(f"the oracle agent plans over an OmniEAR env, not {type(env).__name__}")
        self.planner = OraclePlanner(env.sim)

    async def act(self, task: Task, observation: Observation, history: list[StepRecord]) -> AgentTurn:
        """The planner's next command per agent."""
        planner = self.planner
        if planner is None:
            raise RuntimeError("the oracle agent acted before begin() gave it the episode's simulator")
        commands = planner.next_commands()
        text = " | ".join(f"{a}: {c}" for a, c in commands.items()) if len(commands) > 1 else commands["agent_1"]
        note = "; ".join(f"check {i}: {why}" for i, why in sorted(planner.infeasible.items())) or None
        return AgentTurn(Action(value=commands, text=text), note=note)


def _keep(et: EvalTask, config: Any) -> bool:
    categories = config.get("categories")
    scenes = config.get("scenes")
    if categories and et.task.category not in set(categories):
        return False
    if scenes and et.task.scene_id not in {str(s) for s in scenes}:
        return False
    return not (config.get("exclude_scalar_max_size") and scoring.scalar_max_size(et))


@hookimpl
def load_tasks(benchmark: str, config: Any) -> list[Task]:
    """Both splits of the data dir, joined with their scenes, filtered by category and scene."""
    root = _eval_root(Path(config.data_dir))
    table: AttributeTable = load_attribute_table(find_attribute_table(root))
    unknown = set(config.get("categories") or ()) - set(CATEGORIES)
    if unknown:
        from suite.contract.errors import ConfigError

        raise ConfigError(f"omniear.categories: unknown {sorted(unknown)}; choose from {', '.join(CATEGORIES)}")
    prompt_settings = {key: config.get(key) for key in prompting.SETTINGS}
    tasks = []
    for et in load_eval_tasks(root, tuple(config.splits)):
        for warning in et.warnings:
            log.warning(warning)
        if _keep(et, config):
            data = {"eval_task": et, "attribute_table": table, "agents": len(et.task.agents),
                    "scalar_max_size": scoring.scalar_max_size(et), "prompt": prompt_settings}
            tasks.append(Task(BENCH, et.key, data, category=et.task.category, max_steps=int(config.max_steps)))
    return tasks


@hookimpl
def make_env(benchmark: str, task: Task, config: Any) -> OmniEnv:
    """A fresh simulator for the task."""
    return OmniEnv(task, config)


@hookimpl
def build_prompt(benchmark: str, task: Task, observation: Observation, history: list[StepRecord]) -> list[dict]:
    """System and user messages from the template files (stateless, history inside)."""
    et: EvalTask = task.data["eval_task"]
    return prompting.build_messages(et.task.description, observation.text, observation.data["actions"], history,
                                    task.data["agents"], task.data["prompt"])


@hookimpl
def parse_action(benchmark: str, task: Task, reply: str) -> Action:
    """`Agent_1_Action:` (and `Agent_2_Action:`) as the reference extracts them."""
    return prompting.parse_reply(reply, task.data["agents"])


@hookimpl
def settle(benchmark: str, task: Task, trajectory: Trajectory, env: OmniEnv) -> Settlement:
    """Sticky success, steps, the DONE-claim confusion cell and the reference's extra counts."""
    at_start = env.complete_at_start and bool(trajectory.steps) and not trajectory.steps[0].action.ok
    return scoring.settle(task, trajectory, env.sim.task_success or at_start, env.done_claims, at_start)
