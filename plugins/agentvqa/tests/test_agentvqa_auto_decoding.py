"""`agentvqa.model_preset: auto` (the default): the paper's decoding picked from the model, and the choice written
into the run's saved config, where the user's own preset still wins."""

from __future__ import annotations

from pathlib import Path

import pytest
from omegaconf import OmegaConf
from suite.cli.main import main
from suite_agentvqa.decoding import preset_for


@pytest.mark.parametrize(("model", "preset"), [
    ("openai/gpt-5", "reasoning_no_temperature"),  # the paper: GPT-5 at the provider's default
    ("o3", "reasoning_no_temperature"),
    ("gemini/gemini-2.5-pro", "reasoning"),  # litellm's map: supports_reasoning -> 0.8
    ("hosted_vllm/THUDM/GLM-4.1V-9B-Thinking", "reasoning"),  # not in the map: by its name
    ("gpt-4o", None),  # 0.2
    ("hosted_vllm/Qwen/Qwen2.5-VL-72B-Instruct", None),
    ("scripted/random", None),
])
def test_the_preset_is_picked_from_the_model(model: str, preset: str | None) -> None:
    assert preset_for(model) == preset


def test_the_choice_is_in_the_saved_config_and_the_users_preset_wins(tmp_path: Path) -> None:
    for name, extra, expected in (("auto", [], None), ("mine", ["agentvqa.model_preset=reasoning"], "reasoning")):
        out = tmp_path / name
        assert main(["run", "--plugins", "agentvqa", "--model", "scripted/random", "--limit", "1", "--out", str(out),
                     "--no-report", *extra]) == 0
        assert OmegaConf.load(out / "config.yaml").agentvqa.model_preset == expected
