"""Write the two images a model receives on one turn of a real task (README figures).

    python plugins/asgard/scripts/render_readme_images.py DATA_DIR [--out plugins/asgard/docs]

DATA_DIR holds the upstream plans (e.g. what `suite data pull asgard` fetched). The task is
`coffee__Mug(d)_FloorPlan12_V1 [38]`; after FIND Mug and PICKUP Mug, the images of the third turn are the
view before the PICKUP and the view after it, with the translucent hand over the held Mug.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from omegaconf import OmegaConf
from suite.engine.host import default_config
from suite_asgard.commands import Command
from suite_asgard.env import household_env
from suite_asgard.plugin import load_tasks

REPO = Path(__file__).resolve().parents[3]
TASK = "coffee__Mug(d)_FloorPlan12_V1 [38]"


def main() -> int:
    """Render and save `turn3_before.png` and `turn3_current.png`."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir", help="a folder of AsgardBench plans (official data)")
    parser.add_argument("--out", type=Path, default=REPO / "plugins" / "asgard" / "docs")
    args = parser.parse_args()
    cfg = OmegaConf.merge(default_config(["asgard"]).asgard, {"data_dir": args.data_dir})
    task = next(t for t in load_tasks("asgard", cfg) if t.id == TASK)
    env = household_env(task, cfg)
    env.reset()
    env.step(Command.valid("FIND", "Mug"))
    observation = env.step(Command.valid("PICKUP", "Mug")).observation
    args.out.mkdir(parents=True, exist_ok=True)
    for image, name in zip(observation.images, ("turn3_before.png", "turn3_current.png"), strict=True):
        (args.out / name).write_bytes(image.png)
        print(args.out / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
