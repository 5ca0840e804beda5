"""AgentVQA's 5 domains, 14 source datasets and 25 sub-task categories, in the paper's table order."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Domain:
    """A domain: its key, the paper's column title, its datasets and its sub-task categories (keys)."""

    key: str
    title: str
    datasets: tuple[str, ...]
    categories: tuple[str, ...]


@dataclass(frozen=True)
class Category:
    """A sub-task category: its key, the abbreviation of the paper's Table 4 and a readable name."""

    key: str
    abbr: str
    name: str


DOMAINS: tuple[Domain, ...] = (
    Domain("web_agents", "Web", ("aitw", "monday", "mind2web", "screenspot", "screenspot_pro"),
           ("tap", "typing", "scroll", "press")),
    Domain("robotics", "Robotics", ("erqa", "robo2vlm", "roborefit"),
           ("task_estimation", "pov_modeling", "state_tracking", "object_grounding")),
    Domain("egocentric_videos", "Egocentric", ("vsi_bench", "perception_test"),
           ("spatial_navigation", "motion_causality", "object_counting")),
    Domain("games", "Games", ("gameqa", "atari"),
           ("world_modeling", "reward_modeling", "game_strategization", "action_prediction", "game_over_detection",
            "reward_detection")),
    Domain("spatial_understanding", "Spatial", ("space10", "embspatial"),
           ("entity_detection", "object_object_interaction", "entity_counting", "functional_reasoning",
            "object_scene_interaction", "object_sizing", "spatial_planning", "scene_counting")),
)

#: The dataset keys in the paper's Table 1 order, with the paper's column titles.
DATASET_TITLES: dict[str, str] = {
    "aitw": "AitW", "monday": "MONDAY", "mind2web": "Mind2Web", "screenspot": "Screenspot",
    "screenspot_pro": "Screenspot-pro", "erqa": "ERQA", "robo2vlm": "Robo2VLM", "roborefit": "Roborefit",
    "vsi_bench": "VSI-Bench", "perception_test": "Perception-Test", "gameqa": "GameQA", "atari": "atari",
    "space10": "SpaCE-10", "embspatial": "EmbSpatial-Bench",
}
DATASETS: tuple[str, ...] = tuple(DATASET_TITLES)

CATEGORIES: dict[str, Category] = {c.key: c for c in (
    Category("tap", "Tap", "Tap"),
    Category("typing", "Typing", "Typing"),
    Category("scroll", "Scroll", "Scroll"),
    Category("press", "Press", "Press"),
    Category("task_estimation", "TE", "Task Estimation"),
    Category("pov_modeling", "POV", "POV Modeling"),
    Category("state_tracking", "ST", "State Tracking"),
    Category("object_grounding", "OG", "Object Grounding"),
    Category("spatial_navigation", "SN", "Spatial Navigation"),
    Category("motion_causality", "MC", "Motion Causality"),
    Category("object_counting", "OC", "Object Counting"),
    Category("world_modeling", "WM", "World Modeling"),
    Category("reward_modeling", "RM", "Reward Modeling"),
    Category("game_strategization", "GS", "Game Strategization"),
    Category("action_prediction", "AP", "Action Prediction"),
    Category("game_over_detection", "GOD", "Game-Over Detection"),
    Category("reward_detection", "RD", "Reward Detection"),
    Category("entity_detection", "ED", "Entity Detection"),
    Category("object_object_interaction", "OO", "Object-Object Interaction"),
    Category("entity_counting", "EC", "Entity Counting"),
    Category("functional_reasoning", "FR", "Functional Reasoning"),
    Category("object_scene_interaction", "OSI", "Object-Scene Interaction"),
    Category("object_sizing", "OS", "Object Sizing"),
    Category("spatial_planning", "SP", "Spatial Planning"),
    Category("scene_counting", "SC", "Scene Counting"),
)}

DOMAIN_BY_KEY: dict[str, Domain] = {d.key: d for d in DOMAINS}
DOMAIN_OF_DATASET: dict[str, str] = {ds: d.key for d in DOMAINS for ds in d.datasets}
DOMAIN_OF_CATEGORY: dict[str, str] = {c: d.key for d in DOMAINS for c in d.categories}
#: Lowercase names an official release may use for a dataset (the Hugging Face card's subset names and others).
DATASET_ALIASES: dict[str, str] = {
    "android-in-the-wild": "aitw", "android_in_the_wild": "aitw", "screenspot-pro": "screenspot_pro",
    "vsi-bench": "vsi_bench", "vsibench": "vsi_bench", "perception-test": "perception_test",
    "perceptiontest": "perception_test", "space-10": "space10", "embspatial-bench": "embspatial",
    "embspatial_bench": "embspatial", "atari-head": "atari", "game-qa": "gameqa",
}


def dataset_key(name: str) -> str | None:
    """Our key for a dataset name as a release may spell it (case-insensitive), or None if unknown."""
    lowered = name.strip().lower()
    if lowered in DOMAIN_OF_DATASET:
        return lowered
    return DATASET_ALIASES.get(lowered) or DATASET_ALIASES.get(lowered.replace("_", "-")) or (
        lowered.replace("-", "_") if lowered.replace("-", "_") in DOMAIN_OF_DATASET else None)
