"""A question's media as PNG images at native size: image files, frame lists and videos sampled to k frames."""

from __future__ import annotations

import io
import mimetypes
from pathlib import Path

from PIL import Image as PILImage
from suite.contract.errors import DataError
from suite.contract.records import Image

from suite_agentvqa.data import Question

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def sample_indices(n: int, k: int) -> list[int]:
    """`k` evenly spaced indices over `n` frames (first and last included), rounded half up; all when n <= k."""
    if n <= 0 or k <= 0:
        return []
    if n <= k:
        return list(range(n))
    if k == 1:
        return [(n - 1) // 2]
    return sorted({int(i * (n - 1) / (k - 1) + 0.5) for i in range(k)})


def png_bytes(path: Path) -> bytes:
    """The file's bytes when it is a PNG, else the image re-encoded losslessly as PNG (same pixels, same size)."""
    data = path.read_bytes()
    if data.startswith(PNG_SIGNATURE):
        return data
    try:
        with PILImage.open(io.BytesIO(data)) as img:
            return _encode(img)
    except OSError as exc:
        raise DataError(path, "/", f"an image file Pillow can read ({exc})") from exc


def check_media(question: Question) -> None:
    """Before the run: every image (or frame) of the question is a whole file Pillow can read (a truncated or
    corrupt one is a DataError naming it); a video is checked when it is opened."""
    if question.media_kind == "video":
        return
    for path in question.media:
        try:
            with PILImage.open(path) as img:
                img.verify()  # reads the whole file: checksums and truncation, without decoding the pixels
        except (OSError, SyntaxError, ValueError) as exc:
            raise DataError(path, "/", f"an image file Pillow can read ({exc})") from None


def _encode(img: PILImage.Image) -> bytes:
    out = io.BytesIO()
    img.convert("RGBA" if "A" in img.getbands() else "RGB").save(out, format="PNG")
    return out.getvalue()


def video_frames(path: Path, k: int) -> tuple[list[tuple[int, bytes]], int]:
    """`k` evenly spaced frames of a video file as (index, PNG bytes), and the video's frame count.

    Animated GIF, PNG and WebP are read with Pillow; other containers (mp4, webm, ...) with PyAV when it is
    installed (`pip install av`); otherwise convert the video to a frame list (see the README)."""
    try:
        with PILImage.open(path) as img:
            n = getattr(img, "n_frames", 1)
            frames = []
            for index in sample_indices(n, k):
                img.seek(index)
                frames.append((index, _encode(img)))
            return frames, n
    except OSError:
        pass
    try:
        # PyAV is optional (not in any extra), so it is usually absent when the package is checked;
        # `unused-ignore` keeps the check clean where it is installed (it ships its own types)
        import av  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise DataError(path, "/", "a video Pillow can read (GIF, APNG, WebP); for other formats install PyAV "
                        "(`pip install av`) or give the question a frame list") from None
    with av.open(str(path)) as container:
        n = sum(1 for _ in container.decode(video=0))
    wanted = set(sample_indices(n, k))
    with av.open(str(path)) as container:
        frames = [(i, _encode(f.to_image())) for i, f in enumerate(container.decode(video=0)) if i in wanted]
    return frames, n


def load_media(question: Question, num_frames: int) -> list[Image]:
    """The images a model sees, labelled: every image, or `num_frames` evenly spaced frames of a video."""
    if question.media_kind == "images":
        many = len(question.media) > 1
        return [Image(png=png_bytes(p), label=f"Image {i}" if many else "Image")
                for i, p in enumerate(question.media, 1)]
    if question.media_kind == "frames":
        n = len(question.media)
        frames = [(i, png_bytes(question.media[i])) for i in sample_indices(n, num_frames)]
    else:
        frames, n = video_frames(question.media[0], num_frames)
    return [Image(png=png, label=f"Frame {i + 1} of {n}") for i, png in frames]


def native_video(question: Question) -> tuple[Path, str] | None:
    """The question's video file and its MIME type when it can be sent as a video (a `video/*` file such as mp4 or
    webm); None for images, frame lists and animated images, which are always shown as frames."""
    if question.media_kind != "video":
        return None
    mime = mimetypes.guess_type(question.media[0].name)[0]
    return (question.media[0], mime) if mime and mime.startswith("video/") else None
