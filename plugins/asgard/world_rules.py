"""The simulator-side rules of AsgardBench's kitchen, and the words for why a turn failed.

The household simulator applies these on every low-level step (and `env.backend=ai2thor` checks the same
preconditions on AI2-THOR's metadata); the action layer checks every world rule itself first so that each
failure gets its category and a readable message.
"""

from __future__ import annotations

from suite_household.rules import (
    RuleSet,
    coffee_machine_fills,
    coffee_needs_clean_empty_mug,
    faucet_tolerates_sponge,
    heat_sources_cook,
    knife_to_slice,
    put_into_clean,
    slice_where_the_harness_does,
    stove_needs_pan,
    television_needs_remote,
)

#: Turn kinds (the paper's turn-failure taxonomy, plus valid turns).
VALID = "valid"
INVALID_ACTION = "invalid_action"
INVALID_OBJECT = "invalid_object"
UNDOABLE = "undoable"
UNPARSABLE = "unparsable"
TURN_KINDS = (VALID, INVALID_ACTION, INVALID_OBJECT, UNDOABLE, UNPARSABLE)

#: Why an undoable action could not be done (Fig. 17).
HOLDING = "holding"
VISIBILITY = "visibility"
INCOMPATIBILITY = "incompatibility"
UNDOABLE_CATEGORIES = (HOLDING, VISIBILITY, INCOMPATIBILITY)


def asgard_rules() -> RuleSet:
    """AI2-THOR's cooking and coffee effects plus the kitchen preconditions of the official harness.

    A running faucet does not wash or fill what is in the basin here (AI2-THOR's own effect): AsgardBench
    cleans with the CLEAN action, so the household `faucet_washes` effect is left out. The harness's own rules
    are named household rules: a ButterKnife slices too, an Egg is cracked anywhere, the other foods only on a
    surface (no Plate, no container) whose top is at least 0.52 m high, a DishSponge in the basin does not
    block the Faucet, and the CoffeeMachine needs a clean, empty Mug.
    """
    return RuleSet({}, (heat_sources_cook, coffee_machine_fills)).extend(
        {
            "SliceObject": [knife_to_slice, slice_where_the_harness_does],
            "PutObject": [put_into_clean],
            "ToggleObjectOn": [faucet_tolerates_sponge, stove_needs_pan, television_needs_remote,
                               coffee_needs_clean_empty_mug],
            "ToggleObjectOff": [television_needs_remote],
        }
    )
