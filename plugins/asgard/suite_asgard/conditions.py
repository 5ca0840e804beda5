"""Experimental conditions (the paper's Table 6 columns) as named presets of four settings."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from suite.contract.errors import ConfigError

IMAGE_MODES = ("both", "current", "none")
#: The paper's Table 6 columns, in its order (other presets follow, by name).
PAPER_CONDITIONS = ("baseline", "detailed_feedback", "no_feedback", "no_hand", "no_memory", "current_image_only",
                    "text_only", "text_only_detailed", "text_only_no_feedback")
FEEDBACK_MODES = ("simple", "detailed", "none")


@dataclass(frozen=True)
class Condition:
    """What the model gets: which images, which action feedback, the hand overlay, and its own memory."""

    name: str
    images: str = "both"
    feedback: str = "simple"
    hand_opacity: float = 0.6
    memory: bool = True

    @property
    def text_only(self) -> bool:
        """Whether the model gets no images at all."""
        return self.images == "none"

    def to_dict(self) -> dict[str, Any]:
        """A plain dict (stored in task data, run metadata and episode metrics)."""
        return asdict(self)


def condition_order(name: str) -> tuple[int, str]:
    """Sort key: the paper's Table 6 column order, then any other condition by name."""
    return (PAPER_CONDITIONS.index(name) if name in PAPER_CONDITIONS else len(PAPER_CONDITIONS), name)


def resolve_condition(config: Any) -> Condition:
    """The condition named by `asgard.condition`, from the `asgard.conditions` presets."""
    name = str(config.get("condition") or "baseline")
    presets = config.get("conditions") or {}
    if name not in presets:
        raise ConfigError(f"asgard.condition: unknown condition {name!r}; choose from {', '.join(presets)}")
    preset = dict(presets[name])
    unknown = set(preset) - {"images", "feedback", "hand_opacity", "memory"}
    if unknown:
        raise ConfigError(f"asgard.conditions.{name}: unknown setting(s) {', '.join(sorted(unknown))}")
    condition = Condition(name=name, **preset)
    if condition.images not in IMAGE_MODES:
        raise ConfigError(f"asgard.conditions.{name}.images: {condition.images!r} is not one of {IMAGE_MODES}")
    if condition.feedback not in FEEDBACK_MODES:
        raise ConfigError(f"asgard.conditions.{name}.feedback: {condition.feedback!r} is not one of {FEEDBACK_MODES}")
    if not 0.0 <= float(condition.hand_opacity) <= 1.0:
        raise ConfigError(f"asgard.conditions.{name}.hand_opacity: must be within 0 and 1")
    return condition
