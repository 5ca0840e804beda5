"""A template benchmark plugin for embodied-suite: reach a target number by stepping +1 / -1."""

__version__ = "0.1.0"
