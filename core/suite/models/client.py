"""ModelClient: the one path of every model call (cache, budget, rate limit, retries, cost, litellm)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from suite.contract.errors import ConfigError, MissingApiKey
from suite.models.cache import Position, ResponseCache, key_params, request_hash
from suite.models.call_result import CallResult, Pricing, call_litellm
from suite.models.ledger import CostLedger, Ledger
from suite.models.limiter import Limiter, RateLimiter
from suite.models.litellm_setup import load_litellm
from suite.models.pricing import TokenPrice, token_cost
from suite.models.redact import is_key_variable, known_secrets, mask
from suite.models.reply import ModelReply
from suite.models.retry import RetryPolicy, is_model_failure, model_error
from suite.models.scripted import find_script
from suite.models.tokens import estimate_prompt_tokens
from suite.models.transport import DEFAULT_CALL_DEADLINE_S, DEFAULT_MAX_REPLY_BYTES, CallLimits

if TYPE_CHECKING:
    from suite.models.call_workers import CallWorkers

DEFAULT_TIMEOUT_S = 120.0
#: The longest reply kept (`model.max_reply_chars`): a model that ignores `max_tokens` cannot flood traces and memory.
DEFAULT_MAX_REPLY_CHARS = 100_000
RESERVED = frozenset({"model", "messages", "stream", "max_retries"})
CREDENTIAL_PARAMS = ("api_key", "aws_", "vertex_", "azure_ad_token")  # credentials given in the params
FREE_PROVIDERS = frozenset({"scripted"})


class ModelClient:
    """One model and its parameters, sharing a rate limiter, a cost ledger and (optionally) a cache.

    A request made for an episode is cached under its position as well as its content: the episode (whose id
    holds the repeat), the step, and the call within the step (counted here), so a re-run of a run is served from
    the cache while every repeat, step and extra call within a step reaches the model."""

    def __init__(
        self,
        model: str,
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        top_p: float | None = None,
        limiter: Limiter | None = None,
        ledger: Ledger | None = None,
        cache: ResponseCache | None = None,
        retry: RetryPolicy | None = None,
        price: TokenPrice | None = None,
        max_reply_chars: int | None = DEFAULT_MAX_REPLY_CHARS,
        max_reply_bytes: int | None = DEFAULT_MAX_REPLY_BYTES,
        call_deadline_s: float | None = DEFAULT_CALL_DEADLINE_S,
        **litellm_kwargs: Any,
    ) -> None:
        clash = RESERVED & litellm_kwargs.keys()
        if clash:
            raise ConfigError(f"model parameter(s) {', '.join(sorted(clash))} are set by the model layer")
        self.model = model
        self.limiter: Limiter = limiter or RateLimiter()
        self.ledger: Ledger = ledger or CostLedger()
        self.cache = cache
        self.retry = retry or RetryPolicy()
        self.price = price
        self._metadata = dict(litellm_kwargs.pop("metadata", None) or {})
        sampling = {"temperature": temperature, "max_tokens": max_tokens, "top_p": top_p}
        params = {k: v for k, v in {**sampling, **litellm_kwargs}.items() if v is not None}
        # retries are tenacity's: the OpenAI SDK under litellm must not retry as well
        self._params = {"timeout": DEFAULT_TIMEOUT_S, **params, "max_retries": 0}
        self._key_params = key_params(params)
        self.max_reply_chars = max_reply_chars or None
        if self.max_reply_chars:  # a reply cached under a smaller cap is not the whole reply under a larger one
            self._key_params["max_reply_chars"] = self.max_reply_chars
        self._max_tokens = max_tokens or 0
        self._provider = model.split("/", 1)[0] if "/" in model else ""
        self._script = model.split("/", 1)[1] if self._provider == "scripted" else None
        self._calls: dict[str, tuple[int | None, int]] = {}  # episode -> (its latest step, calls made in it)
        self._free = self._provider in FREE_PROVIDERS or "mock_response" in params
        self._needs_key_check = not (self._free or any(k.startswith(CREDENTIAL_PARAMS) for k in params))
        #: credentials a reply may echo (a key in model.params, the provider keys litellm reads from the
        #: environment): masked before a reply is cached, stored in a trace or shown
        self._secrets = known_secrets(self._params)
        self._pricing = Pricing(model, price, self._free)
        #: what one attempt may read and take (`suite.models.transport`)
        self._limits = CallLimits(call_deadline_s or None, max_reply_bytes or None)
        #: the run's model-call worker processes, when its calls may be made in them (`suite.models.call_workers`)
        self.workers: CallWorkers | None = None

    @property
    def max_tokens(self) -> int | None:
        """The reply cap sent with every request (None: the provider's)."""
        return self._max_tokens or None

    def estimate_cost(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        """What that many tokens would cost this model in USD (0 for a scripted model; None: no known price)."""
        return token_cost(self.model, prompt_tokens, completion_tokens, self.price, self._free)

    @property
    def provider(self) -> str:
        """The provider: the model string's prefix, or litellm's guess for a bare model name."""
        if not self._provider:
            try:
                self._provider = load_litellm().get_llm_provider(self.model)[1]
            except Exception:  # litellm raises a BadRequestError for names it cannot place
                self._provider = "unknown"
        return self._provider

    @property
    def wants_valid_reply(self) -> bool:
        """Whether this is a scripted model that answers with the benchmark's valid replies (see `register_script`)."""
        script = find_script(self._script) if self._script is not None else None
        return script is not None and script.wants_valid_reply

    def check_api_key(self) -> None:
        """Raise MissingApiKey naming what litellm finds missing (checked once; not for scripted or mocks)."""
        if not self._needs_key_check:
            return
        found = load_litellm().validate_environment(self.model)
        missing = [name for name in found.get("missing_keys") or [] if is_key_variable(name)]
        if missing:
            raise MissingApiKey(
                f"model {self.model} has no API key: set {', '.join(missing)} in the environment "
                "(litellm's list for this provider), or pass api_key in model.params"
            )
        self._needs_key_check = False

    async def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        episode: str | None = None,
        step: int | None = None,
        hints: Mapping[str, Any] | None = None,
    ) -> ModelReply:
        """Answer chat `messages`: from the cache, else by a model call with retries; the ledger counts it.

        `episode` and `step` place the request in a run (its cache key and the metadata a script sees); `hints` is
        more metadata for a scripted model, never part of the key."""
        start = time.perf_counter()
        position = self._position(episode, step)
        params = self._key_params
        if self._script is not None:  # a script's replies are keyed by its version: a changed script is asked anew
            script = find_script(self._script)
            params = {**params, "script": script.version if script is not None else None}
        key = request_hash(self.model, messages, params, position)
        if self.cache is not None:
            hit = await self.cache.aget(key)
            if hit is not None:
                reply = ModelReply(
                    text=mask(hit.text, self._secrets),
                    prompt_tokens=hit.prompt_tokens,
                    completion_tokens=hit.completion_tokens,
                    cost_usd=0.0,
                    cached=True,
                    latency_s=time.perf_counter() - start,
                    request_hash=key,
                    attempts=0,
                    model=self.model,
                    finish_reason=hit.finish_reason,
                    truncated_chars=hit.truncated_chars,
                    earlier_run=hit.earlier_run,
                )
                self.ledger.record(reply, episode)
                return reply
        self.ledger.check()
        self.check_api_key()
        request = {"model": self.model, "messages": messages, **self._params}
        metadata = self._request_metadata(position, hints)
        if metadata:
            request["metadata"] = metadata
        result, attempts = await self._call(request, estimate_prompt_tokens(messages))
        text = mask(result.text, self._secrets)
        cut = len(text) - self.max_reply_chars if self.max_reply_chars else 0
        if cut > 0:
            text = text[: self.max_reply_chars]
        reply = ModelReply(
            text=text,
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
            cost_usd=result.cost_usd,
            cached=False,
            latency_s=time.perf_counter() - start,
            request_hash=key,
            attempts=attempts,
            model=self.model,
            cost_known=result.cost_known,
            finish_reason=result.finish_reason,
            truncated_chars=max(cut, 0),
        )
        if self.cache is not None:
            self.cache.put(key, reply)
        self.ledger.record(reply, episode)
        return reply

    def _position(self, episode: str | None, step: int | None) -> Position | None:
        """Where a request stands in its run: (episode, step, index of this call within the step)."""
        if episode is None:
            return None
        last = self._calls.get(episode)
        call = last[1] + 1 if last is not None and last[0] == step else 0
        self._calls[episode] = (step, call)
        return episode, step, call

    def _request_metadata(self, position: Position | None, hints: Mapping[str, Any] | None) -> dict[str, Any]:
        metadata = self._metadata
        if position is not None:
            metadata = {**metadata, "episode": position[0], "step": position[1], "call": position[2]}
        if hints:
            metadata = {**metadata, **hints}
        return metadata

    async def _call(self, request: dict[str, Any], prompt_estimate: int) -> tuple[CallResult, int]:
        provider, reserved = self.provider, prompt_estimate + self._max_tokens
        try:  # the first attempt skips tenacity's per-attempt bookkeeping: most calls need no retry
            return await self._attempt(request, provider, reserved), 1
        except Exception as exc:
            if not is_model_failure(exc):
                raise
            first: BaseException | None = exc
        attempts, failure = 1, None
        try:
            async for attempt in self.retry.retrying():
                with attempt:
                    if first is not None:  # tenacity judges the first failure: retry it, and after what wait
                        replayed, first = first, None
                        raise replayed
                    attempts += 1
                    result = await self._attempt(request, provider, reserved)
        except Exception as exc:
            if not is_model_failure(exc):
                raise
            failure = exc
        if failure is not None:  # raised outside the handler: no traceback context that could hold a key
            raise model_error(failure, self.model, provider, attempts, self._secrets)
        return result, attempts

    async def _attempt(self, request: dict[str, Any], provider: str, reserved: int) -> CallResult:
        """One attempt, in a model-call worker process where the run has them, else on this loop."""
        await self.limiter.acquire(provider, reserved)
        try:
            if self.workers is not None:
                result = await self.workers.call(request, self._pricing, self._limits)
            else:
                result = await call_litellm(request, self._pricing, self._limits)
        except BaseException:
            self.limiter.record(provider, 0, reserved)
            raise
        self.limiter.record(provider, result.total_tokens, reserved)
        return result
