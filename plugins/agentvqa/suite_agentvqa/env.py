"""The episode of one question: no simulator, just the question and its media, asked once per option order."""

from __future__ import annotations

from suite.contract.records import Observation, StepResult, Task

from suite_agentvqa.data import Question
from suite_agentvqa.media import load_media, native_video
from suite_agentvqa.prompting import question_text


class QuestionEnv:
    """Holds a question's media; each answer is recorded and the episode ends once every order was answered.

    The order asked at step i is `task.data["orders"][i]` (build_prompt and settle index it by step, so a reply
    that does not parse still uses up its order)."""

    def __init__(self, task: Task, num_frames: int, video_mode: str = "frames") -> None:
        self.task = task
        self.question: Question = task.data["question"]
        self.num_frames = num_frames
        self.video_mode = video_mode
        self.answered = 0
        self.observation = Observation()

    def reset(self) -> Observation:
        """Load the media (PNG at native size; videos sampled to `num_frames`, or in native mode the video file
        itself, named in `data["video"]`); the text is the question as filed."""
        video = native_video(self.question) if self.video_mode == "native" else None
        order = tuple(range(len(self.question.options)))
        prompt = self.task.data["prompt"]
        text = question_text(self.question, order, prompt.get("prompt_dir"), native=bool(video),
                             history=prompt.get("history", True) is not False)
        if video:
            data = {"video": {"path": str(video[0]), "mime": video[1]}}
            self.observation = Observation(text=text, data=data)
        else:
            self.observation = Observation(text=text, images=load_media(self.question, self.num_frames))
        return self.observation

    def step(self, letter: str) -> StepResult:
        """Record an answer; the same observation (same images, stored once) comes back for the next order."""
        self.answered += 1
        done = self.answered >= len(self.task.data["orders"])
        return StepResult(self.observation, feedback=f"answer {letter} recorded", done=done)

    def close(self) -> None:
        """Nothing to release."""
