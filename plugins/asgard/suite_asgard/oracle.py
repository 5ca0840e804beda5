"""The oracle: a deterministic solver with perfect knowledge of the scene, acting through the 12 actions.

Like the paper's plan generator (A.3) it reads the hidden state (what is dirty, where everything is, what
each instance-picking rule will choose) and emits one high-level command per turn through the same
environment step as every agent. Each task type has a short script built from a few skills (hold, place,
wash, slice, cook); when an action fails or a script ends with goals unmet it raises `OracleStuck` with the
reason, so `suite validate` lists exactly why a task was not solved.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

from suite.contract.env import Env
from suite.contract.records import Action, Observation, StepRecord, Task
from suite.engine.agents import PolicyAgent
from suite_household.catalog import TYPES, can_hold
from suite_household.rules import slice_where_the_harness_does
from suite_household.world import Obj

from suite_asgard.action_layer import SINK_SAFE
from suite_asgard.commands import Command
from suite_asgard.env import AsgardEnv
from suite_asgard.vocabulary import SERVING, SLICED_FORM, STORAGE

#: Surfaces the oracle puts things down on, in order of preference.
PUT_DOWN = ("CounterTop", "DiningTable", "SideTable", "CoffeeTable", "Desk", "Dresser", "Shelf", "TVStand")

Steps = Generator[Command, dict[str, Any], None]
Want = Callable[[Obj], bool]


class OracleStuck(RuntimeError):
    """The oracle cannot go on; the message says which action failed or which goals are left."""


class Oracle:
    """One episode's solver; called once per turn with the env (the PolicyAgent contract)."""

    def __init__(self) -> None:
        self._env: AsgardEnv | None = None
        self.steps: Steps | None = None

    @property
    def env(self) -> AsgardEnv:
        """The episode's env (kept on the first call)."""
        if self._env is None:
            raise OracleStuck("the oracle has no env yet: it keeps the one it is first called with")
        return self._env

    @env.setter
    def env(self, env: AsgardEnv) -> None:
        self._env = env

    def __call__(self, task: Task, env: Env, observation: Observation, history: list[StepRecord]) -> Action:
        """The next command."""
        if not isinstance(env, AsgardEnv):  # the PolicyAgent contract hands any Env; this oracle reads AsgardEnv's
            raise TypeError(f"the asgard oracle runs on an AsgardEnv, not {type(env).__name__}")
        try:
            if self.steps is None:
                self.env = env
                self.steps = self.solve()
                command = next(self.steps)
            else:
                command = self.steps.send(history[-1].info)
        except StopIteration:
            raise OracleStuck(f"script ended with goals unmet: {', '.join(env.unmet_goals())}") from None
        return Action(value=command, text=command.text or "")

    # -- state -----------------------------------------------------------------------------------------------
    @property
    def world(self) -> Any:
        """The live world."""
        return self.env.world

    def one(self, otype: str) -> Obj | None:
        """The first object of a type (task objects are unique per type)."""
        found = self.env.layer.instances(otype)
        return found[0] if found else None

    def required(self, otype: str) -> Obj:
        """The first object of a type the script needs; OracleStuck when the scene has none."""
        obj = self.one(otype)
        if obj is None:
            raise OracleStuck(f"the scene has no {otype}")
        return obj

    def holding(self) -> Obj:
        """The held object; OracleStuck when the hand is empty."""
        held = self.env.layer.held()
        if held is None:
            raise OracleStuck("the hand is empty")
        return held

    def held_type(self) -> str | None:
        """The type of the held object."""
        held = self.env.layer.held()
        return held.type if held else None

    def present(self, otype: str) -> bool:
        """Whether the scene has an object of the type."""
        return bool(self.env.layer.instances(otype))

    def in_reach(self, otype: str) -> bool:
        """Whether an instance of the type is in view and within reach."""
        return bool(self.env.layer.reachable_instances(otype))

    def parent_type(self, obj: Obj) -> str | None:
        """The type of what an object rests in or on."""
        return self.world.objects[obj.parent].type if obj.parent else None

    def serving_container(self, obj: Obj) -> Obj | None:
        """The dish, pan, pot or toaster an object is in, if any."""
        return next((self.world.objects[a] for a in self.world.ancestors(obj.id)
                     if self.world.objects[a].type in SERVING), None)

    def loose(self, obj: Obj) -> bool:
        """Not inside a dish, pan, pot or toaster."""
        return not any(self.world.objects[a].type in SERVING for a in self.world.ancestors(obj.id))

    # -- skills ----------------------------------------------------------------------------------------------
    def act(self, action: str, obj: str) -> Steps:
        """One command; any failure stops the oracle with the environment's message."""
        info = yield Command.valid(action, obj)
        if not info["success"]:
            raise OracleStuck(f"{action} {obj} failed ({info['category']}): {info['message']}")

    def find(self, otype: str) -> Steps:
        """FIND unless an instance is already in reach."""
        if not self.in_reach(otype):
            yield from self.act("FIND", otype)

    def hold(self, otype: str, want: Want | None = None) -> Steps:
        """Have an object of the type in hand (one that `want` accepts), putting down what is held."""
        if self.held_type() == otype:
            return
        if self.held_type() is not None:
            yield from self.put_down()
        layer = self.env.layer
        pick = layer.reachable_instances(otype)
        closed = None
        if not pick or (want is not None and not want(pick[0])):
            wanted = [o for o in layer.instances(otype) if want is None or want(o)]
            holder = self.serving_container(wanted[0]) if wanted else None
            yield from self.act("FIND", holder.type if holder is not None else otype)
            chosen = self.world.objects.get(layer.facing)
            closed = layer.closed_container(chosen) if chosen is not None else None
        if closed is not None:
            yield from self.act("OPEN", closed.type)
            yield from self.act("PICKUP", otype)
            yield from self.act("CLOSE", closed.type)
        else:
            yield from self.act("PICKUP", otype)
        if want is not None:
            held = self.holding()
            if not want(held):
                raise OracleStuck(f"picked up the wrong {otype} ({held.name})")

    def put_down(self, avoid: frozenset[str] = frozenset()) -> Steps:
        """Put the held object on a free surface, never into the sink or on an avoided type."""
        held = self.holding()
        options = [s for s in PUT_DOWN if s not in avoid and self.present(s) and can_hold(s, held.type)]
        if not options:
            raise OracleStuck(f"nowhere to put the {held.type} down")
        for surface in options:
            if any(self.env.layer.fits(o, held) for o in self.env.layer.reachable_instances(surface)):
                yield from self.act("PUT", surface)
                return
        yield from self.act("FIND", options[0])
        yield from self.act("PUT", options[0])

    def place(self, otype: str, rtype: str, want: Want | None = None) -> Steps:
        """Put an object of the type in or on a receptacle type (opening and closing it as needed)."""
        yield from self.hold(otype, want)
        held = self.holding()
        layer = self.env.layer
        fitting = [o for o in layer.reachable_instances(rtype) if layer.fits(layer.basin(o), held)]
        if TYPES[rtype].openable:
            if not any(o.is_open for o in fitting):
                if not fitting or not any(not o.is_open for o in fitting):
                    yield from self.act("FIND", rtype)
                yield from self.act("OPEN", rtype)
            yield from self.act("PUT", rtype)
            if rtype != "Microwave":
                yield from self.act("CLOSE", rtype)
            return
        if not fitting:
            yield from self.act("FIND", rtype)
        yield from self.act("PUT", rtype)

    def clear_basin(self, item: str) -> Steps:
        """Take out of the sink what would block the Faucet (the DishSponge is taken in hand later), and the
        dishes too while the item to wash would not fit (or when the simulator cannot tell before a PUT)."""
        basin = self.required("SinkBasin")
        obj = self.required(item)
        while True:
            inside = [self.world.objects[c] for c in self.world.children(basin.id) if c != obj.id]
            blocking = [o for o in inside if o.type not in SINK_SAFE]
            no_room = not self.env.sim.exact_room or not self.env.layer.fits(basin, obj)
            if not blocking and obj.parent != basin.id and no_room:
                blocking = [o for o in inside if o.type != "DishSponge"]
            if not blocking:
                return
            item = blocking[0].type
            if not self.in_reach(item):
                yield from self.act("FIND", "SinkBasin")
            yield from self.hold(item)
            yield from self.put_down(frozenset({"SinkBasin"}))

    def wash(self, otype: str) -> Steps:
        """Clean a dirty object in the sink: clear the basin, put it in, sponge, faucet on, CLEAN, faucet off."""
        obj = self.one(otype)
        if obj is None or not obj.is_dirty:
            return
        yield from self.clear_basin(otype)
        if self.parent_type(obj) != "SinkBasin":
            yield from self.place(otype, "SinkBasin")
        yield from self.hold("DishSponge")
        if not (self.in_reach("Faucet") and self.in_reach(otype)):
            yield from self.act("FIND", "SinkBasin")
        if not self.in_reach("Faucet"):
            yield from self.act("FIND", "Faucet")
        yield from self.act("TOGGLE_ON", "Faucet")
        yield from self.act("CLEAN", otype)
        yield from self.act("TOGGLE_OFF", "Faucet")

    def slice(self, otype: str) -> Steps:
        """SLICE a whole food item with the Knife (cracking an Egg needs no knife), then free the hand; food that
        lies where the harness does not slice it (on a Plate, in a container, on a low shelf) goes on a counter."""
        food = self.one(otype)
        if food is not None and slice_where_the_harness_does(self.env.world, "SliceObject", food, {}) is not None:
            yield from self.place(otype, "CounterTop")
        if otype != "Egg":
            yield from self.hold("Knife")
        yield from self.find(otype)
        yield from self.act("SLICE", otype)
        if self.held_type() is not None:
            yield from self.put_down()

    def on_burner(self, otype: str) -> Steps:
        """Have the Pan on a StoveBurner."""
        obj = self.required(otype)
        if self.parent_type(obj) != "StoveBurner":
            yield from self.place(otype, "StoveBurner")

    def cook_on_stove(self) -> Steps:
        """Switch the burner under the Pan on and off."""
        yield from self.find("StoveBurner")
        yield from self.act("TOGGLE_ON", "StoveBurner")
        yield from self.act("TOGGLE_OFF", "StoveBurner")

    def brew(self) -> Steps:
        """Fill the Mug with coffee at the CoffeeMachine (leaves the Mug in the machine): it must be clean and empty."""
        mug = self.required("Mug")
        if mug.fill == "coffee":
            return
        yield from self.wash("Mug")
        mug = self.required("Mug")
        if mug.fill is not None:
            yield from self.hold("Mug")
            yield from self.act("EMPTY", "Mug")
        yield from self.place("Mug", "CoffeeMachine")
        yield from self.act("TOGGLE_ON", "CoffeeMachine")
        yield from self.act("TOGGLE_OFF", "CoffeeMachine")

    def toast(self) -> Steps:
        """Slice the Bread and toast one slice (leaves the toasted slice in the Toaster)."""
        if self.present("Bread"):
            yield from self.slice("Bread")
        if not any(o.is_cooked for o in self.env.layer.instances("BreadSliced")):
            yield from self.place("BreadSliced", "Toaster", self.loose)
            yield from self.act("TOGGLE_ON", "Toaster")
            yield from self.act("TOGGLE_OFF", "Toaster")

    def cleanup(self) -> Steps:
        """Leave the kitchen as the shared goals want it: appliances off, Fridge and Microwave closed."""
        for goal in self.env.plan.goals.state:
            if goal.value or goal.state not in ("isOpen", "isToggled"):
                continue
            otype = "StoveBurner" if goal.object_type == "StoveKnob" else goal.object_type
            for obj in self.env.layer.instances(otype):
                if getattr(obj, "is_open" if goal.state == "isOpen" else "is_toggled"):
                    yield from self.find(otype)
                    yield from self.act("CLOSE" if goal.state == "isOpen" else "TOGGLE_OFF", otype)

    # -- task scripts ----------------------------------------------------------------------------------------
    def solve(self) -> Steps:
        """The script of the plan's task type, then the clean-up."""
        script = getattr(self, f"_{self.env.plan.task_type}")
        yield from script()
        yield from self.cleanup()

    def _coffee(self) -> Steps:
        yield from self.brew()
        yield from self.hold("Mug")
        yield from self.act("DRINK", "Mug")
        yield from self.wash("Mug")
        if self.required("Mug").fill is not None:  # AI2-THOR's faucet fills what it washes
            yield from self.hold("Mug")
            yield from self.act("EMPTY", "Mug")
        yield from self.place("Mug", "Cabinet")

    def _microwave_potato(self) -> Steps:
        yield from self.wash("Bowl")
        yield from self.place("Potato", "Microwave")
        yield from self.act("CLOSE", "Microwave")
        yield from self.act("TOGGLE_ON", "Microwave")
        yield from self.act("TOGGLE_OFF", "Microwave")
        yield from self.act("OPEN", "Microwave")
        yield from self.act("PICKUP", "Potato")
        yield from self.act("CLOSE", "Microwave")
        yield from self.place("Potato", "Bowl")

    def _cook_egg(self) -> Steps:
        yield from self.wash("Plate")
        yield from self.wash("Pan")
        yield from self.on_burner("Pan")
        yield from self.place("Egg", "Pan")
        yield from self.slice("Egg")
        yield from self.cook_on_stove()
        yield from self.place("EggCracked", "Plate")

    def _toast(self) -> Steps:
        yield from self.wash("Plate")
        yield from self.toast()
        yield from self.place("BreadSliced", "Plate", lambda o: o.is_cooked)

    def _fry_potato_slice(self) -> Steps:
        yield from self.wash("Plate")
        yield from self.wash("Pan")
        yield from self.on_burner("Pan")
        yield from self.slice("Potato")
        yield from self.place("PotatoSliced", "Pan", self.loose)
        yield from self.cook_on_stove()
        yield from self.place("PotatoSliced", "Plate", lambda o: o.is_cooked)

    def _putaway(self) -> Steps:
        for otype in self.env.plan.goals.put_away:
            yield from self.wash(otype)
            obj = self.required(otype)
            homes = STORAGE[otype]
            if not any(self.world.objects[a].type in homes for a in self.world.ancestors(obj.id)):
                roomy = [h for h in homes if any(self.env.layer.fits(r, obj) for r in self.env.layer.instances(h))]
                yield from self.place(otype, (roomy or homes)[0])

    _putaway_food = _putaway_dishes = _putaway_silverware = _putaway

    def _slice_and_distribute(self) -> Steps:
        goals = self.env.plan.goals.location
        for goal in goals:
            yield from self.wash(goal.destination_type)
        piece = goals[0].object_type
        whole = next(w for w, p in SLICED_FORM.items() if p == piece)
        yield from self.slice(whole)
        for goal in goals:
            yield from self.place(piece, goal.destination_type, self.loose)

    def _set_table(self) -> Steps:
        table = self.required("DiningTable")
        keep = {"Mug", "Plate"}
        while True:
            clutter = [self.world.objects[c] for c in self.world.children(table.id)
                       if TYPES[self.world.objects[c].type].pickupable and self.world.objects[c].type not in keep]
            if not clutter:
                break
            yield from self.hold(clutter[0].type)
            yield from self.put_down(frozenset({"DiningTable"}))
        yield from self.wash("Mug")
        yield from self.brew()
        yield from self.place("Mug", "DiningTable")
        yield from self.wash("Plate")
        if self.parent_type(self.required("Plate")) != "DiningTable":
            yield from self.place("Plate", "DiningTable")
        yield from self.toast()
        yield from self.place("BreadSliced", "Plate", lambda o: o.is_cooked)

    def _clean_mirror(self) -> Steps:
        yield from self.hold("SprayBottle")
        yield from self.find("Mirror")
        yield from self.act("SPRAY", "Mirror")
        yield from self.hold("Cloth")
        yield from self.find("Mirror")
        yield from self.act("CLEAN", "Mirror")

    def _turn_on_tv(self) -> Steps:
        yield from self.hold("RemoteControl")
        yield from self.find("Television")
        yield from self.act("TOGGLE_ON", "Television")


class OracleAgent(PolicyAgent):
    """The oracle as an agent: a fresh solver per episode; it never looks at images, so none are rendered."""

    def __init__(self) -> None:
        super().__init__(Oracle())

    async def begin(self, task: Task, env: Any) -> None:
        """Keep the env and stop its rendering."""
        env.skip_images()
        await super().begin(task, env)
