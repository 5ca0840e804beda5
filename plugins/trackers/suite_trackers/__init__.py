"""Experiment trackers for embodied-suite: Weights & Biases (`wandb_tracker`) and MLflow (`mlflow_tracker`), each a
plugin on the public lifecycle hooks only (`tracker` holds what they share), switched on by `run.trackers`."""

__version__ = "0.1.0"
