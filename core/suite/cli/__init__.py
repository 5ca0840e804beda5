"""The `suite` command line: argument parsing, shared output helpers, and one module per subcommand. The top of the
core: may import every other group."""
