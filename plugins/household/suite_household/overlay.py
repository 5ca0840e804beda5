"""Optional overlays a benchmark may ask for: a translucent hand over a held object, object labels."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PIL import Image, ImageDraw

from suite_household.world import World

if TYPE_CHECKING:
    from suite_household.render import Frame

SKIN = (224, 172, 138)


def hand_mask(height: int, width: int) -> np.ndarray:
    """A simple hand silhouette at the bottom centre of the frame (palm and four fingers)."""
    img = Image.new("L", (width, height), 0)
    draw = ImageDraw.Draw(img)
    cx, base = width * 0.5, height * 1.02
    pw, ph = width * 0.16, height * 0.22
    draw.rounded_rectangle(
        (cx - pw / 2, base - ph, cx + pw / 2, base + ph * 0.3), radius=int(pw / 5), fill=255
    )
    fw = pw / 4.4
    for k in range(4):
        fx = cx - pw / 2 + fw * 0.3 + k * (fw * 1.05)
        fl = ph * (0.45 + 0.12 * (1 - abs(k - 1.5) / 1.5))
        draw.rounded_rectangle(
            (fx, base - ph - fl, fx + fw * 0.9, base - ph + fw), radius=int(fw / 2), fill=255
        )
    draw.ellipse(
        (cx - pw / 2 - fw * 1.2, base - ph * 0.75, cx - pw / 2 + fw * 0.4, base - ph * 0.05), fill=255
    )
    return np.asarray(img) > 0


def draw_hand(rgb: np.ndarray, opacity: float) -> np.ndarray:
    """Blend a skin-coloured hand over the frame at `opacity` (0-1)."""
    mask = hand_mask(*rgb.shape[:2])
    out = rgb.astype(np.float32)
    out[mask] = out[mask] * (1 - opacity) + np.array(SKIN, np.float32) * opacity
    return np.round(out).astype(np.uint8)


def draw_labels(rgb: np.ndarray, frame: Frame, world: World) -> np.ndarray:
    """Write each in-view object's type at the centre of its pixels (largest objects first)."""
    img = Image.fromarray(rgb)
    draw = ImageDraw.Draw(img)
    counts = np.bincount(frame.owner.ravel(), minlength=len(frame.ids))
    for i in np.argsort(-counts, kind="stable"):
        oid = frame.ids[i]
        if counts[i] < 30 or oid not in world.objects or world.objects[oid].type == "Floor":
            continue
        rows, cols = np.nonzero(frame.owner == i)
        x, y = int(cols.mean()), int(rows.mean())
        text = world.objects[oid].type
        draw.text(
            (x - 3 * len(text), y - 5), text, fill=(255, 255, 255), stroke_width=1, stroke_fill=(0, 0, 0)
        )
    return np.asarray(img).copy()
