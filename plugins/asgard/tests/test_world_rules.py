"""Each world rule: a refused case (its category and detailed-feedback message) and an allowed case."""

from __future__ import annotations

from suite_asgard.commands import Command
from suite_asgard.scene_setup import move_into
from suite_asgard.world_rules import (
    HOLDING,
    INCOMPATIBILITY,
    INVALID_ACTION,
    INVALID_OBJECT,
    UNDOABLE,
    UNPARSABLE,
    VISIBILITY,
)

from .conftest import env_for, grab, ok, one, turn

KITCHEN = "distribute__Tomato_Plate_Pot_Pan_FloorPlan26"


def refused(env, text: str, category: str, message: str) -> None:
    info = turn(env, text)
    assert not info["success"] and info["kind"] == UNDOABLE, info
    assert (info["category"], info["message"]) == (category, message)
    assert info["feedback"] == f"{text} Failure: {message}"


def put_in_sink(env, otype: str) -> None:
    grab(env, otype)
    ok(env, "FIND SinkBasin", "PUT SinkBasin")


def test_pickup_holds_one_object_at_a_time() -> None:
    env = env_for(KITCHEN)
    ok(env, "FIND Tomato", "PICKUP Tomato")
    refused(env, "PICKUP Tomato", HOLDING, "You are already holding the Tomato.")
    refused(env, "PICKUP Knife", HOLDING, "Cannot pick up Knife while holding Tomato; PUT the Tomato down first.")
    ok(env, "PUT CounterTop", "FIND Knife", "PICKUP Knife")


def test_pickup_needs_the_object_in_view() -> None:
    env = env_for(KITCHEN)
    ok(env, "FIND Fridge")
    refused(env, "PICKUP Apple", VISIBILITY, "Cannot pick up Apple as it is not visible.")
    ok(env, "FIND Apple", "PICKUP Apple")
    refused(env, "PICKUP Fridge", INCOMPATIBILITY, "Fridge cannot be picked up.")


def test_find_places_the_agent_before_the_object_or_its_closed_container() -> None:
    env = env_for(KITCHEN)
    refused(env, "FIND AppleSliced", VISIBILITY, "There is no AppleSliced to be found.")
    ok(env, "FIND Egg")
    egg = one(env, "Egg")
    assert egg.id in env.layer.in_reach()
    grab(env, "Egg")
    ok(env, "FIND Fridge", "OPEN Fridge", "PUT Fridge", "CLOSE Fridge", "FIND Plate", "FIND Egg")
    fridge = one(env, "Fridge")
    assert env.layer.facing == egg.id and fridge.id in env.layer.in_reach() and egg.id not in env.layer.in_reach()


def test_put_needs_a_held_object_a_fitting_open_clean_container() -> None:
    env = env_for(KITCHEN)
    ok(env, "FIND Plate")
    refused(env, "PUT Plate", HOLDING, "You are not holding anything to PUT in the Plate.")
    grab(env, "Tomato")
    refused(env, "PUT Toaster", INCOMPATIBILITY, "The Tomato cannot be put in or on the Toaster.")
    ok(env, "FIND Fridge")
    refused(env, "PUT Fridge", INCOMPATIBILITY, "The Fridge is closed; OPEN it before you PUT something in it.")
    ok(env, "FIND Plate")
    env.world.set(one(env, "Plate").id, is_dirty=True)
    refused(env, "PUT Plate", INCOMPATIBILITY, "The Plate is dirty; it must be clean before you PUT anything in it.")
    env.world.set(one(env, "Plate").id, is_dirty=False)
    ok(env, "PUT Plate")
    assert one(env, "Tomato").parent == one(env, "Plate").id


def test_put_cabinet_walks_to_another_cabinet_when_the_open_one_is_full() -> None:
    env = env_for(KITCHEN)
    grab(env, "Pot")
    ok(env, "FIND Cabinet", "OPEN Cabinet")
    world, first, pot = env.world, env.layer.facing, one(env, "Pot")
    fillers = sorted(o.id for o in world.objects.values() if o.type in ("Bowl", "Plate", "Cup", "Mug", "Kettle",
                                                                       "Pan", "Bread", "Lettuce", "SoapBottle"))
    for filler in fillers:
        if not env.layer.fits(world.objects[first], pot):
            break
        move_into(world, filler, first)
    assert not env.layer.fits(world.objects[first], pot)
    ok(env, "PUT Cabinet")
    home = world.objects[one(env, "Pot").parent]
    assert home.type == "Cabinet" and home.id != first and home.is_open and env.layer.facing == home.id
    ok(env, "CLOSE Cabinet")
    assert not world.objects[home.id].is_open


def test_slice_needs_the_knife_a_free_target_and_a_flat_surface() -> None:
    env = env_for(KITCHEN)
    refused(env, "SLICE Plate", INCOMPATIBILITY,
            "Plate cannot be sliced; only Apple, Bread, Egg, Lettuce, Potato, Tomato can.")
    ok(env, "FIND Tomato")
    refused(env, "SLICE Tomato", HOLDING, "You must be holding the Knife to SLICE the Tomato.")
    ok(env, "PICKUP Tomato")
    refused(env, "SLICE Tomato", HOLDING, "You cannot SLICE the Tomato while you are holding it.")
    ok(env, "FIND Pot", "PUT Pot")
    grab(env, "Knife")
    ok(env, "FIND Tomato")
    refused(env, "SLICE Tomato", INCOMPATIBILITY, SLICE_REFUSED)
    ok(env, "PUT CounterTop", "PICKUP Tomato", "PUT CounterTop")
    grab(env, "Knife")
    ok(env, "FIND Tomato", "SLICE Tomato")
    assert len(env.layer.instances("TomatoSliced")) == 5 and not env.layer.instances("Tomato")


SLICE_REFUSED = ("The Tomato must be on a CounterTop or another surface at least 0.52 m high (not on a Plate, in a "
                 "container or on a low shelf) to be sliced.")


def _slice_world(holder: str, base: float, food: str = "Tomato", on_plate: bool = False):
    from suite_household.world import Agent, Obj, Room, Scene, World

    def obj(oid: str, otype: str, y: float, parent: str | None = None) -> Obj:
        return Obj(id=oid, type=otype, name=oid, center=(0.0, y, 0.0), size=(0.1, 0.1, 0.1), parent=parent)

    objects = [obj("holder", holder, base - 0.05)]
    if on_plate:
        objects.append(obj("plate", "Plate", base - 0.005, parent="holder"))
    objects.append(obj("food", food, base + 0.05, parent="plate" if on_plate else "holder"))
    room = Room("r", "Kitchen", -1, -1, 4, 1)
    world = World(Scene("s", 0, (room,), (), (), tuple(objects), Agent(0.0, 0.5, 0.0, 0.0, True)))
    return world, world.objects["food"]


def test_the_harness_slices_food_only_on_a_surface_at_least_052_m_high() -> None:
    from suite_household.rules import slice_where_the_harness_does as rule

    def allowed(*args, **kwargs) -> bool:
        world, food = _slice_world(*args, **kwargs)
        return rule(world, "SliceObject", food, {}) is None

    assert allowed("CounterTop", 0.90) and allowed("DiningTable", 0.75) and allowed("Shelf", 0.52)
    assert not allowed("Shelf", 0.51) and not allowed("CounterTop", 0.30)  # a low shelf, a counter lowered
    assert not allowed("CounterTop", 0.90, on_plate=True)  # a Plate is not a surface: not "on a countertop"
    assert not allowed("CoffeeTable", 0.60) and not allowed("Fridge", 0.90)  # not the harness's surface types
    assert allowed("Floor", 0.90) and not allowed("Floor", 0.0)
    assert allowed("Fridge", 0.10, food="Egg")  # an Egg is cracked anywhere


def test_slice_on_a_plate_is_refused_and_allowed_once_on_the_counter() -> None:
    env = env_for(KITCHEN)
    ok(env, "FIND Plate", "PICKUP Plate", "FIND CounterTop", "PUT CounterTop", "FIND Tomato", "PICKUP Tomato",
       "FIND Plate", "PUT Plate")
    grab(env, "Knife")
    ok(env, "FIND Tomato")
    refused(env, "SLICE Tomato", INCOMPATIBILITY, SLICE_REFUSED)
    ok(env, "PUT CounterTop", "PICKUP Tomato", "PUT CounterTop")
    grab(env, "Knife")
    ok(env, "FIND Tomato", "SLICE Tomato")


def test_an_egg_is_cracked_without_a_knife_wherever_it_lies() -> None:
    # the harness checks no Pan (its prompt still says to put the Egg in one first)
    env = env_for(KITCHEN)
    egg = one(env, "Egg")
    parent = egg.parent
    ok(env, "FIND Egg", "SLICE Egg")
    cracked = one(env, "EggCracked")
    assert cracked.parent == parent and env.world.objects[parent].type != "Pan"


def test_a_butterknife_slices_like_a_knife() -> None:
    env = env_for(KITCHEN)
    grab(env, "ButterKnife")
    ok(env, "FIND Tomato", "SLICE Tomato")
    assert env.layer.instances("TomatoSliced") and not env.layer.instances("Tomato")


def test_a_sliced_whole_is_known_as_already_sliced() -> None:
    env = env_for(KITCHEN)
    grab(env, "Knife")
    ok(env, "FIND Tomato", "SLICE Tomato")
    refused(env, "SLICE Tomato", INCOMPATIBILITY, "The Tomato is already sliced.")
    info = turn(env, "FIND Tomato")  # the harness: an invalid-object turn ("Object is already sliced")
    assert not info["success"] and info["kind"] == INVALID_OBJECT and info["category"] is None
    assert info["message"] == "The Tomato is already sliced; look for its pieces (TomatoSliced)."
    ok(env, "FIND TomatoSliced", "PUT CounterTop")
    refused(env, "PICKUP Tomato", VISIBILITY, "Cannot pick up Tomato as it is not visible.")


def test_the_coffee_machine_needs_a_clean_empty_mug() -> None:
    env = env_for(KITCHEN)
    ok(env, "FIND CoffeeMachine")
    refused(env, "TOGGLE_ON CoffeeMachine", INCOMPATIBILITY, "The CoffeeMachine holds no Mug; it makes coffee only "
                                                             "into a clean, empty Mug.")
    mug = one(env, "Mug")
    env.world.set(mug.id, is_dirty=True, fill="coffee")
    grab(env, "Mug")
    ok(env, "FIND CoffeeMachine", "PUT CoffeeMachine")
    refused(env, "TOGGLE_ON CoffeeMachine", INCOMPATIBILITY, "The Mug in the CoffeeMachine is not empty; it makes "
                                                             "coffee only into a clean, empty Mug.")
    env.world.set(mug.id, fill=None)
    refused(env, "TOGGLE_ON CoffeeMachine", INCOMPATIBILITY, "The Mug in the CoffeeMachine is dirty; it makes coffee "
                                                             "only into a clean, empty Mug.")
    env.world.set(mug.id, is_dirty=False)
    ok(env, "TOGGLE_ON CoffeeMachine", "TOGGLE_OFF CoffeeMachine")
    assert one(env, "Mug").fill == "coffee"


def test_the_stove_cooks_only_a_pan_on_a_burner() -> None:
    env = env_for(KITCHEN)
    ok(env, "FIND StoveBurner")
    refused(env, "TOGGLE_ON StoveBurner", INCOMPATIBILITY,
            "A Pan must be on the StoveBurner before you TOGGLE_ON the StoveBurner.")
    grab(env, "Egg")
    ok(env, "FIND Pan", "PUT Pan", "SLICE Egg", "PICKUP Pan", "FIND StoveBurner", "PUT StoveBurner",
       "TOGGLE_ON StoveBurner")
    assert one(env, "EggCracked").is_cooked
    assert any(k.is_toggled for k in env.layer.instances("StoveKnob"))
    refused(env, "TOGGLE_ON StoveBurner", INCOMPATIBILITY, "The StoveBurner is already on.")
    ok(env, "TOGGLE_OFF StoveBurner")
    assert not any(k.is_toggled for k in env.layer.instances("StoveKnob"))


def test_the_microwave_is_closed_to_switch_on_and_off_to_open() -> None:
    env = env_for(KITCHEN)
    grab(env, "Potato")
    ok(env, "FIND Microwave", "OPEN Microwave", "PUT Microwave")
    refused(env, "TOGGLE_ON Microwave", INCOMPATIBILITY, "The Microwave is open; CLOSE it before you TOGGLE_ON it.")
    ok(env, "CLOSE Microwave", "TOGGLE_ON Microwave")
    assert one(env, "Potato").is_cooked
    refused(env, "OPEN Microwave", INCOMPATIBILITY, "The Microwave is on; TOGGLE_OFF it before you OPEN it.")
    ok(env, "TOGGLE_OFF Microwave", "OPEN Microwave", "PICKUP Potato", "CLOSE Microwave")
    refused(env, "CLOSE Microwave", INCOMPATIBILITY, "The Microwave is already closed.")


def test_toaster_toasts_and_coffee_machine_fills() -> None:
    env = env_for(KITCHEN)
    grab(env, "Knife")
    ok(env, "FIND Bread", "SLICE Bread", "PUT DiningTable", "PICKUP BreadSliced", "FIND Toaster", "PUT Toaster",
       "TOGGLE_ON Toaster", "TOGGLE_OFF Toaster")
    assert sum(s.is_cooked for s in env.layer.instances("BreadSliced")) == 1
    grab(env, "Mug")
    ok(env, "FIND CoffeeMachine", "PUT CoffeeMachine", "TOGGLE_ON CoffeeMachine", "TOGGLE_OFF CoffeeMachine")
    assert one(env, "Mug").fill == "coffee"


def test_a_cup_in_the_coffee_machine_makes_no_coffee() -> None:
    env = env_for(KITCHEN)  # our catalog lets no Cup in; on AI2-THOR one may be there
    assert move_into(env.world, one(env, "Cup").id, one(env, "CoffeeMachine").id)
    ok(env, "FIND CoffeeMachine")
    refused(env, "TOGGLE_ON CoffeeMachine", INCOMPATIBILITY, "The CoffeeMachine holds a Cup, not a Mug; it makes "
                                                             "coffee only into a clean, empty Mug.")


def test_the_faucet_runs_only_over_dishes_and_cleaning_needs_sponge_water_and_sink() -> None:
    env = env_for(KITCHEN)
    mug = one(env, "Mug")
    env.world.set(mug.id, is_dirty=True)
    ok(env, "FIND Mug")
    refused(env, "CLEAN Mug", HOLDING, "You must be holding the DishSponge to CLEAN the Mug.")
    grab(env, "DishSponge")
    ok(env, "FIND Mug")
    refused(env, "CLEAN Mug", INCOMPATIBILITY, "The Mug has to be in the SinkBasin to be cleaned.")
    ok(env, "PUT CounterTop")
    put_in_sink(env, "Mug")
    grab(env, "Tomato")
    ok(env, "FIND SinkBasin", "PUT SinkBasin")
    refused(env, "TOGGLE_ON Faucet", INCOMPATIBILITY, "The Faucet cannot run while the SinkBasin holds Tomato; "
                                                      "only dishes, cookware and the DishSponge may be in it.")
    ok(env, "PICKUP Tomato", "PUT CounterTop")
    grab(env, "DishSponge")
    ok(env, "FIND SinkBasin")
    refused(env, "CLEAN Mug", INCOMPATIBILITY, "The Faucet must be running to CLEAN the Mug.")
    ok(env, "TOGGLE_ON Faucet", "CLEAN Mug")
    assert not one(env, "Mug").is_dirty
    ok(env, "CLEAN Mug", "TOGGLE_OFF Faucet")  # scrubbing a clean Mug again is allowed and changes nothing


def test_a_dish_sponge_in_the_basin_does_not_block_the_faucet() -> None:
    env = env_for(KITCHEN)
    put_in_sink(env, "DishSponge")
    ok(env, "TOGGLE_ON Faucet")
    assert one(env, "Faucet").is_toggled


def test_water_is_poured_out_of_dishes_in_reach_after_a_toggle_off() -> None:
    env = env_for(KITCHEN)
    world = env.world
    world.set(one(env, "Mug").id, fill="water")
    world.set(one(env, "Pot").id, fill="water")
    world.set(one(env, "Cup").id, fill="coffee")
    put_in_sink(env, "Bowl")
    ok(env, "TOGGLE_ON Faucet")
    assert one(env, "Mug").fill == "water" and one(env, "Bowl").fill == "water"  # the faucet filled the Bowl
    reach = env.layer.in_reach()
    assert one(env, "Bowl").id in reach and one(env, "Pot").id not in reach
    ok(env, "TOGGLE_OFF Faucet")
    # the harness pours unforced: AI2-THOR refuses the Pot out of view, and coffee stays
    assert (one(env, "Bowl").fill, one(env, "Pot").fill, one(env, "Cup").fill) == (None, "water", "coffee")


def test_a_running_faucet_washes_and_fills_what_is_in_the_basin_as_ai2thors_does() -> None:
    env = env_for(KITCHEN)
    mug = one(env, "Mug")
    env.world.set(mug.id, is_dirty=True)
    put_in_sink(env, "Mug")
    ok(env, "TOGGLE_ON Faucet")
    assert (one(env, "Mug").is_dirty, one(env, "Mug").fill) == (False, "water")
    grab(env, "DishSponge")
    ok(env, "FIND SinkBasin", "CLEAN Mug")  # the harness's CLEAN succeeds on what the water already washed
    ok(env, "PUT CounterTop", "FIND SinkBasin", "PICKUP Mug")
    env.world.set(one(env, "Mug").id, is_dirty=True, fill=None)
    ok(env, "FIND SinkBasin", "PUT SinkBasin")  # a dish put under the running faucet is washed too
    assert (one(env, "Mug").is_dirty, one(env, "Mug").fill) == (False, "water")
    ok(env, "TOGGLE_OFF Faucet")
    assert (one(env, "Mug").is_dirty, one(env, "Mug").fill) == (False, None)


def test_drink_needs_a_held_filled_container_and_leaves_it_dirty() -> None:
    env = env_for(KITCHEN)
    mug = one(env, "Mug")
    ok(env, "FIND Mug")
    refused(env, "DRINK Mug", HOLDING, "You must be holding the Mug to DRINK from it.")
    ok(env, "PICKUP Mug")
    refused(env, "DRINK Mug", INCOMPATIBILITY, "The Mug is empty; there is nothing to drink.")
    env.world.set(mug.id, fill="coffee")
    ok(env, "DRINK Mug")
    assert one(env, "Mug").fill is None and one(env, "Mug").is_dirty and env.flags().drank_coffee


def test_empty_pours_out_liquid_only() -> None:
    env = env_for(KITCHEN)
    ok(env, "FIND Mug")
    refused(env, "EMPTY Mug", INCOMPATIBILITY, "The Mug holds no liquid to pour out.")
    refused(env, "EMPTY Knife", INCOMPATIBILITY, "The Knife cannot hold liquid.")
    env.world.set(one(env, "Mug").id, fill="coffee")
    ok(env, "EMPTY Mug")
    assert one(env, "Mug").fill is None


def test_the_mirror_is_sprayed_then_cleaned_with_the_cloth() -> None:
    env = env_for("clean_mirror__")
    ok(env, "FIND Mirror")
    refused(env, "SPRAY Mirror", HOLDING, "You must be holding the SprayBottle to SPRAY the Mirror.")
    grab(env, "Cloth")
    ok(env, "FIND Mirror")
    refused(env, "CLEAN Mirror", INCOMPATIBILITY, "SPRAY the Mirror with the SprayBottle before you CLEAN it.")
    ok(env, "PUT CounterTop")
    grab(env, "SprayBottle")
    ok(env, "FIND Mirror")
    refused(env, "CLEAN Mirror", HOLDING, "You must be holding the Cloth to CLEAN the Mirror.")
    refused(env, "SPRAY Toilet", INCOMPATIBILITY, "Toilet is not something to spray; only the Mirror is.")
    ok(env, "SPRAY Mirror", "PUT CounterTop")
    grab(env, "Cloth")
    ok(env, "FIND Mirror")
    info = turn(env, "CLEAN Mirror")
    assert info["success"] and info["done"] and info["end"] == "success"


def test_the_television_is_switched_with_the_remote() -> None:
    env = env_for("turn_on_tv__")
    ok(env, "FIND Television")
    refused(env, "TOGGLE_ON Television", HOLDING, "You must be holding the RemoteControl to turn the Television on.")
    grab(env, "RemoteControl")
    ok(env, "FIND Television")
    info = turn(env, "TOGGLE_ON Television")
    assert info["success"] and info["done"] and info["end"] == "success"


def test_turns_that_are_not_valid_actions_are_classified_and_change_nothing() -> None:
    env = env_for(KITCHEN)
    version = env.world.version
    cases = [(Command(INVALID_ACTION, "FLY", "Mug"), "FLY is not one of the available actions."),
             (Command(INVALID_OBJECT, "PICKUP", "Spaceship"), "Spaceship is not one of the available objects."),
             (Command.unparsable(), "The reply had no line of the form 'Action: ACTION OBJECT'.")]
    for command, message in cases:
        result = env.step(command)
        assert result.info["kind"] == command.kind and not result.info["success"]
        assert result.info["category"] is None and result.info["message"] == message
    assert env.world.version == version
    assert [t.kind for t in env.turns] == [INVALID_ACTION, INVALID_OBJECT, UNPARSABLE]


def test_the_oracle_moves_food_off_a_plate_before_it_slices() -> None:
    from suite_asgard.oracle import Oracle

    env = env_for(KITCHEN)
    ok(env, "FIND Plate", "PICKUP Plate", "FIND CounterTop", "PUT CounterTop", "FIND Tomato", "PICKUP Tomato",
       "FIND Plate", "PUT Plate")
    oracle = Oracle()
    oracle.env = env
    steps, sent, done = oracle.slice("Tomato"), None, []
    while True:
        try:
            command = steps.send(sent) if done else next(steps)
        except StopIteration:
            break
        done.append(command.text)
        sent = env.step(command).info
        assert sent["success"], (command.text, sent["message"])
    assert "SLICE Tomato" in done and done.index("PICKUP Tomato") < done.index("SLICE Tomato")
    assert env.layer.instances("TomatoSliced") and not env.layer.instances("Tomato")
