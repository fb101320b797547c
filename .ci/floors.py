"""Print the dependency floors as pins: each runtime dependency's `>=X` as `NAME==X`.

For the Python running this script, or for `--python X.Y`: a floor may differ by Python
version (an environment marker in pyproject.toml), and exactly one must apply to each
dependency. .ci/run installs these pins into the floors venv; tests/test_packaging.py checks
every Python the classifiers name. Needs `packaging` (pytest's dependency, in the dev venv).
"""

import argparse
import re
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement


def floors(python_version: str) -> list[str]:
    """The pins for `python_version` ("3.13"), in pyproject's order."""
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    with pyproject.open("rb") as stream:
        dependencies = tomllib.load(stream)["project"]["dependencies"]
    pins: dict[str, str] = {}
    for line in dependencies:
        requirement = Requirement(line)
        environment = {"python_version": python_version, "python_full_version": python_version}
        if requirement.marker is not None and not requirement.marker.evaluate(environment):
            continue
        lower = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        if len(lower) != 1:
            sys.exit(f"{line!r}: exactly one `>=` floor expected")
        name = re.sub(r"[-_.]+", "-", requirement.name).lower()
        if name in pins:
            sys.exit(f"{line!r}: a second floor of {name} applies to Python {python_version}")
        pins[name] = f"{requirement.name}=={lower[0]}"
    return list(pins.values())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default="{}.{}".format(*sys.version_info[:2]))
    print("\n".join(floors(parser.parse_args().python)))
