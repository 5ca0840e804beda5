"""Cheap token estimates (about four characters a token) for rate limiting and scripted usage."""

from __future__ import annotations

from typing import Any

IMAGE_TOKENS = 765  # what one 1024x1024 image costs at OpenAI's high detail
MESSAGE_TOKENS = 4  # per-message overhead of the chat format


def estimate_text_tokens(text: str) -> int:
    """Tokens of a text, at about four characters a token."""
    return (len(text) + 3) // 4


def estimate_prompt_tokens(messages: list[dict[str, Any]]) -> int:
    """Tokens of chat messages whose content is a string or a list of text and image parts."""
    total = 0
    for message in messages:
        total += MESSAGE_TOKENS
        content = message.get("content")
        if isinstance(content, str):
            total += estimate_text_tokens(content)
        elif isinstance(content, list):
            for part in content:
                if part.get("type") == "text":
                    total += estimate_text_tokens(part.get("text") or "")
                elif part.get("type") == "image_url":
                    total += IMAGE_TOKENS
    return total
