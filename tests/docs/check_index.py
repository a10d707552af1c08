"""docs/index.md runs as shown: every ```sh line that calls build/kvaddr runs against the built CLI (in a
temporary folder, exit 0 expected), and every ```python snippet runs with the built package on sys.path
(its test_* functions are called). The C++ snippet is compiled by CMake (tests/docs/snippets.cmake).

usage: check_index.py DOCS/INDEX.md PATH/TO/kvaddr      (KVADDR_DOCS_PYTHONPATH: the built package, or empty)
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

# Lines that are not run here, with the reason (each must still appear in the page).
NOT_RUN = {
    "bash scripts/run.sh verify": "the set-up command itself: it builds this tree (CI runs scripts/run.sh test)",
}


def blocks(text, lang):
    return re.findall(r"^```" + lang + r"\n(.*?)^```", text, flags=re.S | re.M)


def run_shell(text, kvaddr):
    ran = 0
    for block in blocks(text, "sh"):
        for line in block.splitlines():
            command = line.split("  #")[0].strip()
            if not command:
                continue
            if command in NOT_RUN:
                print(f"not run: {command} ({NOT_RUN[command]})")
                continue
            words = shlex.split(command)
            if words[0] != "build/kvaddr":
                sys.exit(f"check_index.py: a shell line this test does not know how to run: {line!r}")
            with tempfile.TemporaryDirectory() as cwd:
                p = subprocess.run([kvaddr, *words[1:]], cwd=cwd, capture_output=True, text=True, timeout=120)
                if p.returncode != 0:
                    sys.exit(f"check_index.py: {command!r} exited {p.returncode}\n{p.stdout}{p.stderr}")
                for w, nxt in zip(words, words[1:]):  # a file the line asks for is written
                    if w == "--svg" and not os.path.getsize(os.path.join(cwd, nxt)):
                        sys.exit(f"check_index.py: {command!r} wrote an empty {nxt}")
            print(f"ran: {command}")
            ran += 1
    return ran


def run_python(text, package):
    snippets = blocks(text, "python")
    if not snippets:
        return 0
    if not package:
        print("skipped: the python snippets (the package kvaddr was not built: python3-dev, numpy, pybind11)")
        return 0
    sys.path.insert(0, package)
    for i, code in enumerate(snippets):
        scope = {"__name__": f"index_snippet_{i}"}
        exec(compile(code, f"docs/index.md python snippet {i}", "exec"), scope)
        tests = [f for name, f in scope.items() if name.startswith("test_") and callable(f)]
        for t in tests:
            t()
            print(f"ran: python snippet {i}: {t.__name__}")
    return len(snippets)


def main():
    index, kvaddr = sys.argv[1], os.path.abspath(sys.argv[2])
    with open(index, encoding="utf-8") as f:
        text = f.read()
    for command in NOT_RUN:
        if command not in text:
            sys.exit(f"check_index.py: {command!r} is no longer in {index}: update NOT_RUN")
    shell = run_shell(text, kvaddr)
    python = run_python(text, os.environ.get("KVADDR_DOCS_PYTHONPATH", ""))
    if shell == 0:
        sys.exit("check_index.py: no build/kvaddr line found")
    print(f"docs/index.md: {shell} shell lines and {python} python snippets ran as shown")


if __name__ == "__main__":
    main()
