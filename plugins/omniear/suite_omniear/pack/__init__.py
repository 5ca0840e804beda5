"""The generated OmniEAR pack: our own seeded scenes, tasks and attribute-action table (see generate.py)."""
