"""The asgard benchmark plugin."""
