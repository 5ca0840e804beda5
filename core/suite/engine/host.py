"""Builds the plugin manager from entry points and dispatches benchmark hooks to their owners."""

from __future__ import annotations

import difflib
import importlib
import importlib.metadata
import os
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pluggy
from omegaconf import DictConfig

from suite.contract import config as configmod
from suite.contract import hookspecs
from suite.contract.errors import PluginError
from suite.contract.registry import BenchmarkSpec, Registry
from suite.contract.settings import check_schema
from suite.engine import builtin

ENTRY_POINT_GROUP = "suite.plugins"
DISABLE_ENV = "SUITE_DISABLED_PLUGINS"
MODULES_ENV = "SUITE_PLUGIN_MODULES"
CORE_PLUGIN = "core"


@dataclass
class PluginInfo:
    """What `suite plugins` lists for one plugin."""

    name: str
    version: str
    benchmarks: list[str]
    hooks: list[str]


class PluginHost:
    """The plugin manager plus what the plugins registered; the only global state of the suite."""

    def __init__(self, pm: pluggy.PluginManager) -> None:
        self.pm = pm
        self.registry = Registry()
        self._callers: dict[tuple[str, str], Any] = {}
        for name, plugin in pm.list_name_plugin():
            if plugin is None:
                continue
            self.registry.current_plugin = name
            pm.subset_hook_caller("register", self._others(plugin))(registry=self.registry)
        self.registry.current_plugin = ""
        for spec in self.registry.benchmarks.values():
            self._check_benchmark(spec)

    def _others(self, plugin: object) -> list[object]:
        return [p for _, p in self.pm.list_name_plugin() if p is not None and p is not plugin]

    def _check_benchmark(self, spec: BenchmarkSpec) -> None:
        plugin = self.pm.get_plugin(spec.plugin)
        missing = [h for h in hookspecs.BENCHMARK_HOOKS if not _implements(self.pm, plugin, h)]
        if missing:
            raise PluginError(
                f"plugin {spec.plugin!r} declares benchmark {spec.name!r} but does not implement {', '.join(missing)}"
            )
        if spec.config_schema is not None:
            check_schema(spec.name, spec.config_schema)

    def benchmark(self, name: str) -> BenchmarkSpec:
        """The declared benchmark `name`, or a PluginError listing the installed ones."""
        try:
            return self.registry.benchmarks[name]
        except KeyError:
            raise PluginError(_unknown("benchmark", name, sorted(self.registry.benchmarks))) from None

    def benchmarks_of(self, plugin: str) -> list[str]:
        """The benchmarks a plugin declared, or a PluginError listing the installed plugins."""
        if self.pm.get_plugin(plugin) is None:
            raise PluginError(_unknown("plugin", plugin, self.plugin_names()))
        return [b.name for b in self.registry.benchmarks.values() if b.plugin == plugin]

    def no_benchmark(self, plugin: str) -> str:
        """Why `plugin` cannot be run: it declares no benchmark; what it provides instead, and what can be run."""
        registry, parts = self.registry, []
        backends = sorted(b for b, owner in registry.env_backend_plugins.items() if owner == plugin)
        if backends:
            parts.append(f"the simulator backend(s) {', '.join(backends)}, which benchmarks use through their "
                         "env.backend setting")
        agents = sorted({a.name for a in registry.agents.values() if a.plugin == plugin})
        if agents:
            parts.append(f"the agent(s) {', '.join(agents)} (--agent)")
        provides = f"; it provides {' and '.join(parts)}" if parts else ""
        return (f"plugin {plugin!r} is not a benchmark (it declares none){provides}; "
                f"benchmarks to run: {', '.join(sorted(registry.benchmarks)) or 'none installed'}")

    def call(self, hook: str, benchmark: str, **kwargs: Any) -> Any:
        """Call a benchmark hook on the plugin that owns `benchmark` and return its result."""
        caller = self._callers.get((benchmark, hook))
        if caller is None:
            caller = self._callers[(benchmark, hook)] = self._owner_caller(hook, benchmark)
        return caller(benchmark=benchmark, **kwargs)

    def _owner_caller(self, hook: str, benchmark: str) -> Any:
        """How `call` reaches `hook` on the owner of `benchmark`: its one implementation called as pluggy would
        (the arguments it names, in order; a first-result hook's one result), without pluggy's per-call work, which
        the per-step hooks would pay every step; pluggy's subset caller where the owner has wrappers."""
        owner = self.pm.get_plugin(self.benchmark(benchmark).plugin)
        subset = self.pm.subset_hook_caller(hook, self._others(owner))
        impls = subset.get_hookimpls()
        firstresult = subset.spec is not None and subset.spec.opts.get("firstresult", False)
        if len(impls) != 1 or not firstresult or impls[0].hookwrapper or impls[0].wrapper:
            return subset
        function, argnames = impls[0].function, impls[0].argnames

        def direct(**kwargs: Any) -> Any:
            try:
                args = [kwargs[name] for name in argnames]
            except KeyError as exc:
                raise pluggy.HookCallError(f"hook call must provide argument {exc.args[0]!r}") from None
            return function(*args)

        return direct

    def broadcast(self, hook: str, **kwargs: Any) -> list[Any]:
        """Call a lifecycle hook on every plugin."""
        return getattr(self.pm.hook, hook)(**kwargs)

    def plugin_names(self) -> list[str]:
        """Names of the registered (not blocked) plugins."""
        return sorted(n for n, p in self.pm.list_name_plugin() if p is not None)

    def plugin_info(self) -> list[PluginInfo]:
        """Name, version, benchmarks and implemented hooks of every plugin."""
        versions = {self.pm.get_name(p): d.version for p, d in self.pm.list_plugin_distinfo()}
        infos = []
        for name in self.plugin_names():
            plugin = self.pm.get_plugin(name)
            hooks = [h.name for h in self.pm.get_hookcallers(plugin) or []]
            version = getattr(plugin, "__version__", None) or versions.get(name) or _own_version(name)
            infos.append(PluginInfo(name, version, self.benchmarks_of(name), sorted(hooks)))
        return infos

    def plugin_version(self, name: str) -> str:
        """The version of one plugin."""
        return next((i.version for i in self.plugin_info() if i.name == name), "unknown")


def _own_version(name: str) -> str:
    """The core's version for the core's own registrations; `unknown` for a plugin module that says none."""
    if name == CORE_PLUGIN:
        import suite

        return suite.__version__
    return "unknown"


def _implements(pm: pluggy.PluginManager, plugin: object, hook: str) -> bool:
    return any(impl.plugin is plugin for impl in getattr(pm.hook, hook).get_hookimpls())


def _unknown(kind: str, name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown {kind} {name!r}{hint}; installed: {', '.join(known) or 'none'}"


def disabled_plugins() -> set[str]:
    """Plugin names blocked through SUITE_DISABLED_PLUGINS=a,b."""
    return {n.strip() for n in os.environ.get(DISABLE_ENV, "").split(",") if n.strip()}


def modules_from_env() -> dict[str, ModuleType | object]:
    """Extra plugins named in SUITE_PLUGIN_MODULES=name=module,... (for developing a plugin in place); as in an entry
    point, `name=module:attribute` names an object of the module (a plugin instance)."""
    found: dict[str, ModuleType | object] = {}
    for item in os.environ.get(MODULES_ENV, "").split(","):
        if item.strip():
            name, _, target = item.strip().partition("=")
            module, _, attribute = (target or name).partition(":")
            found[name] = importlib.import_module(module)
            if attribute:
                found[name] = getattr(found[name], attribute)
    return found


def build_host(extra: dict[str, ModuleType | object] | None = None, entry_points: bool = True) -> PluginHost:
    """Load plugins from the `suite.plugins` entry points (plus `extra`) and check every hook name."""
    extra = {**modules_from_env(), **(extra or {})}
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    pm.register(builtin, name=CORE_PLUGIN)
    for name in disabled_plugins():
        pm.set_blocked(name)
    try:
        if entry_points:
            pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
        for name, plugin in extra.items():
            if not pm.is_blocked(name) and pm.get_plugin(name) is None:
                pm.register(plugin, name=name)
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        raise PluginError(f"invalid plugin: {exc}") from None
    except (ImportError, importlib.metadata.PackageNotFoundError) as exc:
        raise PluginError(f"a plugin failed to import: {exc}") from None
    return PluginHost(pm)


def default_config(benchmarks: list[str], host: PluginHost | None = None) -> DictConfig:
    """The default config of `benchmarks`: the core's sections plus each one's section as its plugin ships it (the
    plugins of `host`, else those installed)."""
    if benchmarks and host is None:
        host = build_host()
    return configmod.defaults(benchmarks, host.registry if host is not None else None)


@dataclass(frozen=True)
class ModuleHost:
    """Just enough of a plugin host to play one plugin's episodes in this process (a pack generator's oracle, a
    learned baseline's fit): each hook is the plugin module's function of that name, no plugin manager loaded."""

    module: ModuleType

    def call(self, hook: str, benchmark: str, **kwargs: Any) -> Any:
        """The module's hook function, called with the benchmark and the hook's arguments."""
        return getattr(self.module, hook)(benchmark, **kwargs)
