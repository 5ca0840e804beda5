"""The plugin contract, at the bottom of the core: hook specifications, the records that flow through an episode,
the registry of what plugins declare, error types, settings and JSON Schemas, run configuration, prompt templates,
and text made safe to show. Imports nothing else of `suite`."""
