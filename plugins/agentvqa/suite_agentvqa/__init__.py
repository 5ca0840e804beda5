"""The agentvqa benchmark plugin."""
