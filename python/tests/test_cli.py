"""python3 -m kvaddr check: the harness from the command line, on the numpy subjects of np_kernels.py."""
import json
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent


def run(*args):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([env.get("PYTHONPATH", ""), str(HERE)])
    return subprocess.run([sys.executable, "-m", "kvaddr", *args], capture_output=True, text=True, env=env, timeout=300)


def test_a_correct_kernel_passes():
    p = run("check", "--route", "token_translate", "np_kernels:translate_v2p", "--cases", "30", "--seed", "1")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("kvaddr.check token_translate (variant production, seed 1, cpu/numpy, reference host): OK: ")
    assert " cases, " in p.stdout and p.stderr == ""


def test_a_planted_kernel_fails_with_the_report(tmp_path):
    p = run("check", "--route", "translate_v2p", f"{HERE / 'np_kernels.py'}:translate_v2p_doc_formula",
            "--cases", "50", "--seed", "1", "--replay-dir", str(tmp_path))
    assert p.returncode == 1, p.stderr
    assert "FAILED at case 0: mismatch" in p.stdout and "behaves like b17_doc_formula" in p.stdout
    assert (tmp_path / "token_translate-seed1-case0" / "manifest.json").is_file()


def test_json_report():
    p = run("check", "--route", "eager_funnel", "np_kernels:eager_funnel_b02", "--cases", "40", "--seed", "1", "--json")
    assert p.returncode == 1
    d = json.loads(p.stdout)
    assert d["route"] == "eager_funnel" and d["ok"] is False
    assert d["failure"]["kind"] == "raised" and d["failure"]["behaves_like"] == ["b02_rank2_index_select"]


def test_usage_errors():
    p = run("check", "--route", "nope", "np_kernels:translate_v2p")
    assert p.returncode == 2 and "route = 'nope'" in p.stderr
    p = run("check", "--route", "token_translate", "no_such_module:f")
    assert p.returncode == 2 and "cannot import no_such_module" in p.stderr
    p = run("check", "--route", "token_translate", "np_kernels:missing")
    assert p.returncode == 2 and "has no attribute missing" in p.stderr
    p = run("check", "--route", "token_translate", "np_kernels")
    assert p.returncode == 2 and "expected MODULE:FUNC" in p.stderr
    p = run("check", "--route", "token_translate", "np_kernels:translate_v2p", "--overflow", "sometimes")
    assert p.returncode == 2 and "overflow = 'sometimes'" in p.stderr
    p = run("check", "np_kernels:translate_v2p")  # --route is required: argparse's own usage error
    assert p.returncode == 2 and "--route" in p.stderr


def _project_version():
    import re

    text = (HERE.parents[1] / "CMakeLists.txt").read_text()
    return re.search(r"project\(kvaddr VERSION ([0-9.]+)", text).group(1)


def test_version_plain_and_json():
    p = run("--version")
    assert (p.returncode, p.stdout, p.stderr) == (0, f"kvaddr {_project_version()}\n", "")
    p = run("--version", "--json")
    assert p.returncode == 0
    assert json.loads(p.stdout) == {"schema": "kvaddr.version/1", "version": _project_version()}


def test_check_json_carries_its_schema():
    p = run("check", "--route", "token_translate", "np_kernels:translate_v2p", "--cases", "5", "--seed", "1", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["schema"] == "kvaddr.check/1" and d["ok"] is True


def test_no_command_is_a_usage_error():
    p = run()
    assert p.returncode == 2 and "a command is required (check), or --version" in p.stderr


def _error(p):
    """The one kvaddr.error/1 document of a failed --json run (exit 2, nothing on stderr)."""
    assert (p.returncode, p.stderr) == (2, ""), p.stderr
    assert p.stdout.count("\n") == 1
    d = json.loads(p.stdout)
    assert d["schema"] == "kvaddr.error/1" and d["ok"] is False
    return d["error"]


def test_every_error_under_json_is_an_error_document():
    e = _error(run("check", "--route", "nope", "np_kernels:translate_v2p", "--json"))
    assert (e["kind"], e["argument"], e["value"]) == ("invalid_argument", "route", "'nope'")
    assert e["message"].startswith("route = 'nope': the harness supports ")
    e = _error(run("check", "--route", "token_translate", "no_such_module:f", "--json"))
    assert (e["kind"], e["argument"], e["value"]) == ("invalid_argument", "kernel", "'no_such_module:f'")
    assert "cannot import no_such_module" in e["message"]
    e = _error(run("check", "--route", "token_translate", "np_kernels:translate_v2p", "--cases", "0", "--json"))
    assert (e["kind"], e["argument"], e["value"]) == ("invalid_argument", "cases", "0")
    e = _error(run("check", "--route", "token_translate", "np_kernels:translate_v2p", "--shard", "1of2", "--json"))
    assert (e["argument"], e["value"]) == ("shard", "'1of2'")
    e = _error(run("check", "--route", "token_translate", "np_kernels:translate_v2p", "--device", "tpu",
                   "--merge-json"))
    assert (e["argument"], e["value"]) == ("device", "'tpu'")
    e = _error(run("check", "np_kernels:translate_v2p", "--json"))  # --route missing: argparse's usage error
    assert e["kind"] == "usage" and "--route" in e["message"] and "argument" not in e
    e = _error(run("check", "--route", "token_translate", "np_kernels:translate_v2p", "--no-such-option", "--json"))
    assert e["kind"] == "usage" and "--no-such-option" in e["message"]
    # Without --json the same errors stay text on stderr.
    p = run("check", "--route", "nope", "np_kernels:translate_v2p")
    assert (p.returncode, p.stdout) == (2, "") and p.stderr.startswith("python3 -m kvaddr check: route = 'nope'")
