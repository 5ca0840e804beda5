"""Running episodes: the plugin host that dispatches hooks, the core's own registrations, agents, the one episode
loop, outcomes, fail-fast, progress, and the runner that plans, executes and stores a run. May import
`suite.contract`, `suite.models`, `suite.data`, `suite.store` and `suite.report`."""
