"""The paper's protocol one setting away (`--protocol paper`): every benchmark ships a preset of real settings, the
user's own settings win over it, and every report says whether each run followed it and what differs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from omegaconf import OmegaConf
from suite.cli.main import main
from suite.contract.errors import ConfigError
from suite.contract.protocols import PAPER, Protocol, apply_protocol, differences, load_protocol
from suite.engine.host import PluginHost, build_host, default_config
from suite.launch.compose import RUN_FLAGS, Options, compose_config

BUILT_IN = ["agentvqa", "asgard", "longact", "omniear", "vigil"]


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return build_host()


@pytest.mark.parametrize("bench", BUILT_IN)
def test_every_benchmark_ships_a_paper_preset_of_real_settings(host: PluginHost, bench: str) -> None:
    spec = host.benchmark(bench)
    preset = load_protocol(bench, PAPER, spec.protocols[PAPER])
    assert preset.settings and set(preset.defaults_differ) <= set(preset.settings)
    cfg = default_config([bench], host)
    apply_protocol(cfg, preset)  # every key is a setting of the benchmark's config
    assert differences(preset, cfg) == []
    for key in preset.defaults_differ:  # a default that differs on purpose is what the label reports
        assert OmegaConf.select(default_config([bench], host), key) != preset.settings[key]


def test_the_user_wins_over_the_preset_and_an_unknown_name_is_refused(host: PluginHost) -> None:
    options = Options({"protocol": "paper"}, ["vigil.feedback=true"])
    cfg = compose_config(host, options, RUN_FLAGS)
    assert cfg.vigil.sv_world == "visible" and cfg.vigil.feedback is True and cfg.run.protocol == "paper"
    plain = compose_config(host, Options(), RUN_FLAGS)
    assert plain.vigil.sv_world == "unchanged" and plain.run.protocol is None


def test_differences_name_each_setting_and_replaced_prompts() -> None:
    preset = Protocol("b", PAPER, "", {"b.k": 1, "b.flag": False, "agent.x.n": [1, 2]})
    cfg = OmegaConf.create({"run": {"agent": "x"}, "b": {"k": 2, "flag": False, "prompt_dir": "/p"},
                            "agent": {"x": {"n": [1, 2], "prompt_dir": None}}})
    assert differences(preset, cfg) == ["b.k=2 (the paper's: 1)", "prompts replaced (b.prompt_dir)"]
    with pytest.raises(ConfigError, match="sets b.missing, which is no setting"):
        apply_protocol(cfg, Protocol("b", PAPER, "", {"b.missing": 1}))


def test_a_preset_sets_only_its_own_section(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("settings:\n  model.temperature: 0\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="sets model.temperature: a preset sets only its own section"):
        load_protocol("b", PAPER, path)


def test_every_report_says_whether_each_run_followed_the_paper(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    runs = {"paper": ["--protocol", "paper"], "default": [], "prompts": ["--protocol", "paper",
                                                                        f"omniear.prompt_dir={tmp_path}"]}
    for name, extra in runs.items():
        assert main(["run", "--plugins", "omniear", "--agent", "oracle", "--limit", "1", "--label", name,
                     "--out", str(tmp_path / name), "--no-report", *extra]) == 0
    assert main(["run", "--plugins", "omniear", "--agent", "oracle", "--protocol", "nope",
                 "--out", str(tmp_path / "x")]) == 2
    assert "--protocol nope: omniear has no such protocol preset; presets: paper" in capsys.readouterr().err
    folders = [str(tmp_path / name) for name in runs]
    assert main(["report", *folders, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    labels = {row["label"]: row["protocol"]["omniear"] for row in report["rows"]}
    assert labels["paper"] == {"protocol": "paper", "follows": True, "differs": []}
    assert labels["default"]["differs"] == ["omniear.exclude_scalar_max_size=false (the paper's: true)"]
    assert labels["prompts"]["differs"] == ["prompts replaced (omniear.prompt_dir)"]
    assert main(["report", *folders]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert f"protocol: omniear: the paper's protocol [{folders[0]}]" in text
    assert ("protocol: omniear: NOT the paper's protocol: omniear.exclude_scalar_max_size=false (the paper's: true)"
            in text)
