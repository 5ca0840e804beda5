"""The AsgardBench plugin: plans on the household simulator, the 12 actions, the tagged prompt protocol."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from suite.contract.errors import ConfigError
from suite.contract.hookspecs import hookimpl
from suite.contract.records import Action, Observation, Settlement, StepRecord, Task, Trajectory
from suite.contract.registry import AgentSpec, BenchmarkSpec, DataSource, Metric, Registry, ShortcutBaseline
from suite_household.thor_backend import backend_env, simulator_resources, thor_requirements

from suite_asgard import learned_plan, prompting, scoring, valid_replies
from suite_asgard.blind_plan import fixed_plan_agent
from suite_asgard.conditions import resolve_condition
from suite_asgard.env import AsgardEnv, household_env
from suite_asgard.inventory import find_inventory_file, load_inventories, scene_inventory
from suite_asgard.parsing import parse_reply
from suite_asgard.plans import PACK_MANIFEST, Plan, is_data_dir, load_plans
from suite_asgard.settings import CONFIG_SCHEMA
from suite_asgard.termination import TerminationRules
from suite_asgard.vocabulary import HIDDEN_TYPES, SLICED_FORM, TASK_TYPES

#: The harness asks the model up to three times while its reply is empty, then scores an unparsable turn.
EMPTY_REPLY_ATTEMPTS = 3
BENCH = "asgard"
HERE = Path(__file__).parent
PACK_DIR = HERE / "pack" / "data"
UPSTREAM = "microsoft/AsgardBench"
UPSTREAM_COMMIT = "cba96469ce023cbba256b163025fda28ac42f4e3"


def _pull(dest: Path, console: Any) -> None:
    from suite.data.pull import GitHubSnapshot

    GitHubSnapshot(UPSTREAM, UPSTREAM_COMMIT, ("Generated/magt_benchmark", "AsgardBench/Data/item_cache.json",
                                               "LICENSE"))(dest, console)


#: A blind plan of the goals may solve a slice-and-distribute plan whose item lies loose and whose dishes are clean
#: and open: nothing there needs adapting to what is seen, in the official plans as in ours (README: Shortcut
#: audit, 46 % of the official ones sampled). Every other task type needs sight: there it may solve none.
FIXED_PLAN_CEILING = {"*": 20.0, **dict.fromkeys(TASK_TYPES, 0.0), "slice_and_distribute": 50.0}


def oracle_agent(ctx: Any) -> Any:
    """The privileged solver (see suite_asgard.oracle)."""
    from suite_asgard.oracle import OracleAgent

    return OracleAgent()


@hookimpl
def register(registry: Registry) -> None:
    """Declare the benchmark, its oracle and its data (official plans upstream, our generated pack)."""
    registry.add_benchmark(BenchmarkSpec(
        name=BENCH,
        description="AsgardBench: visually grounded interactive planning with Success/Failure feedback",
        headline=[Metric("success", "SR"), Metric("goal_fraction", "goals"),
                  Metric("undoable_rate", "undoable turns", higher_is_better=False),
                  Metric("steps", "steps", percent=False, higher_is_better=False, unit="steps")],
        detail_tables=scoring.detail_tables,
        reference=HERE / "reference.json",
        resources={"num_cpus": 1},
        resources_for=simulator_resources,
        config_schema=CONFIG_SCHEMA,
        config_defaults=Path(__file__).parent / "config.yaml",
        protocols={"paper": Path(__file__).parent / "protocols" / "paper.yaml"},
        images=lambda section: None if resolve_condition(section).text_only else "asgard.condition=text_only",
        requires=thor_requirements(BENCH),
        valid_reply=valid_replies.valid_reply,
        empty_reply_attempts=EMPTY_REPLY_ATTEMPTS,
        stop_reply=valid_replies.stop_reply,
        chance=0.0,  # success needs every goal met by acting: guessing earns nothing
        audit_by=lambda task: task.category,
        audit_limit=36,  # a stratified sample of 3 plans per task type: a baseline plays up to 2N turns with views
        blind_config={"asgard.condition": "text_only"},  # the same rules and feedback, no view rendered
        baselines=[ShortcutBaseline(
            "fixed-plan", "the happy-path plan of the task's goals, played blind: never looks at a view or at the "
            "feedback, never adapts (suite_asgard.blind_plan)", agent="fixed-plan", ceiling=FIXED_PLAN_CEILING,
            chance=0.0, blind=True), learned_plan.declared(FIXED_PLAN_CEILING)],
        inline_parse=True,  # linear: 0.04-0.1 ms CPU for a 4 KB reply of any shape, 10x that for 40 KB
    ))
    registry.add_agent(AgentSpec("fixed-plan", fixed_plan_agent, "a shortcut baseline: the goals' happy-path plan, "
                                 "played without looking", benchmarks=(BENCH,)))
    registry.add_data_source(DataSource(
        BENCH,
        official=f"Generated/magt_benchmark of github.com/{UPSTREAM} at {UPSTREAM_COMMIT[:8]} (MIT)",
        pack_dir=PACK_DIR,
        pack_label="generated AsgardBench pack (seeded, oracle-validated; not the paper's 108 plans)",
        pull=_pull,
        official_blobs=HERE / "official_blobs.json",
        is_data_dir=is_data_dir,
        pack_manifest=PACK_MANIFEST,
    ))
    registry.add_agent(AgentSpec("oracle", oracle_agent, "privileged solver over the hidden scene state",
                                 benchmarks=(BENCH,)))


def available_objects(names: list[str]) -> list[str]:
    """The object types the agent may name: the scene's types and their sliced forms, sorted, minus hidden ones."""
    types = {n.rsplit("_", 1)[0] if "_" in n else n for n in names}
    types |= {SLICED_FORM[t] for t in types if t in SLICED_FORM}
    return sorted(types - HIDDEN_TYPES)


def _keep(plan: Plan, config: Any) -> bool:
    kinds, scenes = config.get("task_types"), config.get("scenes")
    if kinds and plan.task_type not in set(kinds):
        return False
    return not (scenes and plan.scene not in {str(s) for s in scenes})


@hookimpl
def load_tasks(benchmark: str, config: Any) -> list[Task]:
    """Every plan of the data dir (filtered by task type and scene), with its prompt settings."""
    unknown = set(config.get("task_types") or ()) - set(TASK_TYPES)
    if unknown:
        raise ConfigError(f"asgard.task_types: unknown {sorted(unknown)}; choose from {', '.join(TASK_TYPES)}")
    condition = resolve_condition(config)
    rules = TerminationRules.from_config(config.get("termination")).to_dict()
    data_dir = Path(config.data_dir)
    inventories = load_inventories(find_inventory_file(data_dir, config.get("item_cache")))
    generated = (data_dir / PACK_MANIFEST).is_file()
    prompt = {"condition": condition.to_dict(), "prompt_dir": config.get("prompt_dir"),
              "common_sense": bool(config.get("common_sense", False)),
              "system_message": bool(config.get("system_message", True))}
    tasks = []
    for plan in load_plans(data_dir, str(config.get("test_set") or "magt_benchmark")):
        if not _keep(plan, config):
            continue
        names, from_file = scene_inventory(plan, inventories)
        data = {"plan": plan, "inventory": names, "inventory_source": "file" if from_file else "derived",
                "objects": available_objects(names),
                "condition": condition.to_dict(), "prompt": prompt, "generated": generated, "termination": rules}
        soft, hard = plan.limits
        # the harness ends an episode once the turns exceed the hard limit: hard + 1 turns at most
        tasks.append(Task(BENCH, plan.id, data, category=plan.task_type, max_steps=hard + 1,
                          meta={"step_count": plan.step_count, "soft_limit": soft, "hard_limit": hard}))
    return tasks


@hookimpl
def make_env(benchmark: str, task: Task, config: Any) -> AsgardEnv:
    """The plan's scene on the configured backend."""
    return backend_env(BENCH, config, lambda: household_env(task, config), lambda: _thor_env(task, config))


def _thor_env(task: Task, config: Any) -> AsgardEnv:
    """The plan's real FloorPlan on AI2-THOR (imported only when asked for: it needs the [thor] extra)."""
    from suite_asgard.thor_sim import thor_env

    return thor_env(task, config)


@hookimpl
def build_prompt(benchmark: str, task: Task, observation: Observation, history: list[StepRecord]) -> list[dict]:
    """The fixed prompt as a system message, then the turn's part and the images the condition allows."""
    return prompting.build_messages(task, observation, history)


@hookimpl
def parse_action(benchmark: str, task: Task, reply: str) -> Action:
    """The last `Action:` of the answer block, checked against the 12 actions and the scene's objects."""
    return parse_reply(reply, task.data["objects"])


@hookimpl
def settle(benchmark: str, task: Task, trajectory: Trajectory, env: AsgardEnv) -> Settlement:
    """Success, the end reason, turn-failure counts and the step ratio."""
    return scoring.settle(task, trajectory, env)
