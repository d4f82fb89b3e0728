"""The wheel carries the shipped models and the code that loads them, not the code that trains
them: of models/, only the modules in RUNTIME are installed (as mjcam.models)."""

from setuptools import setup
from setuptools.command.build_py import build_py

RUNTIME = {"__init__", "registry"}


class RuntimeOnly(build_py):
    def find_package_modules(self, package, package_dir):
        found = super().find_package_modules(package, package_dir)
        if package == "mjcam.models":
            found = [m for m in found if m[1] in RUNTIME]
        return found


setup(cmdclass={"build_py": RuntimeOnly})
