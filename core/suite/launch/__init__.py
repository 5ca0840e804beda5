"""Starting a run as the CLI and the Python API do: compose the config, check settings, extras and vision, build the
model client, start or resume a session, execute it with the configured executor, and replay a run. May import
everything below it: `suite.contract` up to `suite.executors`."""
