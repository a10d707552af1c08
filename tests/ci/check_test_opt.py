"""KVADDR_TEST_OPT (cmake/areas.cmake): configure-time checks of the CI legs' -O0 for test sources.

Configures the source tree in WORK (CUDA, proofs/, props/ off: the checks are about the flag, not
those areas) and reads compile_commands.json:
  * -DKVADDR_TEST_OPT=-O0: every source of a test executable (kvaddr_*_tests) ends its command with
    -O0 as the last -O flag; every source of a library keeps the build type's -O2 last;
  * empty (the default): no command carries -O0;
  * -O4 and 'O0' are rejected at configure time with a message naming the value.
usage: check_test_opt.py SOURCE_DIR WORK_DIR CMAKE
"""
import json
import os
import re
import shutil
import subprocess
import sys

BASE = ["-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DKVADDR_DEBUG_INFO=OFF",
        "-DCMAKE_CUDA_COMPILER=NOTFOUND", "-DKVADDR_ENABLE_KERNELS=OFF", "-DKVADDR_ENABLE_PROOFS=OFF",
        "-DKVADDR_ENABLE_PROPS=OFF", "-DKVADDR_INSTALL=OFF"]


def configure(cmake, source, build, opt):
    shutil.rmtree(build, ignore_errors=True)
    return subprocess.run([cmake, "-S", source, "-B", build, *BASE, f"-DKVADDR_TEST_OPT={opt}"],
                          capture_output=True, text=True)


def last_opt(command):
    levels = re.findall(r"(?:^| )(-O[0-3gs])(?= |$)", command)
    return levels[-1] if levels else None


def main():
    source, work, cmake = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    failures = []
    for bad in ("-O4", "O0"):
        got = configure(cmake, source, os.path.join(work, "bad"), bad)
        if got.returncode == 0 or f"KVADDR_TEST_OPT='{bad}'" not in got.stderr:
            failures.append(f"KVADDR_TEST_OPT={bad}: rc {got.returncode}, stderr without the value: {got.stderr[-400:]}")
    for opt, test_level in (("-O0", "-O0"), ("", "-O2")):
        build = os.path.join(work, "opt" + opt)
        got = configure(cmake, source, build, opt)
        if got.returncode != 0:
            failures.append(f"KVADDR_TEST_OPT='{opt}': configure failed: {got.stderr[-400:]}")
            continue
        with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
            commands = json.load(f)
        tests = [c for c in commands if re.search(r"/kvaddr_\w+_tests\.dir/", c["output"] if "output" in c else c["command"])]
        libraries = [c for c in commands if re.search(r"/kvaddr_(model|translate|replay|cli_lib)\.dir/", c["command"])]
        if len(tests) < 10 or len(libraries) < 10:
            failures.append(f"KVADDR_TEST_OPT='{opt}': {len(tests)} test and {len(libraries)} library sources found")
        for c in tests:
            if last_opt(c["command"]) != test_level:
                failures.append(f"KVADDR_TEST_OPT='{opt}': {c['file']} compiles at {last_opt(c['command'])}, want {test_level}")
        for c in libraries:
            if last_opt(c["command"]) != "-O2":
                failures.append(f"KVADDR_TEST_OPT='{opt}': library source {c['file']} compiles at {last_opt(c['command'])}, want -O2")
        at_level = sum(last_opt(c["command"]) == test_level for c in tests)
        at_o2 = sum(last_opt(c["command"]) == "-O2" for c in libraries)
        print(f"KVADDR_TEST_OPT='{opt}': {at_level} of {len(tests)} test sources at {test_level}, "
              f"{at_o2} of {len(libraries)} library sources at -O2")
    for f in failures[:20]:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
