"""Default configuration files (YAML), shipped as package data of `suite.configs`."""
