"""Each condition preset changes exactly what it should: feedback lines, hand, memory, images."""

from __future__ import annotations

import difflib
import io

import numpy as np
import pytest
from PIL import Image
from suite.contract.errors import ConfigError
from suite.contract.records import Observation, StepRecord
from suite_asgard.commands import Command
from suite_asgard.conditions import resolve_condition
from suite_asgard.parsing import parse_reply
from suite_asgard.prompting import build_messages, prompt_text

from .conftest import config, env_for, task_named

PLAN = "distribute__Tomato_Plate_Pot_Pan_FloorPlan26"
REPLY = ("<answer>\nTHINGS TO REMEMBER:\n- The Tomato is on the CounterTop.\n\nSUGGESTED PLAN SEQUENCE:\n"
         "1. SLICE Tomato\n2. PICKUP TomatoSliced\n\nAction: SLICE Tomato\n</answer>")


def history() -> list[StepRecord]:
    """A success, an unparsable turn, then a refused SLICE with its reason."""
    ok = {"kind": "valid", "success": True, "message": "", "action": "FIND Tomato"}
    garbage = {"kind": "unparsable", "success": False, "message": "no line", "action": None}
    bad = {"kind": "undoable", "success": False, "action": "SLICE Tomato",
           "message": "You must be holding the Knife to SLICE the Tomato."}
    return [StepRecord(0, parse_reply("Action: FIND Tomato", []), reply="Action: FIND Tomato", info=ok),
            StepRecord(1, parse_reply("hmm", []), reply="hmm", info=garbage),
            StepRecord(2, parse_reply(REPLY, []), reply=REPLY, info=bad)]


def text_for(condition: str) -> str:
    return prompt_text(task_named(PLAN, condition=condition), history())


def changed(a: str, b: str) -> tuple[list[str], list[str]]:
    """Lines only in a, lines only in b."""
    diff = list(difflib.ndiff(a.splitlines(), b.splitlines()))
    return [d[2:] for d in diff if d.startswith("- ")], [d[2:] for d in diff if d.startswith("+ ")]


def test_baseline_history_plan_and_memory() -> None:
    text = text_for("baseline")
    assert "0. FIND Tomato Success\n1. SLICE Tomato Failure\n" in text  # the unparsable turn is left out
    assert "1. SLICE Tomato\n2. PICKUP TomatoSliced" in text
    assert "- The Tomato is on the CounterTop." in text
    objects = text.split("You may name only these object types:\n")[1].split("\n")[0].split(", ")
    assert objects == sorted(objects) and "StoveKnob" not in objects and "PepperShaker" not in objects
    assert {"Tomato", "TomatoSliced", "Egg", "EggCracked", "StoveBurner"} <= set(objects)


def test_detailed_and_no_feedback_change_only_the_history_lines() -> None:
    base = text_for("baseline")
    gone, added = changed(base, text_for("detailed_feedback"))
    assert gone == ["1. SLICE Tomato Failure"]
    assert added == ["1. SLICE Tomato Failure: You must be holding the Knife to SLICE the Tomato."]
    gone, added = changed(base, text_for("no_feedback"))
    assert gone == ["0. FIND Tomato Success", "1. SLICE Tomato Failure"]
    assert added == ["0. FIND Tomato", "1. SLICE Tomato"]


def test_no_hand_changes_only_the_hand_check() -> None:
    gone, added = changed(text_for("baseline"), text_for("no_hand"))
    assert any("hand at the bottom centre" in g for g in gone)
    assert any("floats at the bottom centre" in a for a in added)
    assert all(("hand" in line.lower() or "floats" in line or "bottom centre" in line) for line in gone + added)


def test_no_memory_drops_the_notes_the_instructions_and_the_example_parts() -> None:
    base, bare = text_for("baseline"), text_for("no_memory")
    assert "THINGS TO REMEMBER" in base and "THINGS TO REMEMBER" not in bare
    gone, added = changed(base, bare)
    assert added == []
    assert "- The Tomato is on the CounterTop." in gone
    assert len(gone) > 10


def test_current_image_only_changes_the_image_guidance_and_wording() -> None:
    gone, added = changed(text_for("baseline"), text_for("current_image_only"))
    assert any("first shows the scene" in g for g in gone)
    assert any("one image" in a for a in added)
    assert all("image" in line for line in gone + added)


@pytest.mark.parametrize(("condition", "history_line"), [("text_only", "1. SLICE Tomato Failure"),
                                                         ("text_only_detailed", "1. SLICE Tomato Failure: You must"),
                                                         ("text_only_no_feedback", "1. SLICE Tomato\n")])
def test_text_only_conditions(condition: str, history_line: str) -> None:
    text = text_for(condition)
    assert "You get no images" in text and "second (current) image" not in text
    assert "from your action history: a PICKUP that worked" in text
    assert history_line in text


@pytest.mark.parametrize(("condition", "images"), [("baseline", 2), ("no_hand", 2), ("no_memory", 2),
                                                   ("current_image_only", 1), ("text_only", 0)])
def test_images_per_turn(condition: str, images: int) -> None:
    env = env_for(PLAN, condition=condition)
    first = env._observation(None)
    assert len(first.images) == min(images, 1)  # the first turn has no "before" image
    result = env.step(Command.valid("FIND", "Tomato"))
    assert len(result.observation.images) == images
    messages = build_messages(env.task, result.observation, [])
    assert [m["role"] for m in messages] == ["system", "user"] and isinstance(messages[0]["content"], str)
    content = messages[1]["content"]
    if images:
        assert [p["type"] for p in content] == ["text"] + ["image_url"] * images
        assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")
    else:
        assert isinstance(content, str)


def skin_pixels(png: bytes) -> int:
    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    bottom = rgb[int(rgb.shape[0] * 0.8):]
    return int((np.abs(bottom - np.array([224, 172, 138])).sum(axis=2) < 60).sum())


def test_the_hand_is_drawn_at_sixty_percent_only_while_holding_and_only_with_the_hand_on() -> None:
    counts = {}
    for condition in ("baseline", "no_hand"):
        env = env_for(PLAN, condition=condition, image_size=128)
        empty = env._observation(None).images[0].png
        env.step(Command.valid("FIND", "Tomato"))
        holding = env.step(Command.valid("PICKUP", "Tomato")).observation.images[-1].png
        counts[condition] = (skin_pixels(empty), skin_pixels(holding))
    assert counts["baseline"][1] > 200 and counts["baseline"][0] < 50
    assert counts["no_hand"][1] < 50


def test_unknown_conditions_and_settings_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="unknown condition 'nope'"):
        resolve_condition(config(condition="nope"))
    with pytest.raises(ConfigError, match="images"):
        resolve_condition(config(condition="odd", conditions={"odd": {"images": "three"}}))


def test_a_prompt_folder_replaces_templates(tmp_path) -> None:
    (tmp_path / "world_rules.txt").write_text("Only one rule: be careful.\n")
    task = task_named(PLAN, prompt_dir=str(tmp_path))
    text = prompt_text(task, [])
    assert "Only one rule: be careful." in text and "Cabinet and Drawer:" not in text
    assert "(none yet: this is your first turn)" in text
    assert [m["role"] for m in build_messages(task, Observation(), [])] == ["system", "user"]


def test_the_fixed_prompt_is_the_system_message_and_the_turn_the_user_message() -> None:
    task = task_named(PLAN, condition="baseline")
    first, later = build_messages(task, Observation(), []), build_messages(task, Observation(), history())
    assert first[0] == later[0]  # the same on every turn, as the harness's text before its cache boundary
    system, user = first[0]["content"], first[1]["content"]
    for fixed in ("AVAILABLE ACTIONS", "WORLD RULES", "TASK INSTRUCTIONS", "EXAMPLES"):
        assert f"\nSECTION: {fixed}\n" in system and f"\nSECTION: {fixed}\n" not in user
    for changing in ("IMAGE GUIDANCE", "AVAILABLE OBJECTS", "AGENT NOTES"):
        assert f"\nSECTION: {changing}\n" in user and f"\nSECTION: {changing}\n" not in system
    assert later[1]["content"] != user and task.data["plan"].task_description not in system
    one = task_named(PLAN, condition="baseline", system_message=False)
    single = build_messages(one, Observation(), [])
    assert [m["role"] for m in single] == ["user"] and single[0]["content"] == f"{system}\n\n{user}"


def test_the_default_prompt_gives_the_baseline_harness_rules_without_common_sense_hints() -> None:
    text = text_for("baseline")
    assert "The Mug must be clean and empty" in text  # the harness's prompt says so
    for hint in ("CLOSE it before TOGGLE_ON", "it must be closed to switch on", "Put a BreadSliced in it",
                 "Common sense"):
        assert hint not in text
    hinted = prompt_text(task_named(PLAN, condition="baseline", common_sense=True), history())
    only_default, added = changed(text, hinted)
    assert not only_default and added[1].startswith("Common sense") and "CLOSE it before TOGGLE_ON" in "\n".join(added)


def test_the_papers_decoding_per_model_is_a_named_preset() -> None:
    from suite.models import benchmark_model_defaults

    cfg = config()
    assert benchmark_model_defaults(cfg, "asgard") == {"temperature": 0.0, "max_tokens": 8192}
    cfg.model_preset = "gpt-4o"
    assert benchmark_model_defaults(cfg, "asgard") == {"temperature": 0.0, "max_tokens": 4096}
    cfg.model_preset = "claude-opus-4-5"
    assert benchmark_model_defaults(cfg, "asgard") == {"temperature": 0.0, "max_tokens": 16384,
                                                       "reasoning_effort": "high"}
    cfg.model_preset = "gpt-6"
    with pytest.raises(ConfigError, match="asgard.model_preset: unknown preset 'gpt-6'"):
        benchmark_model_defaults(cfg, "asgard")
