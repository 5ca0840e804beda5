"""Test helpers for plugins on the household simulator: the household player behind ai2thor's real Controller, and
oracle episodes recorded for comparison between the two backends."""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import Callable, Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from suite.contract.records import Action, Observation, StepRecord, Task
from suite.engine.agents import Agent, AgentContext, AgentTurn

from suite_household.player import SCENES_ENV
from suite_household.scene_io import save_scene
from suite_household.thor_backend import EXECUTABLE_ENV
from suite_household.world import Scene


def player_executable() -> str:
    """The installed `suite-household-player` (next to this interpreter, or on PATH)."""
    local = Path(sys.executable).parent / "suite-household-player"
    return str(local) if local.exists() else (shutil.which("suite-household-player") or "suite-household-player")


def use_household_player(monkeypatch: Any, folder: Path, scenes: Iterable[Scene] = ()) -> Path:
    """Make `env.backend=ai2thor` start the real ai2thor Controller on `suite-household-player`, serving these
    scenes (written to `folder` under their names) for this test (pytest monkeypatch); returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for scene in scenes:
        save_scene(scene, folder / f"{scene.name}.json")
    monkeypatch.setenv(EXECUTABLE_ENV, player_executable())
    monkeypatch.setenv(SCENES_ENV, str(folder))
    return folder


def record_thor_steps(monkeypatch: Any) -> list[tuple[str, dict[str, Any]]]:
    """Every action the real `ai2thor.controller.Controller` sends from now on in this test, as (name, args)."""
    from ai2thor.controller import Controller  # type: ignore[import-untyped]  # ai2thor ships no type information

    calls: list[tuple[str, dict[str, Any]]] = []
    step = Controller.step

    def recording(self: Any, action: Any = None, **args: Any) -> Any:
        args = {**(action if isinstance(action, dict) else {"action": action}), **args}
        calls.append((args["action"], {k: v for k, v in args.items() if k != "action"}))
        return step(self, **args)

    monkeypatch.setattr(Controller, "step", recording)
    return calls


def oracle_episode(benchmark: str, task: Task, config: Any, actions: list[Action] | None = None,
                   prepare: Callable[[Any], None] | None = None) -> dict[str, Any]:
    """The benchmark's registered oracle run on the task (or, given `actions`, those actions replayed as the
    agent, after `prepare(env)` sets the env up as the oracle does): every step's action, feedback, done and info,
    the end reason and the settlement (what `suite replay` compares), and the actions, under "actions"."""
    from suite.engine.host import build_host
    from suite.engine.loop import TraceSink, run_episode

    host = build_host()
    agent: Agent
    if actions is None:
        agent = host.registry.agent("oracle", benchmark).factory(AgentContext(host, benchmark, config))
    else:
        agent = _Replay(actions, prepare)
    result = asyncio.run(run_episode(host, task, agent, config, TraceSink()))
    steps = [{"action": repr(s.action.value), "feedback": s.feedback, "done": s.done, "info": s.info}
             for s in result.trajectory.steps]
    return {"steps": steps, "end_reason": result.trajectory.end_reason, "error": result.trajectory.error,
            "settlement": asdict(result.settlement), "actions": [s.action for s in result.trajectory.steps]}


class _Replay(Agent):
    """Recorded actions as the agent, the env prepared as the oracle that chose them prepared it."""

    def __init__(self, actions: list[Action], prepare: Callable[[Any], None] | None) -> None:
        self.actions, self.prepare = actions, prepare

    async def begin(self, task: Task, env: Any) -> None:
        """Set the env up as the oracle did (no frames, the pack's ids)."""
        if self.prepare is not None:
            self.prepare(env)

    async def act(self, task: Task, observation: Observation, history: list[StepRecord]) -> AgentTurn:
        """The next recorded action."""
        return AgentTurn(action=self.actions[len(history)])
