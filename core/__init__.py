"""embodied-suite: run embodied-agent benchmarks against any model and compare them in one table."""

__version__ = "0.1.0"
