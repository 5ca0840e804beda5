"""Hook implementations of the agentvqa benchmark plugin."""
