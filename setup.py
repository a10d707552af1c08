"""Builds the extension kvaddr._core with CMake for `pip install .` (metadata: pyproject.toml).

Only the target kvaddr_python is built, without tests, kernels, proofs or properties, in
setuptools' build_temp folder; the result is copied where setuptools expects the extension.
CMAKE_ARGS (environment) adds configure arguments; KVADDR_BUILD_JOBS sets the parallelism.
"""
import glob
import os
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        os.makedirs(build_dir, exist_ok=True)
        configure = [
            "cmake", "-S", HERE, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
            "-DKVADDR_BUILD_TESTS=OFF", "-DKVADDR_INSTALL=OFF", "-DKVADDR_ENABLE_KERNELS=OFF",
            "-DKVADDR_ENABLE_PROOFS=OFF", "-DKVADDR_ENABLE_PROPS=OFF",
            f"-DPython3_EXECUTABLE={sys.executable}",
        ]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        configure += shlex.split(os.environ.get("CMAKE_ARGS", ""))
        subprocess.run(configure, check=True)
        jobs = os.environ.get("KVADDR_BUILD_JOBS", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", build_dir, "--target", "kvaddr_python", "-j", jobs], check=True)
        built = glob.glob(os.path.join(build_dir, "python", "package", "kvaddr", "_core*.so"))
        if len(built) != 1:
            raise RuntimeError(f"kvaddr: expected one built _core extension, found {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


setup(ext_modules=[CMakeExtension("kvaddr._core")], cmdclass={"build_ext": CMakeBuild})
