"""The Vigil plugin: terminal commitment on the household simulator (8 families, pixel interaction, W vs B)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from suite.contract.errors import ConfigError
from suite.contract.hookspecs import hookimpl
from suite.contract.records import Action, Observation, Settlement, StepRecord, Task, Trajectory
from suite.contract.registry import AgentSpec, BenchmarkSpec, DataSource, Metric, Registry
from suite_household.thor_backend import simulator_resources, thor_requirements

from suite_vigil import analysis, baselines, clicks, goals, prompting, routines, scoring, valid_replies
from suite_vigil.env import VigilEnv
from suite_vigil.episodes import PACK_MANIFEST, check_episode_house, indexed_episodes, is_data_dir
from suite_vigil.parsing import parse_reply
from suite_vigil.report_view import report_view
from suite_vigil.settings import CONFIG_SCHEMA, COORDS
from suite_vigil.sim import BACKENDS, make_sim
from suite_vigil.vocabulary import FAMILIES, FAMILY_CODES

BENCH = "vigil"
PACK_DIR = Path(__file__).parent / "pack" / "data"


def oracle_agent(ctx: Any) -> Any:
    """The privileged solver (see suite_vigil.oracle)."""
    from suite_vigil.oracle import OracleAgent

    return OracleAgent(ctx)


def run_metadata(config: Any) -> dict[str, Any]:
    """The profile, prompt policy and version, and the SHA-256 of the rendered prompt (placeholder instruction)."""
    s = settings(config)
    return {"profile": prompting.PROFILE, "prompt_policy": prompting.POLICY,
            "prompt_policy_version": prompting.POLICY_VERSION, "prompt_variant": s["variant"],
            "coords": "normalized_1000" if s["normalized"] else "native", "feedback": s["feedback"],
            "step_count": s["step_count"], "invalid_reason": s["invalid_reason"], "images": s["images"],
            "prompt_dir": s["prompt_dir"], **s["rules"],
            "prompt_sha256": prompting.prompt_sha256(s["variant"], s["normalized"], prompt_dir=s["prompt_dir"])}


def family(task: Task) -> str:
    """The stratum `--limit` keeps the share of: the episode's family (125 each, so a sample is balanced)."""
    return str(task.category)


@hookimpl
def register(registry: Registry) -> None:
    """Declare the benchmark, its oracle and its generated pack (the paper's data is not public)."""
    registry.add_benchmark(BenchmarkSpec(
        name=BENCH,
        description="Vigil: terminal commitment (W world completion vs B world + correct report), 8 families",
        headline=[Metric("B", "B"), Metric("W", "W"), Metric("delta", "Δ", higher_is_better=False),
                  Metric("FR", "FR", higher_is_better=False), Metric("NR", "NR", higher_is_better=False),
                  Metric("IL", "IL", higher_is_better=False),
                  Metric("steps", "steps", percent=False, higher_is_better=False, unit="steps")],
        detail_tables=analysis.detail_tables,
        reference=Path(__file__).parent / "reference.json",
        resources={"num_cpus": 1},
        resources_for=simulator_resources,
        requires=thor_requirements(BENCH),
        check_tasks=check_tasks,
        run_metadata=run_metadata,
        config_schema=CONFIG_SCHEMA,
        config_defaults=Path(__file__).parent / "config.yaml",
        protocols={"paper": Path(__file__).parent / "protocols" / "paper.yaml"},
        valid_reply=valid_replies.valid_reply,
        stop_reply=valid_replies.stop_reply,
        chance=baselines.CHANCE,
        baselines=[*baselines.declared(), routines.declared(), clicks.declared()],
        audit_by=lambda task: task.category,
        images=lambda section: "vigil.images=false" if section is None or section.get("images", True) else None,
        blind_config={"vigil.images": False},  # the blind baselines never read a frame: none is rendered for them
        strata=family,
    ))
    baselines.register_scripts()
    registry.add_report_view(report_view(BENCH))
    registry.add_data_source(DataSource(
        BENCH,
        official="none: the paper's 1,000-episode pack is not public",
        pack_dir=PACK_DIR,
        pack_label="generated Vigil pack (seeded, oracle-validated, 8 families x 125; not the paper's episodes)",
        is_data_dir=is_data_dir,
        pack_manifest=PACK_MANIFEST,
    ))
    registry.add_agent(AgentSpec("oracle", oracle_agent, "privileged planner over the hidden world state",
                                 benchmarks=(BENCH,)))


def settings(config: Any) -> dict[str, Any]:
    """The checked prompt and env settings of a config section."""
    coords = str(config.get("coords") or "native")
    variant = str(config.get("prompt") or "default")
    backend = str((config.get("env") or {}).get("backend") or "household")
    if coords not in COORDS:
        raise ConfigError(f"vigil.coords: {coords!r} is unknown; choose one of {', '.join(COORDS)}")
    if variant not in prompting.PROMPTS:
        raise ConfigError(f"vigil.prompt: {variant!r} is unknown; choose one of {', '.join(prompting.PROMPTS)}")
    if backend not in BACKENDS:
        raise ConfigError(f"vigil.env.backend: {backend!r} is unknown; choose one of {', '.join(BACKENDS)}")
    flags = {key: config.get(key, False) for key in ("feedback", "step_count", "invalid_reason")}
    flags["images"] = config.get("images", True)
    for key, value in flags.items():
        if not isinstance(value, bool):
            raise ConfigError(f"vigil.{key}: {value!r} is not true or false")
    families = list(config.get("families") or FAMILY_CODES)
    unknown = sorted(set(families) - set(FAMILY_CODES))
    if unknown:
        raise ConfigError(f"vigil.families: unknown {unknown}; choose from {', '.join(FAMILY_CODES)}")
    prompt_dir = config.get("prompt_dir")
    if prompt_dir is not None and not Path(str(prompt_dir)).is_dir():
        raise ConfigError(f"vigil.prompt_dir: {prompt_dir} is not a folder")
    limits = dict(config.get("invalid_limits") or {})
    for code in FAMILY_CODES:
        value = limits.get(code)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ConfigError(f"vigil.invalid_limits.{code}: {value!r} is not a count (an integer >= 0)")
    rules = {"near_to": str(config.get("near_to") or "centre"), "sv_world": str(config.get("sv_world") or "unchanged")}
    for key, allowed in (("near_to", goals.NEAR_MEASURES), ("sv_world", goals.SV_RULES)):
        if rules[key] not in allowed:
            raise ConfigError(f"vigil.{key}: {rules[key]!r} is unknown; choose one of {', '.join(allowed)}")
    return {"normalized": coords == "normalized_1000", "variant": variant, **flags, "rules": rules,
            "prompt_dir": None if prompt_dir is None else str(prompt_dir),
            "backend": backend, "families": families, "invalid_limits": limits}


@hookimpl
def load_tasks(benchmark: str, config: Any) -> list[Task]:
    """Every episode of the pack (sorted by id), filtered by family, with the run's prompt settings."""
    s = settings(config)
    prompt = {k: s[k] for k in ("variant", "normalized", "feedback", "step_count", "invalid_reason", "prompt_dir")}
    tasks = []
    for index, ep in indexed_episodes(Path(config.data_dir)):
        if ep["family"] not in s["families"]:
            continue
        ep = {**ep, "max_invalid": s["invalid_limits"][ep["family"]]}
        data = {"episode": ep, "prompt": prompt, "rules": s["rules"], "backend": s["backend"],
                "data_dir": str(config.data_dir),
                "index": index}
        tasks.append(Task(BENCH, ep["episode_id"], data, category=ep["family"], max_steps=ep["max_steps"],
                          meta={"tier": FAMILIES[ep["family"]].tier}))
    return tasks


def check_tasks(tasks: list[Task], config: Any) -> None:
    """Before the run: every selected episode's house file reads and validates, and names every object the episode
    does (on the household backend; an AI2-THOR scene is the simulator's own)."""
    for task in tasks:
        if task.data["backend"] == "household":
            check_episode_house(task.data["data_dir"], task.data["index"], task.data["episode"])


@hookimpl
def make_env(benchmark: str, task: Task, config: Any) -> VigilEnv:
    """The episode's house on the configured backend, at its start pose with its preset states (rendering no frame
    with `vigil.images=false`: clicks then resolve on a lazily rendered instance buffer)."""
    prompt = task.data["prompt"]
    images = bool(config.get("images", True)) if config is not None else True
    sim = make_sim(task.data["episode"], task.data["backend"], task.data["data_dir"], render=images)
    env = VigilEnv(task, sim, feedback=prompt["feedback"], normalized=prompt["normalized"])
    if not images:
        env.skip_images()
    return env


@hookimpl
def build_prompt(benchmark: str, task: Task, observation: Observation, history: list[StepRecord]) -> list[dict]:
    """The four-block system prompt, then the instruction, the text history and the current frame."""
    return prompting.build_messages(task, observation, history)


@hookimpl
def parse_action(benchmark: str, task: Task, reply: str) -> Action:
    """One JSON object with skill_name and arguments; anything else is an invalid action."""
    return parse_reply(reply, normalized=task.data["prompt"]["normalized"])


@hookimpl
def settle(benchmark: str, task: Task, trajectory: Trajectory, env: VigilEnv) -> Settlement:
    """W, strict W, B, the closure label and the analyses' per-episode figures."""
    return scoring.settle(task, trajectory, env)
