"""Registers the embedded household simulator as an env backend for the AI2-THOR-based benchmarks."""
