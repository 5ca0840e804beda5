"""Opt-in corrections of reference behaviour we consider wrong (the default reproduces the reference)."""

from __future__ import annotations

#: Fix flag -> what it changes. Pass a subset as `OmniSim(..., fixes=frozenset({...}))`.
FIXES: dict[str, str] = {
    "spawn_room": "objects inside a held container are in the holder's current room, not its spawn room",
    "strict_done": "single agent: only a DONE command ends the episode (not any text containing 'done'); "
    "two agents: DONE/DONE in any letter case ends it",
    "scan_verb": "a first token that is one of the scene's attribute verbs is not alias-rewritten "
    "(SCAN runs the scan action instead of EXPLORE)",
    "closed_container_place": "PLACE / CORP_PLACE into a closed container is refused",
    "corp_capacity": "CORP_GRAB is refused when the object (with its direct contents) outweighs the "
    "listed agents' combined max_weight",
}


def check_fixes(fixes: frozenset[str]) -> frozenset[str]:
    """Return the flags unchanged, or raise ValueError naming an unknown one."""
    unknown = sorted(set(fixes) - set(FIXES))
    if unknown:
        raise ValueError(f"unknown OmniSim fix flag(s) {unknown}; known: {sorted(FIXES)}")
    return frozenset(fixes)
