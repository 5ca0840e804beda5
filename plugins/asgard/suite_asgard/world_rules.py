"""The simulator-side rules of AsgardBench's kitchen, and the words for why a turn failed.

The household simulator applies these on every low-level step (and `env.backend=ai2thor` checks the same
preconditions on AI2-THOR's metadata); the action layer checks every world rule itself first so that each
failure gets its category and a readable message.
"""

from __future__ import annotations

from suite_household.rules import (
    RuleSet,
    coffee_needs_clean_empty_mug,
    faucet_tolerates_sponge,
    knife_to_slice,
    put_into_clean,
    slice_where_the_harness_does,
    stove_needs_pan,
    television_needs_remote,
    thor_rules,
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
    """AI2-THOR's own effects plus the kitchen preconditions of the official harness.

    The effects are AI2-THOR's (`thor_rules`): cooking, coffee, and a running faucet washing (isDirty -> False)
    and filling with water what is in the basin under it. The harness keeps that effect: its CLEAN succeeds on
    an object the water already washed, and its TOGGLE_OFF pours the water out again (the action layer does
    both). The harness's own rules are named household rules: a ButterKnife slices too, an Egg is cracked
    anywhere, the other foods only on a surface (no Plate, no container) whose top is at least 0.52 m high, a
    DishSponge in the basin does not block the Faucet, and the CoffeeMachine needs a clean, empty Mug.
    """
    return thor_rules().extend(
        {
            "SliceObject": [knife_to_slice, slice_where_the_harness_does],
            "PutObject": [put_into_clean],
            "ToggleObjectOn": [faucet_tolerates_sponge, stove_needs_pan, television_needs_remote,
                               coffee_needs_clean_empty_mug],
            "ToggleObjectOff": [television_needs_remote],
        }
    )
