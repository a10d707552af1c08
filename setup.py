"""Builds the extension kvaddr._core with CMake for `pip install .` (metadata: pyproject.toml).

Only the CMake target kvaddr_python (the extension and the libraries it links: model, translate,
replay) is built, without tests, proofs or properties; kernels/ and kvaddr._gpu only with
CMAKE_ARGS=-DKVADDR_ENABLE_KERNELS=ON on a machine with nvcc. The build tree lives outside the
source, in a folder of the temporary directory named after the source and the interpreter (a
reinstall rebuilds only what changed; ccache is used when installed). CMake's and ninja's output is
passed through (`pip install -v` shows it). The version is read from CMakeLists.txt
(project(kvaddr VERSION ...)), the one place it is written.
Environment: CMAKE_ARGS adds configure arguments; KVADDR_BUILD_JOBS sets the parallelism;
KVADDR_BUILD_DIR replaces the build folder.
"""
import glob
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


def project_version():
    with open(os.path.join(HERE, "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"project\(\s*kvaddr\s+VERSION\s+([0-9][0-9.]*)", f.read())
    if not m:
        raise RuntimeError("kvaddr: no project(kvaddr VERSION x.y.z) in CMakeLists.txt")
    return m.group(1)


def build_root():
    """setuptools' build folders and CMake's, outside the source tree."""
    if os.environ.get("KVADDR_BUILD_DIR"):
        return os.path.abspath(os.environ["KVADDR_BUILD_DIR"])
    key = hashlib.sha256(f"{HERE}\0{sys.executable}".encode()).hexdigest()[:12]
    return os.path.join(tempfile.gettempdir(), f"kvaddr-pip-build-{key}")


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def configure_args(self, build_dir):
        args = [
            "cmake", "-S", HERE, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
            # -O2 (the level every test of the tree runs at) instead of Release's -O3, and no link-time
            # optimisation (pybind11_add_module's default in Release: it covered module.cpp alone, the
            # libraries are not LTO objects, and redid its code generation serially at the link). The
            # extension's build: see docs/ci.md, fifth round.
            "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG", "-DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF",
            "-DKVADDR_BUILD_TESTS=OFF", "-DKVADDR_INSTALL=OFF", "-DKVADDR_ENABLE_KERNELS=OFF",
            "-DKVADDR_ENABLE_PROOFS=OFF", "-DKVADDR_ENABLE_PROPS=OFF",
            f"-DPython3_EXECUTABLE={sys.executable}",
        ]
        if shutil.which("ninja"):
            args += ["-G", "Ninja"]
        if shutil.which("ccache"):
            args += [f"-DCMAKE_{lang}_COMPILER_LAUNCHER=ccache" for lang in ("C", "CXX", "CUDA")]
        try:  # pybind11 from pip (a user's own venv) carries its CMake package; Debian's is found by CMake
            import pybind11

            args.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
        except ImportError:
            pass
        return args + shlex.split(os.environ.get("CMAKE_ARGS", ""))

    def build_extension(self, ext):
        build_dir = os.path.join(build_root(), "cmake")
        os.makedirs(build_dir, exist_ok=True)
        jobs = os.environ.get("KVADDR_BUILD_JOBS", str(os.cpu_count() or 1))
        for cmd in (self.configure_args(build_dir),
                    ["cmake", "--build", build_dir, "--target", "kvaddr_python", "-j", jobs]):
            print("kvaddr: " + " ".join(shlex.quote(c) for c in cmd), flush=True)
            subprocess.run(cmd, check=True)
        package = os.path.join(build_dir, "python", "package", "kvaddr")
        core = glob.glob(os.path.join(package, "_core*.so"))
        if len(core) != 1:
            raise RuntimeError(f"kvaddr: expected one built _core extension, found {core}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(core[0], target)
        for gpu in glob.glob(os.path.join(package, "_gpu*.so")):  # built with -DKVADDR_ENABLE_KERNELS=ON
            shutil.copyfile(gpu, os.path.join(os.path.dirname(target), os.path.basename(gpu)))


ROOT = build_root()
os.makedirs(ROOT, exist_ok=True)
setup(
    version=project_version(),
    ext_modules=[CMakeExtension("kvaddr._core")],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": os.path.join(ROOT, "setuptools")},
             "egg_info": {"egg_base": ROOT}},
)
