"""Write example frames (RGB, depth, segmentation) of a kitchen and a multi-room house to docs/household/."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from PIL import Image
from suite_household.controller import Controller, Event
from suite_household.generator import generate_house, generate_room

OUT = Path(__file__).resolve().parents[3] / "docs" / "household"


def save(event: Event, stem: str, out: Path) -> list[Path]:
    """Save one event's RGB, depth (near bright, 0-5 m) and segmentation as PNGs."""
    depth = np.clip(255 - event.depth_frame / 5.0 * 255, 0, 255).astype(np.uint8)
    paths = [out / f"{stem}_rgb.png", out / f"{stem}_depth.png", out / f"{stem}_segmentation.png"]
    for path, img in zip(paths, (event.frame, depth, event.instance_segmentation_frame), strict=True):
        Image.fromarray(img).save(path, optimize=False)
    return paths


def main() -> None:
    """Render the examples."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    kitchen = Controller(
        scene=generate_room("Kitchen", seed=7),
        width=640,
        height=480,
        renderDepthImage=True,
        renderInstanceSegmentation=True,
        showLabels=False,
    )
    ev = kitchen.step(
        action="TeleportFull",
        position={"x": 2.5, "y": 0.9, "z": 2.0},
        rotation={"y": 0},
        horizon=30,
        standing=True,
    )
    best = max(range(12), key=lambda k: _objects_in_view(kitchen.step(action="RotateRight", degrees=30)))
    ev = kitchen.step(action="RotateRight", degrees=30 * (best + 1) - 360)
    written = save(ev, "kitchen", args.out)
    house = Controller(
        scene=generate_house(seed=3),
        width=640,
        height=480,
        renderDepthImage=True,
        renderInstanceSegmentation=True,
    )
    door = next(o for o in house.scene.objects if o.type == "Doorway")
    x0, _, z0, x1, _, z1 = door.box
    along_x = x1 - x0 > z1 - z0
    pos = (
        {"x": (x0 + x1) / 2, "y": 0.9, "z": (z0 + z1) / 2 - 1.6}
        if along_x
        else {"x": (x0 + x1) / 2 - 1.6, "y": 0.9, "z": (z0 + z1) / 2}
    )
    ev = house.step(
        action="TeleportFull", position=pos, rotation={"y": 0 if along_x else 90}, horizon=10, standing=True
    )
    written += save(ev, "house", args.out)
    print("\n".join(str(p) for p in written))


def _objects_in_view(event: Event) -> int:
    return len(event.instance_masks)


if __name__ == "__main__":
    main()
