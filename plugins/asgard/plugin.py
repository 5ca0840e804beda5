"""Hook implementations of the asgard benchmark plugin."""
