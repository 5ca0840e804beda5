"""`import suite.models` stays light: litellm is imported by the first call only."""

from __future__ import annotations

import os
import subprocess
import sys


def test_import_does_not_load_litellm() -> None:
    code = (
        "import sys, os; import suite.models; "
        "assert 'litellm' not in sys.modules and 'openai' not in sys.modules, 'loaded eagerly'; "
        "from suite.models import load_litellm; load_litellm(); "
        "assert os.environ['LITELLM_LOCAL_MODEL_COST_MAP'] == 'True'; print('ok')"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
    assert "cost map" not in result.stderr  # nothing fetched, nothing logged


def test_a_plugin_importing_litellm_itself_never_fetches_the_cost_map() -> None:
    code = (
        "import socket, suite\n"
        "def refuse(*args, **kwargs):\n"
        "    raise SystemExit(f'network lookup: {args[:1]}')\n"
        "socket.getaddrinfo = refuse\n"
        "import litellm\n"
        "print('ok')\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "LITELLM_LOCAL_MODEL_COST_MAP"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
