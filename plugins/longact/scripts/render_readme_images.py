"""Write the README's example frames: what the agent sees before an interaction, some way into a pack episode.

    python plugins/longact/scripts/render_readme_images.py [--task longact_000] [--steps 240] [--out docs/longact]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from omegaconf import OmegaConf
from suite.engine.host import default_config
from suite_longact.env import make_env_from_data
from suite_longact.oracle import Oracle
from suite_longact.plugin import PACK_DIR, load_tasks


def main() -> None:
    """Step the oracle's solution, then save the three images the agent sees."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default="longact_000")
    ap.add_argument("--steps", type=int, default=240)
    ap.add_argument("--out", type=Path, default=Path("docs/longact"))
    args = ap.parse_args()
    cfg = OmegaConf.merge(default_config(["longact"]).longact, {"data_dir": str(PACK_DIR)})
    task = next(t for t in load_tasks("longact", cfg) if t.id == args.task)
    env = make_env_from_data(task, cfg)
    env.reset()
    env.skip_observations()
    plan = Oracle(env).solve(env.checklist.items)
    step = next(plan)
    while env.counts.raw < args.steps or "object" not in step:  # stop where the oracle is about to interact
        env.step(step)
        step = next(plan)
    env.observe = True
    obs = env.observation()
    args.out.mkdir(parents=True, exist_ok=True)
    for image, name in zip(obs.images, ("rgb", "depth", "segmentation"), strict=True):
        (args.out / f"{name}.png").write_bytes(image.png)
    print(f"wrote {args.out}/rgb.png, depth.png, segmentation.png before {step} "
          f"({len(obs.data['instances'])} instances in view)")


if __name__ == "__main__":
    main()
