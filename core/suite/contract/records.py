"""The records that flow through an episode: tasks, observations, actions, steps and results."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any

#: The failure taxonomy every plugin reports in (DESIGN.md); infra outcomes are never agent failures.
OUTCOMES = ("success", "agent_failure", "parse_failure", "budget_exhausted", "model_error", "env_error", "timeout")
INFRA_OUTCOMES = ("model_error", "env_error", "timeout")


#: The `Task.meta` key of a task's fold group: tasks that share it (twins with the same text and different answers)
#: are always dealt into the same fold by the learned baselines' cross-fitting, so a learner is never fitted on a
#: twin of a task it scores.
FOLD_GROUP = "group"


@dataclass
class Task:
    """One episode's specification, as a plugin loaded and validated it."""

    benchmark: str
    id: str
    data: dict[str, Any]
    category: str | None = None
    max_steps: int | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """The episode key of this task: unique within a run."""
        return f"{self.benchmark}/{self.id}"


@dataclass
class Image:
    """An image in an observation: PNG bytes in memory, a path once stored."""

    png: bytes | None = None
    path: str | None = None
    label: str = ""

    def to_json(self) -> dict[str, Any]:
        """The trace form: images are stored by reference, never inline."""
        return {"path": self.path, "label": self.label}


@dataclass
class Observation:
    """What the agent perceives: text, images, and structured data a plugin may use in its prompt."""

    text: str = ""
    images: list[Image] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class Action:
    """A parsed action, or a parse failure with its reason (parsing never raises)."""

    value: Any = None
    text: str = ""
    parse_error: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the reply parsed into an executable action."""
        return self.parse_error is None

    @classmethod
    def failure(cls, reason: str, text: str = "") -> Action:
        """A parse failure: recorded as a step with its reason, never executed."""
        return cls(value=None, text=text, parse_error=reason)


@dataclass
class StepResult:
    """What the environment returns for one action."""

    observation: Observation
    feedback: str = ""
    done: bool = False
    info: dict[str, Any] = field(default_factory=dict)
    #: the environment refused the action or it changed nothing (a blocked move, an invalid object): the same
    #: failed action repeated is what `run.repeat_warning` and a stall limit count (an unparsable reply is one too)
    failed: bool = False


@dataclass
class Usage:
    """Tokens, dollars and time of a step's model calls (zeros for agents without a model).

    `prompt_tokens` and `completion_tokens` were spent (the model answered); `cached_*` were served from the
    response cache and cost nothing. `cached`: a reply came from the cache. `truncated_chars`: characters cut
    off replies longer than `model.max_reply_chars`."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cached: bool = False
    latency_s: float = 0.0
    finish_reason: str | None = None  # why the model stopped (the step's last call); None without a model
    truncated: bool = False  # a reply of the step was cut at the token limit (finish_reason `length`)
    cached_prompt_tokens: int = 0
    cached_completion_tokens: int = 0
    truncated_chars: int = 0
    earlier_run_replies: int = 0  # replies served from the cache that an earlier run stored (`--cache`)

    @classmethod
    def of(cls, *replies: Any) -> Usage:
        """The usage of the model replies (`suite.models.ModelReply`) made for one step."""
        if len(replies) == 1:  # the direct agent's every step: one reply, built at once
            r = replies[0]
            (prompt, completion), (cached_prompt, cached_completion) = r.spent_and_cached
            return cls(prompt, completion, r.cost_usd, r.cached, r.latency_s, r.finish_reason, r.truncated,
                       cached_prompt, cached_completion, r.truncated_chars, int(r.earlier_run))
        usage = cls()
        for reply in replies:
            usage.add(reply)
        return usage

    def add(self, reply: Any) -> None:
        """Count one more model reply (`suite.models.ModelReply`) of the step: an agent calling several times."""
        (prompt, completion), (cached_prompt, cached_completion) = reply.spent_and_cached
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        self.cached_prompt_tokens += cached_prompt
        self.cached_completion_tokens += cached_completion
        self.cached = self.cached or reply.cached
        self.cost_usd += reply.cost_usd
        self.latency_s += reply.latency_s
        self.truncated_chars += reply.truncated_chars
        self.earlier_run_replies += reply.earlier_run
        self.finish_reason, self.truncated = reply.finish_reason, self.truncated or reply.truncated


@dataclass
class StepRecord:
    """One step of a trajectory, as appended to the episode's trace."""

    index: int
    action: Action
    reply: str | None = None
    prompt_hash: str | None = None
    prompt: list[dict[str, Any]] | None = None
    feedback: str = ""
    done: bool = False
    info: dict[str, Any] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    agent_s: float = 0.0
    env_s: float = 0.0
    images: list[dict[str, Any]] = field(default_factory=list)
    note: str | None = None
    calls: list[dict[str, Any]] | None = None  # an agent's model calls of this step (AgentTurn.calls)
    #: the canonical JSON text of each message of `prompt` where the loop computed it with the hash (None: not
    #: known), for the trace writer; neither written nor pickled
    prompt_texts: list[str | None] | None = field(default=None, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without `prompt_texts` (a copy of the prompt)."""
        return {**self.__dict__, "prompt_texts": None}

    def to_json(self) -> dict[str, Any]:
        """The JSON form written to the trace file (values by reference: the writer serialises at once; a
        dataclass inside an action's value is written as its fields, as `traces.dumps` does)."""
        data = {name: getattr(self, name) for name in _STEP_FIELDS}
        action, usage = self.action, self.usage
        data["action"] = {"value": action.value, "text": action.text, "parse_error": action.parse_error}
        data["usage"] = {name: getattr(usage, name) for name in _USAGE_FIELDS}
        data["type"] = "step"
        return data


_STEP_FIELDS = tuple(f.name for f in fields(StepRecord) if f.name != "prompt_texts")
_USAGE_FIELDS = tuple(f.name for f in fields(Usage))


@dataclass
class Trajectory:
    """Everything that happened in one episode, in order."""

    task: Task
    initial: Observation | None = None
    steps: list[StepRecord] = field(default_factory=list)
    end_reason: str = "running"
    error: str | None = None
    warnings: list[str] = field(default_factory=list)  # told to the user while it ran (a repeated failed action)

    @property
    def actions(self) -> list[Action]:
        """The actions of every step, parse failures included."""
        return [s.action for s in self.steps]


@dataclass
class Settlement:
    """A plugin's verdict on an episode: outcome, its own failure category, and metrics."""

    outcome: str
    metrics: dict[str, Any] = field(default_factory=dict)
    failure_reason: str | None = None
    category: str | None = None

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise ValueError(f"outcome {self.outcome!r} is not one of {', '.join(OUTCOMES)}")


@dataclass
class EpisodeRecord:
    """The stored result of one finished episode (schema: core/schemas/episode_record.schema.json)."""

    episode_id: str
    benchmark: str
    task_id: str
    task_category: str | None
    agent: str
    model: str | None
    seed: int
    outcome: str
    failure_category: str | None
    failure_reason: str | None
    metrics: dict[str, Any]
    steps: int
    end_reason: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    duration_s: float
    trace: str
    data_source: str
    truncated_steps: int = 0  # steps whose reply was cut at the token limit (finish_reason `length`)
    cached_prompt_tokens: int = 0  # served from the response cache: not spent, not in prompt_tokens
    cached_completion_tokens: int = 0
    earlier_run_replies: int = 0  # replies served from the cache that an earlier run stored (`--cache`)
    placement: dict[str, Any] | None = None  # where a Ray executor ran it: node address and id, GPU ids if any
    warnings: list[str] = field(default_factory=list)  # told to the user while it ran (a repeated failed action)

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in the run database (`placement` and `warnings` only when there are any)."""
        data = asdict(self)
        for name in ("placement", "warnings"):
            if not data[name]:
                del data[name]
        return data


#: `json.dumps(..., sort_keys=True, ensure_ascii=False)`, its encoder made once rather than at every call
_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False)


def canonical(message: dict[str, Any]) -> str:
    """The canonical JSON text of a message (what a trace's message hashes and edits are computed on)."""
    return _CANONICAL.encode(message)


def message_texts(messages: list[dict[str, Any]]) -> list[str] | None:
    """The canonical JSON text of each message, or None when one holds a value JSON has no form for."""
    try:
        return [canonical(message) for message in messages]
    except (TypeError, ValueError):
        return None


def prompt_hash(messages: list[dict[str, Any]], texts: list[str] | None = None) -> str:
    """A stable short hash of a chat prompt (from its messages' `message_texts` when given: the same hash, as
    the JSON of a list is its items' JSON joined)."""
    if texts is not None:
        blob = f"[{', '.join(texts)}]"
    else:
        blob = json.dumps(messages, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:16]
