"""The install line of docs/python.md ("Install", Debian 12) runs verbatim in a clean venv (issue 31).

A copy of the tracked source (under WORK) gets the line run in it by bash, with `python3` the
interpreter Debian's packages belong to (PYTHON, first on PATH). Then: the venv imports kvaddr with the
version of CMakeLists.txt, translates docs/index.md's example, `python -m kvaddr --version` works, and
the copy holds no new file but the venv (no build tree in the source). The build folder of setup.py
stays in the temporary directory between runs, so a rerun rebuilds only what changed.
Exit 77 (ctest: skipped) with a message when python3-venv is absent.

usage: check_pip_install.py SOURCE_DIR WORK_DIR PYTHON
"""
import os
import re
import shutil
import subprocess
import sys

SKIP = 77


def install_line(source):
    with open(os.path.join(source, "docs", "python.md"), encoding="utf-8") as f:
        text = f.read()
    section = text.split("\n## Install", 1)[1].split("\n## ", 1)[0]
    lines = [l.strip() for block in re.findall(r"```sh\n(.*?)```", section, flags=re.S) for l in block.splitlines()]
    debian = [l for l in lines if l.startswith("python3 -m venv")]
    if len(debian) != 1:
        sys.exit(f"check_pip_install.py: expected one 'python3 -m venv ...' line in docs/python.md's Install, got {debian}")
    return debian[0]


def tracked_files(source):
    try:
        out = subprocess.run(["git", "-C", source, "ls-files", "-z"], capture_output=True, check=True).stdout
        return [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for root, dirs, names in os.walk(source):
            dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
            files += [os.path.relpath(os.path.join(root, n), source) for n in names]
        return files


def listing(root):
    found = set()
    for base, dirs, names in os.walk(root):
        rel = os.path.relpath(base, root)
        if rel.split(os.sep)[0] == ".venv":
            continue
        found |= {os.path.normpath(os.path.join(rel, n)) for n in names + dirs}
    return found


def main():
    source, work, python = (os.path.abspath(a) for a in sys.argv[1:4])
    if subprocess.run([python, "-c", "import ensurepip, venv"], capture_output=True).returncode != 0:
        print(f"skipped: {python} has no venv/ensurepip (Debian: apt-get install python3-venv)")
        return SKIP
    line = install_line(source)
    copy = os.path.join(work, "src")
    shutil.rmtree(copy, ignore_errors=True)
    for rel in tracked_files(source):
        src, dst = os.path.join(source, rel), os.path.join(copy, rel)
        if os.path.isfile(src):
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(src, dst)  # modification times kept: an unchanged file is not rebuilt
    before = listing(copy)
    env = dict(os.environ, PATH=os.path.dirname(python) + os.pathsep + os.environ.get("PATH", ""))
    env.pop("PYTHONPATH", None)
    print(f"running in {copy}: {line}", flush=True)
    if subprocess.run(["bash", "-c", line], cwd=copy, env=env).returncode != 0:
        sys.exit(f"check_pip_install.py: the install line failed: {line}")
    venv_python = os.path.join(copy, ".venv", "bin", "python")
    with open(os.path.join(source, "CMakeLists.txt"), encoding="utf-8") as f:
        version = re.search(r"project\(kvaddr VERSION ([0-9.]+)", f.read()).group(1)
    probe = ("import kvaddr, numpy as np; "
             "print(kvaddr.__version__, list(kvaddr.token_translate(np.array([5, 9, 13, -1]), "
             "np.array([0, 5, -1, 2, -1]), page_size=4, multiplier=3)))")
    got = subprocess.run([venv_python, "-c", probe], cwd=work, capture_output=True, text=True, env=env)
    want = f"{version} [61, 0, 25, 0]"
    if got.stdout.strip() != want:
        sys.exit(f"check_pip_install.py: the venv's kvaddr printed {got.stdout.strip()!r} (want {want!r})\n{got.stderr}")
    cli = subprocess.run([venv_python, "-m", "kvaddr", "--version"], cwd=work, capture_output=True, text=True, env=env)
    if cli.stdout != f"kvaddr {version}\n":
        sys.exit(f"check_pip_install.py: python -m kvaddr --version printed {cli.stdout!r}\n{cli.stderr}")
    new = sorted(listing(copy) - before - {".venv"})
    if new:
        sys.exit(f"check_pip_install.py: the install left files in the source tree: {new[:20]}")
    print(f"docs/python.md install line: kvaddr {version} installed and imported; no file left in the source")
    return 0


if __name__ == "__main__":
    sys.exit(main())
