"""The question prompt (our wording of the paper's template, in replaceable files) and its chat message."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from suite.contract.errors import ConfigError
from suite.contract.records import Image

from suite_agentvqa.data import LETTERS, Question
from suite_agentvqa.options import Order

PROMPT_DIR = Path(__file__).parent / "prompts"
#: The config keys of the `agentvqa` section that shape the prompt.
SETTINGS = ("prompt_dir", "media_labels", "image_detail", "video_part", "history")
#: How a native video is sent: litellm's `file` part (Gemini, Vertex) or a `video_url` part (vLLM and other
#: OpenAI-compatible servers of video models).
VIDEO_PARTS = ("file", "video_url")


def load_template(name: str, prompt_dir: str | None = None) -> str:
    """A template (`<name>.txt`) from the user's prompt folder when it has one, else ours; trailing newline cut."""
    path = PROMPT_DIR / f"{name}.txt"
    if prompt_dir and (Path(prompt_dir) / f"{name}.txt").is_file():
        path = Path(prompt_dir) / f"{name}.txt"
    return path.read_text(encoding="utf-8").rstrip("\n")


def _fill(name: str, prompt_dir: str | None, **fields: str) -> str:
    try:
        return load_template(name, prompt_dir).format_map(fields)
    except (KeyError, ValueError, IndexError) as exc:
        raise ConfigError(f"prompt template {name}.txt: bad placeholder {exc}; it may use {sorted(fields)}") from None


def letters_phrase(n: int) -> str:
    """The letters shown, in words: `A, B, C, or D` for four options, `A, B, or C` for three."""
    letters = list(LETTERS[:n])
    if n <= 2:
        return " or ".join(letters)
    return ", ".join(letters[:-1]) + f", or {letters[-1]}"


def media_noun(question: Question, native: bool = False) -> str:
    """What the model is shown, in words: screenshot(s), image(s), video frames, or the video itself."""
    if native:
        return "video"
    if question.media_kind != "images":
        return "video frames"
    noun = "screenshot" if question.domain == "web_agents" else "image"
    return noun if len(question.media) == 1 else noun + "s"


def question_text(question: Question, order: Order, prompt_dir: str | None = None, native: bool = False,
                  history: bool = True) -> str:
    """The prompt text: goal and previous actions when the question has them (the actions left out with `history`
    false: the paper's Figure 5 ablation), question, options, instruction (`native`: the video itself is shown,
    not frames)."""
    sections = []
    if question.goal:
        sections.append(_fill("goal", prompt_dir, goal=question.goal))
    if question.action_history is not None and history:
        actions = "\n".join(f"{i}. {a}" for i, a in enumerate(question.action_history, 1))
        sections.append(_fill("history", prompt_dir, history=actions or load_template("no_history", prompt_dir)))
    options = "\n".join(f"{LETTERS[j]}. {question.options[i]}" for j, i in enumerate(order))
    context = "".join(s + "\n\n" for s in sections)
    return _fill("question", prompt_dir, context=context, question=question.question, options=options,
                 media=media_noun(question, native), letters=letters_phrase(len(order)))


def image_part(image: Image, detail: str | None) -> dict[str, Any]:
    """An OpenAI-style image part carrying the PNG bytes as a data URL (native size, never resized)."""
    url = "data:image/png;base64," + base64.b64encode(image.png or b"").decode("ascii")
    body: dict[str, Any] = {"url": url}
    if detail:
        body["detail"] = detail
    return {"type": "image_url", "image_url": body}


def video_part(video: Mapping[str, str], kind: str | None) -> dict[str, Any]:
    """A whole video file as a base64 data URL, in the content part `kind` (`file` by default, or `video_url`)."""
    url = f"data:{video['mime']};base64," + base64.b64encode(Path(video["path"]).read_bytes()).decode("ascii")
    if kind == "video_url":
        return {"type": "video_url", "video_url": {"url": url}}
    return {"type": "file", "file": {"file_data": url, "format": video["mime"]}}


def build_messages(question: Question, order: Order, images: Sequence[Image],
                   settings: Mapping[str, Any], video: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """One user message: the media first (labelled when there are several; or the native video), then the text."""
    parts: list[dict[str, Any]] = [video_part(video, settings.get("video_part"))] if video else []
    label = settings.get("media_labels", True) and len(images) > 1
    for image in images:
        if label:
            parts.append({"type": "text", "text": f"{image.label}:"})
        parts.append(image_part(image, settings.get("image_detail")))
    parts.append({"type": "text", "text": question_text(question, order, settings.get("prompt_dir"), bool(video),
                                                        settings.get("history", True) is not False)})
    return [{"role": "user", "content": parts}]
