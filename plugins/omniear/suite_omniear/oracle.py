"""The oracle: a privileged closed-loop planner over the hidden simulator state and the task's checks.

Each call looks at the world as it is now and returns the next command per agent: it explores a room
before touching objects in it, opens closed containers, approaches objects, fetches a tool whose
`provides_abilities` has the verb, carries heavy objects with CORP_GRAB / CORP_GOTO / CORP_PLACE, uses
CORP_<VERB> where the task needs cooperation, and finishes with DONE (both agents DONE). A check it
cannot satisfy gets a reason in `infeasible` and is skipped.
"""

from __future__ import annotations

from typing import Any

from suite_omniear.data import AttributeAction, Check
from suite_omniear.sim import OmniSim
from suite_omniear.sim.commands import ALIASES
from suite_omniear.sim.verifier import COOP_KEY, condition_holds
from suite_omniear.sim.world import Agent, Obj

DONE = "DONE"
_MISSING = object()


class Infeasible(Exception):
    """A check the planner cannot satisfy; the message says why."""


class OraclePlanner:
    """Plans the next commands for every agent of one simulator (call `next_commands` once per step)."""

    def __init__(self, sim: OmniSim) -> None:
        self.sim = sim
        self.world = sim.world
        self.ids = list(sim.agent_ids)
        self.infeasible: dict[int, str] = {}
        self.notes: list[str] = []

    # --- public --------------------------------------------------------------------------------------
    def next_commands(self) -> dict[str, str]:
        """The next command per agent id."""
        if self.sim.task_success:
            return self._all(DONE)
        passed = set(self.sim.checks_passed())
        for index, check in enumerate(self.sim.task.checks):
            if index in passed or index in self.infeasible:
                continue
            try:
                commands = self._plan_check(check)
            except Infeasible as exc:
                self.infeasible[index] = str(exc)
                continue
            if commands is not None:
                return commands
        return self._all(DONE)

    # --- command shapes ------------------------------------------------------------------------------
    def _all(self, command: str) -> dict[str, str]:
        return dict.fromkeys(self.ids, command)

    def _solo(self, agent: Agent, command: str) -> dict[str, str]:
        commands = self._all(DONE)
        commands[agent.id] = command
        return commands

    def _note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    # --- world queries -------------------------------------------------------------------------------
    def _object(self, obj_id: str) -> Obj:
        obj = self.world.objects.get(obj_id)
        if obj is None:
            raise Infeasible(f"{obj_id} is not in the scene")
        return obj

    def _carry_weight(self, obj: Obj) -> Any:
        return self.world.total_weight(obj) if obj.children else obj.weight

    def _can_hold(self, agent: Agent, obj: Obj) -> bool:
        """Whether the agent could grab the object with empty hands, after taking out its contents."""
        if agent.max_grasp_limit < 1 or obj.type not in ("ITEM", "GRABBABLE", "FURNITURE"):
            return False
        if obj.weight > agent.max_weight:
            return False
        return all(self.world.objects[c].weight <= agent.max_weight for c in obj.children)

    def _verbs(self, attribute: str, value: Any) -> list[AttributeAction]:
        """Scene verbs that flip `attribute` away from `value` (no-tool verbs first)."""
        table = self.world.table
        rows = [r for a in dict.fromkeys(self.world.scene_abilities)
                if (r := table.get(a)) is not None and r.attribute == attribute and r.value == value]
        return sorted(rows, key=lambda r: r.requires_tool)

    # --- agent-level steps (each returns a command or None when already done) ------------------------
    def _reach_room(self, agent: Agent, room: str) -> str | None:
        return None if agent.location == room else f"GOTO {room}"

    def _reach(self, agent: Agent, obj_id: str) -> str | None:
        """Stand in the object's room with the object discovered (explore first)."""
        obj = self.world.objects[obj_id]
        if obj.parent == agent.id:
            return None
        room = self.world.room_of(obj_id)
        return self._reach_room(agent, room) or (None if obj.discovered else "EXPLORE")

    def _open_parent(self, agent: Agent, obj: Obj) -> str | None:
        """Open the closed container the object sits in, if any."""
        parent = self.world.objects.get(obj.parent) if obj.rel == "in" else None
        if parent is None or parent.states.get("is_open") is not False:
            return None
        verbs = [v for v in self._verbs("is_open", False) if not v.requires_tool or v.name in agent.sources]
        if not verbs:
            raise Infeasible(f"{obj.id} is in the closed {parent.id} and no verb here opens it")
        return self._reach(agent, parent.id) or self._verb_command(verbs[0], [agent], parent.id)

    def _free_hands(self, agent: Agent, obj: Obj, keep: frozenset[str]) -> str | None:
        """Put down something not needed when the grasp or weight limit would refuse the object."""
        weight = self._carry_weight(obj)
        full = len(agent.inventory) + 1 > agent.max_grasp_limit
        heavy = agent.current_weight + weight > agent.max_weight
        if not (full or heavy):
            return None
        spare = [i for i in agent.inventory if i not in keep]
        if not spare:
            raise Infeasible(f"{agent.id} cannot also hold {obj.id}")
        return f"PLACE {spare[0]} in {agent.location}"

    def _acquire(self, agent: Agent, obj_id: str, keep: frozenset[str] = frozenset()) -> str | None:
        """Next command towards holding the object (None when held)."""
        obj = self.world.objects[obj_id]
        if obj.parent == agent.id:
            return None
        if not obj.rel:
            raise Infeasible(f"{obj_id} is held by another agent")
        if agent.max_grasp_limit < 1:
            raise Infeasible(f"{agent.id} max_grasp_limit={agent.max_grasp_limit}: it cannot hold anything")
        if not self._can_hold(agent, obj):
            raise Infeasible(
                f"{agent.id} cannot lift {obj_id} ({self._carry_weight(obj)} kg, type {obj.type})"
            )
        step = self._reach(agent, obj_id) or self._open_parent(agent, obj)
        if step is None and self._carry_weight(obj) > agent.max_weight:
            self._note(f"emptied {obj_id} to make it light enough")
            return self._acquire(agent, obj.children[0], keep)
        step = step or self._free_hands(agent, obj, keep)
        if step is not None:
            return step
        return f"GOTO {obj_id}" if obj_id not in agent.near else f"GRAB {obj_id}"

    def _tools(self, verb: str) -> list[Obj]:
        """Objects providing the verb, lightest first, in scene order otherwise."""
        objects = self.world.objects.values()
        return sorted(
            (o for o in objects if verb in (o.properties.get("provides_abilities") or ())),
            key=self._carry_weight,
        )

    def _assign_tools(self, agents: list[Agent], verb: str) -> dict[str, Obj | None] | None:
        """A distinct usable tool per agent lacking the ability (None when it has it); None if impossible."""
        assignment: dict[str, Obj | None] = {}
        taken: set[str] = set()
        for agent in agents:
            if verb in agent.sources:
                assignment[agent.id] = None
                continue
            choice = next(
                (
                    t
                    for t in self._tools(verb)
                    if t.id not in taken and self._can_hold(agent, t) and (t.rel or t.parent == agent.id)
                ),
                None,
            )
            if choice is None:
                return None
            taken.add(choice.id)
            assignment[agent.id] = choice
        return assignment

    def _verb_command(
        self, action: AttributeAction, agents: list[Agent], obj_id: str, coop: bool = False
    ) -> str:
        verb = action.name.upper()
        if coop or len(agents) > 1 or verb in ALIASES:
            if verb in ALIASES:
                self._note(
                    f"CORP_{verb} {','.join(a.id for a in agents)} {obj_id}: {verb} is an alias of "
                    f"{ALIASES[verb]}"
                )
            return f"CORP_{verb} {','.join(a.id for a in agents)} {obj_id}"
        return f"{verb} {obj_id}"

    # --- checks --------------------------------------------------------------------------------------
    def _plan_check(self, check: Check) -> dict[str, str] | None:
        self._object(check.object_id)
        coop = self.sim.verifier.cooperative
        for key, expected in check.conditions:
            if condition_holds(self.world, check.object_id, key, expected, coop):
                continue
            if key == "location_id":
                commands = self._plan_location(check.object_id, str(expected))
            else:
                commands = self._plan_attribute(check.object_id, key, expected)
            if commands is not None:
                return commands
        return None

    def _plan_attribute(self, obj_id: str, key: str, expected: Any) -> dict[str, str] | None:
        obj = self.world.objects[obj_id]
        coop_needed = self.sim.verifier.cooperative
        holds = key in obj.states and obj.states[key] == expected
        if holds and (not coop_needed or key in obj.states.get(COOP_KEY, ())):
            return None
        current = obj.states[key] if key in obj.states else obj.properties.get(key, _MISSING)
        if current is _MISSING:
            raise Infeasible(f"{obj_id} has no {key} attribute")
        final = current != expected
        verbs = self._verbs(key, current)
        if not verbs:
            raise Infeasible(f"no verb in the scene changes {key} from {current}")
        coop = final and coop_needed
        agents = [self.world.agents[i] for i in self.ids]
        for action in verbs:
            team = self._team(action, agents, coop)
            if team is not None:
                return self._apply(action, team, obj_id, coop)
        names = [v.name for v in verbs]
        raise Infeasible(
            f"no usable tool for {names}"
            if all(v.requires_tool for v in verbs)
            else f"no agent can apply {names}"
        )

    def _team(self, action: AttributeAction, agents: list[Agent], coop: bool) -> dict[str, Obj | None] | None:
        """The agents that apply the verb and the tool each still needs (both agents for cooperation)."""
        if not action.requires_tool:
            return {a.id: None for a in (agents if coop else agents[:1])}
        if coop and len(agents) > 1:
            both = self._assign_tools(agents, action.name)
            if both is not None:
                return both
        for agent in agents:
            one = self._assign_tools([agent], action.name)
            if one is not None:
                return one
        return None

    def _apply(
        self, action: AttributeAction, team: dict[str, Obj | None], obj_id: str, coop: bool
    ) -> dict[str, str]:
        members = [self.world.agents[i] for i in team]
        prep: dict[str, str] = {}
        for agent in members:
            tool = team[agent.id]
            keep = frozenset(t.id for t in team.values() if t is not None)
            step = self._acquire(agent, tool.id, keep) if tool is not None else None
            step = step or self._reach(agent, obj_id)
            if step is not None:
                prep[agent.id] = step
        if prep:
            commands = self._all(DONE)
            commands.update(prep)
            return self._dedupe(commands)
        if len(members) == 1 and len(self.ids) > 1 and coop:
            self._note(f"CORP_{action.name.upper()} {members[0].id} {obj_id}: one tool for two agents")
        command = self._verb_command(action, members, obj_id, coop)
        return self._all(command) if coop or len(members) > 1 else self._solo(members[0], command)

    def _dedupe(self, commands: dict[str, str]) -> dict[str, str]:
        """Two agents in one room do not both EXPLORE or apply the same verb in the same step."""
        if len(self.ids) < 2:
            return commands
        first, second = (self.world.agents[i] for i in self.ids[:2])
        c1, c2 = commands[first.id], commands[second.id]
        if c1 == c2 and first.location == second.location and not c1.startswith("GOTO"):
            commands[second.id] = DONE
        return commands

    def _plan_location(self, obj_id: str, expected: str) -> dict[str, str] | None:
        rel, _, target = expected.rpartition(":") if ":" in expected else ("", "", expected)
        if target == obj_id:
            raise Infeasible(f"the check asks {obj_id} to be located in/on itself ({expected})")
        world = self.world
        if target not in world.rooms and target not in world.objects:
            raise Infeasible(f"target {target} does not exist")
        in_room = target in world.rooms
        place_rel = rel or ("in" if in_room else "on")
        obj = world.objects[obj_id]
        agents = [world.agents[i] for i in self.ids]
        carried = [a for a in agents if a.corp_object == obj_id]
        if carried or (len(agents) > 1 and obj.weight > max(a.max_weight for a in agents)):
            return self._carry_together(obj, target, place_rel)
        if place_rel == "on" and in_room:
            raise Infeasible(f"PLACE cannot put {obj_id} on a room ({expected})")
        container = in_room or world.objects[target].properties.get("is_container") is True
        if place_rel == "in" and not container:
            raise Infeasible(f"{target} is not a container, so PLACE ... in {target} is refused")
        holder = next((a for a in agents if obj.parent == a.id), None)
        carrier = holder or next((a for a in agents if self._can_hold(a, obj)), None)
        if carrier is None:
            raise Infeasible(
                f"{obj_id}: no agent can grab it ({self._carry_weight(obj)} kg, grasp limits "
                f"{[a.max_grasp_limit for a in agents]}) and it is not heavy enough for CORP_GRAB"
            )
        step = self._acquire(carrier, obj_id) or self._place_step(carrier, obj_id, place_rel, target)
        return self._solo(carrier, step)

    def _place_step(self, agent: Agent, obj_id: str, rel: str, target: str) -> str:
        world = self.world
        if target in world.rooms:
            return self._reach_room(agent, target) or f"PLACE {obj_id} {rel} {target}"
        step = self._reach(agent, target)
        if step is None and target not in agent.near and target not in agent.inventory:
            step = f"GOTO {target}"
        return step or f"PLACE {obj_id} {rel} {target}"

    def _carry_together(self, obj: Obj, target: str, rel: str) -> dict[str, str]:
        world = self.world
        agents = [world.agents[i] for i in self.ids]
        team = ",".join(self.ids)
        if all(a.corp_object == obj.id for a in agents):
            room = target if target in world.rooms else world.room_of(target)
            if any(a.location != room for a in agents):
                return self._all(f"CORP_GOTO {team} {room}")
            return self._all(f"CORP_PLACE {team} {obj.id} {rel} {target}")
        prep = {a.id: step for a in agents if (step := self._reach(a, obj.id)) is not None}
        if prep:
            commands = self._all(DONE)
            commands.update(prep)
            return self._dedupe(commands)
        return self._all(f"CORP_GRAB {team} {obj.id}")


def run_oracle(sim: OmniSim) -> OraclePlanner:
    """Drive a simulator with the oracle until the episode ends (DONE or the step cap)."""
    planner = OraclePlanner(sim)
    while not sim.episode_over:
        sim.step(planner.next_commands())
    return planner
