"""The OmniEAR benchmark plugin (hooks are added on top of the simulator in suite_omniear.sim)."""
