"""The run folder: the SQLite store of episodes and metadata, episode traces, the runs directory, infra-failure
summaries. May import `suite.contract`."""
