"""The available-actions text shown to the model (the reference's supported-actions description)."""

from __future__ import annotations

from suite_omniear.sim.world import World

BASIC_ACTIONS = (
    ("GOTO <object_id>", "Move to a specific location or object", "GOTO main_workbench_area"),
    ("GRAB <object_id>", "Pick up an object that is nearby", "GRAB cup_1"),
    (
        "PLACE <object_id> <in|on> <container_id>",
        "Place a held object into or onto another object",
        "PLACE cup_1 on table_1",
    ),
    ("EXPLORE", "Explore current room to discover objects", "EXPLORE"),
    ("DONE", "Finish the task", "DONE"),
)
COOPERATIVE_ACTIONS = (
    (
        "CORP_GRAB {pair} <object_id>",
        "Two agents cooperatively grab a heavy object",
        "CORP_GRAB {pair} heavy_box_1",
    ),
    (
        "CORP_GOTO {pair} <location_id>",
        "Two agents move together while carrying an object",
        "CORP_GOTO {pair} storage_area",
    ),
    (
        "CORP_PLACE {pair} <object_id> <in|on> <container_id>",
        "Two agents cooperatively place a heavy object",
        "CORP_PLACE {pair} heavy_box_1 on table_1",
    ),
)


def _entry(syntax: str, *notes: str) -> list[str]:
    return [syntax, *(f"  - {n}" for n in notes), ""]


def _needs_tool(world: World, ability: str) -> bool:
    action = world.table.get(ability)
    return action is not None and action.requires_tool


def available_actions(world: World) -> str:
    """Basic, no-tool attribute, held-tool and (for two agents) cooperative actions, in sorted order."""
    table = world.table
    agents = list(world.agents.values())
    multi = len(agents) > 1
    ids = [a.id for a in agents]
    title = " & ".join(i.upper() for i in ids)
    lines = [f"=== SUPPORTED ACTIONS FOR {title} ===", "", "== Basic Actions =="]
    for syntax, text, example in BASIC_ACTIONS:
        lines += _entry(syntax, text, f"Example: {example}")
    lines.append("== Attribute Actions (No Tools Required) ==")
    scene = sorted({a for a in world.scene_abilities if table.get(a) is not None})
    for name in scene:
        action = table.get(name)
        if action is not None and not action.requires_tool:
            verb = name.upper()
            lines += _entry(f"{verb} <object_id>", action.description, f"Example: {verb} device_1")
    held = sorted({a for agent in agents for a in agent.sources if _needs_tool(world, a)})
    if held:
        lines.append("== Agent-Specific Actions (Tools Required) ==")
        for name in held:
            verb = name.upper()
            notes = [table.actions[name].description]  # a row: _needs_tool found it
            if multi:
                notes.append("Available to: " + " & ".join(a.id for a in agents if name in a.sources))
            lines += _entry(f"{verb} <object_id>", *notes, f"Example: {verb} device_1")
    if multi:
        pair = ",".join(ids)
        lines.append("== Cooperative Actions ==")
        for syntax, text, example in COOPERATIVE_ACTIONS:
            lines += _entry(syntax.format(pair=pair), text, f"Example: {example.format(pair=pair)}")
        lines.append("== Cooperative Attribute Actions ==")
        for name in scene:
            verb = f"CORP_{name.upper()}"
            lines += _entry(
                f"{verb} {pair} <object_id>",
                f"{table.actions[name].description} (cooperative)",  # a row: `scene` keeps only those
                f"Example: {verb} {pair} device_1",
            )
        shared = sorted(
            a for a in set.intersection(*(set(a.sources) for a in agents)) if _needs_tool(world, a)
        )
        if shared:
            lines.append("== Cooperative Ability Actions ==")
            for name in shared:
                verb = f"CORP_{name.upper()}"
                lines += _entry(
                    f"{verb} {pair} <object_id>",
                    f"{table.actions[name].description} (cooperative)",  # a row: _needs_tool found it
                    "Both agents have the required ability",
                    f"Example: {verb} {pair} device_1",
                )
    lines.append("=== END OF ACTIONS ===")
    return "\n".join(lines)
