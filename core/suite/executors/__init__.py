"""Executors run a run's episodes: `local` (one process, asyncio) and `ray` (simulators as actors)."""
