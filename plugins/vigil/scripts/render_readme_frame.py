"""Writes docs/vigil/*.png: what the agent sees at the start of three pack episodes (RGB, 640x480), and, for the
first, the instance segmentation that only the evaluator uses. `python plugins/vigil/scripts/render_readme_frame.py`"""

from __future__ import annotations

from pathlib import Path

from omegaconf import OmegaConf
from PIL import Image
from suite.engine.host import default_config
from suite_vigil.plugin import PACK_DIR, load_tasks, make_env

OUT = Path(__file__).resolve().parents[3] / "docs" / "vigil"
SHOW = ("SV", "AI", "CR")


def main() -> None:
    """Render the start frames of the first SV, AI and CR episodes."""
    cfg = OmegaConf.merge(default_config(["vigil"]).vigil, {"data_dir": str(PACK_DIR)})
    tasks = load_tasks("vigil", cfg)
    OUT.mkdir(parents=True, exist_ok=True)
    for n, family in enumerate(SHOW):
        task = next(t for t in tasks if t.category == family)
        env = make_env("vigil", task, None)
        env.reset()
        Image.fromarray(env.sim.frame()).save(OUT / f"{family.lower()}_rgb.png", optimize=True)
        if n == 0:
            Image.fromarray(env.sim.event.instance_segmentation_frame).save(OUT / "sv_segmentation.png", optimize=True)
        print(f"{family}: {task.id}: {task.data['episode']['instruction']}")
        env.close()


if __name__ == "__main__":
    main()
