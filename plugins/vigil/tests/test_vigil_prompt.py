"""The prompt of section 6: four blocks in order, the neutral and normalized_1000 variants, the text history
(20 turns as a dialogue of the model's own replies), the +FB booleans only under feedback."""

from __future__ import annotations

from suite.contract.records import Action, Image, Observation, StepRecord, Task
from suite_vigil.parsing import VigilAction
from suite_vigil.prompting import block, build_messages, prompt_sha256, system_prompt

_ANTI_CLAIM, _NORMALIZED = block("anti_claim"), block("normalized")

EPISODE = {"instruction": "Open the fridge.", "max_steps": 25}


def task(variant: str = "default", normalized: bool = False, feedback: bool = False, **extra: object) -> Task:
    return Task("vigil", "procthor_fridge_seed1", {"episode": EPISODE, "prompt": {
        "variant": variant, "normalized": normalized, "feedback": feedback, **extra}})


def steps(n: int) -> list[StepRecord]:
    out = []
    for i in range(n):
        value = VigilAction("navigate", {"mode": "forward", "magnitude": 1}, thought=f"t{i}",
                            cognitive_state={"k": i})
        out.append(StepRecord(i, Action(value=value), reply=f"reply {i}",
                              info={"too_far": i == 1, "path_blocked": i == 2}))
    out.append(StepRecord(n, Action(value=VigilAction(None, invalid="not exactly one JSON object")), reply="{not json"))
    return out


def test_four_blocks_in_order_with_the_instruction_in_block_one() -> None:
    text = system_prompt("Open the fridge.")
    starts = [text.index(h) for h in ("Task: Open the fridge.", "## Allowed actions - navigate|look|interact_pixel|"
                                      "report", "## Grounding Rules", "## Output format")]
    assert starts == sorted(starts)
    for word in ("ground", "activate", "deactivate", "open_access", "close_access", "pick", "place", "drop",
                 "success", "fail", "on", "off", "open", "closed", "unsafe", "invalid"):
        assert word in text


def test_neutral_variant_drops_only_the_two_sentences() -> None:
    default, neutral = system_prompt("X"), system_prompt("X", "neutral")
    assert _ANTI_CLAIM in default and _ANTI_CLAIM not in neutral
    assert default.replace(" " + _ANTI_CLAIM, "") == neutral


def test_normalized_rule_opens_the_grounding_block() -> None:
    text = system_prompt("X", normalized=True)
    assert text.index("## Grounding Rules\n" + _NORMALIZED) > 0 and _NORMALIZED not in system_prompt("X")
    assert prompt_sha256() != prompt_sha256(normalized=True) != prompt_sha256("neutral")


def test_history_is_a_dialogue_of_the_models_own_replies_and_the_frame_is_in_the_current_turn_only() -> None:
    obs = Observation(text="Open the fridge.", images=[Image(png=b"\x89PNG", label="current")])
    messages = build_messages(task(), obs, steps(25))
    assert [m["role"] for m in messages] == ["system"] + ["user", "assistant"] * 20 + ["user"]
    replies = [m["content"] for m in messages if m["role"] == "assistant"]
    assert replies[0] == "reply 6" and replies[-1] == "{not json"  # raw, as sent: never re-serialised
    users = [m["content"] for m in messages[1:-1] if m["role"] == "user"]
    assert users[0].startswith("Task: Open the fridge.\n(step 7:") and users[-1].startswith("(step 26:")
    assert all(isinstance(u, str) for u in users)  # earlier frames are not sent again
    parts = messages[-1]["content"]
    text = parts[0]["text"]
    assert "of at most" not in text  # the paper's agent is not told its budget
    assert text.splitlines()[-1] == "invalid action"  # what the last reply led to, and nothing else
    assert "too_far" not in str(messages)
    assert parts[1]["text"] == '{"role": "current"}' and parts[2]["type"] == "image_url"
    assert sum(p["type"] == "image_url" for p in parts) == 1


def test_feedback_adds_only_the_two_booleans() -> None:
    messages = build_messages(task(feedback=True), Observation(), steps(3))
    users = [m["content"] for m in messages if m["role"] == "user"]
    assert "too_far=true, path_blocked=false" in users[2] and "too_far=false, path_blocked=true" in users[3]
    assert users[-1][0]["text"].splitlines()[-1] == "invalid action"


def test_the_step_count_and_the_invalid_reason_are_opt_in() -> None:
    messages = build_messages(task(step_count=True, invalid_reason=True), Observation(), steps(25))
    text = messages[-1]["content"][0]["text"]
    assert "Step 27 of at most 25." in text
    assert text.splitlines()[-1] == "invalid action (not exactly one JSON object)"


def test_feedback_does_not_give_the_invalid_reason() -> None:
    text = build_messages(task(feedback=True), Observation(), steps(2))[-1]["content"][0]["text"]
    assert text.splitlines()[-1] == "invalid action"


def test_an_agent_without_a_raw_reply_shows_its_action() -> None:
    step = StepRecord(0, Action(value=VigilAction("look", {"direction": "down", "magnitude": 30})))
    messages = build_messages(task(), Observation(), [step])
    assert messages[2] == {"role": "assistant",
                           "content": '{"skill_name": "look", "arguments": {"direction": "down", "magnitude": 30}}'}


def test_a_prompt_folder_replaces_blocks_with_the_papers_text(tmp_path) -> None:
    (tmp_path / "grounding.txt").write_text("## Grounding Rules\n- Use only the current frame.\n")
    (tmp_path / "anti_claim.txt").write_text("Do not claim success from appearance.\n")
    text = system_prompt("Open the fridge.", normalized=True, prompt_dir=str(tmp_path))
    assert f"## Grounding Rules\n{_NORMALIZED}\n- Use only the current frame.\n\n## Output format" in text
    assert "Do not claim success from appearance. Task: Open the fridge." in text and _ANTI_CLAIM not in text
    assert block("output") in text  # files the folder lacks stay ours
    assert prompt_sha256(prompt_dir=str(tmp_path)) != prompt_sha256()
    message = build_messages(task(prompt_dir=str(tmp_path)), Observation(), [])[0]["content"]
    assert "- Use only the current frame." in message
