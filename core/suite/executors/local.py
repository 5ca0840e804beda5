"""The default executor: many episodes concurrently in one process."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from suite.contract.records import Task

if TYPE_CHECKING:
    from suite.engine.runner import RunSession


class LocalExecutor:
    """Async model calls, simulator steps in worker threads, `run.concurrency` episodes in flight."""

    async def run(self, session: RunSession, tasks: list[Task]) -> str:
        """Run every task; returns `complete`, or `stopped` when the cost budget ran out or a stop cause was found."""
        limit = asyncio.Semaphore(max(1, int(session.cfg.run.concurrency)))
        stopped = asyncio.Event()

        async def one(task: Task) -> None:
            async with limit:
                if stopped.is_set() or session.stop_cause:
                    return
                if await session.run_local(task) is None:
                    stopped.set()

        await asyncio.gather(*(one(t) for t in tasks))
        return "stopped" if stopped.is_set() or session.stop_cause else "complete"
