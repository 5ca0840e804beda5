"""The litellm `CustomLLM` behind `scripted/<name>` (imported only once litellm is loaded)."""

from __future__ import annotations

from typing import Any

import litellm
import openai
from litellm import CustomLLM
from litellm.types.utils import ModelResponse, Usage

from suite.models.scripted import ScriptedReply, get_script
from suite.models.tokens import estimate_prompt_tokens, estimate_text_tokens


class ScriptedLLM(CustomLLM):
    """Answers with the registered script; its errors are bad requests unless they are litellm errors."""

    def __init__(self) -> None:
        super().__init__()
        self._priced: set[str] = set()

    def _price_at_zero(self, model: str) -> None:
        """Put `scripted/<model>` in litellm's cost map at no cost (its cost lookups then hit at once)."""
        if model not in self._priced:
            litellm.register_model({f"scripted/{model}": {
                "input_cost_per_token": 0.0, "output_cost_per_token": 0.0, "litellm_provider": "scripted",
                "mode": "chat",
            }})
            self._priced.add(model)

    async def acompletion(  # type: ignore[override]  # litellm passes everything by keyword
        self,
        model: str,
        messages: list[dict[str, Any]],
        *_: Any,
        model_response: ModelResponse,
        litellm_params: dict[str, Any] | None = None,
        **__: Any,
    ) -> ModelResponse:
        """Run the script for `model` with the request's metadata; usage is the script's own (a ScriptedReply),
        else estimated from the text."""
        metadata = (litellm_params or {}).get("metadata") or {}
        self._price_at_zero(model)
        try:
            answer = await get_script(model).reply(messages, metadata)
        except openai.APIError:
            raise  # a script may simulate provider failures (rate limits, timeouts, 5xx)
        except Exception as exc:
            raise litellm.BadRequestError(
                message=f"scripted/{model}: {type(exc).__name__}: {exc}",
                model=f"scripted/{model}",
                llm_provider="scripted",
            ) from exc
        if isinstance(answer, ScriptedReply):
            text, prompt_tokens, completion_tokens = answer.text, answer.prompt_tokens, answer.completion_tokens
        else:
            text = answer
            prompt_tokens, completion_tokens = estimate_prompt_tokens(messages), estimate_text_tokens(answer)
        model_response.choices[0].message.content = text
        model_response.usage = Usage(  # type: ignore[attr-defined]  # litellm sets `usage` as an extra field
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            total_tokens=prompt_tokens + completion_tokens,
        )
        # scripted models are free: litellm takes this cost as already calculated and skips its own calculation
        model_response._hidden_params["response_cost"] = 0.0
        return model_response
