"""Maps the import packages onto the repository layout (see DESIGN.md: `suite` is the folder core/)."""

from pathlib import Path

from setuptools import find_packages, setup

ROOTS = {
    "suite": "core",
    "suite.configs": "configs",
    "suite_omniear": "plugins/omniear",
    "suite_household": "plugins/household",
    "suite_asgard": "plugins/asgard",
    "suite_agentvqa": "plugins/agentvqa",
    "suite_longact": "plugins/longact",
    "suite_vigil": "plugins/vigil",
}
DATA = ["*.json", "*.yaml", "*.csv", "*.txt", "*.md", "*.jsonl", "*.png", "*.js", "*.css", "*.html"]

packages: list[str] = []
package_dir: dict[str, str] = {}
for name, path in ROOTS.items():
    package_dir[name] = path
    packages.append(name)
    packages += [f"{name}.{sub}" for sub in find_packages(path) if Path(path, *sub.split(".")).is_dir()]

setup(packages=packages, package_dir=package_dir, package_data={"": DATA + ["**/*.json", "**/*.txt"]})
