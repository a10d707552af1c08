"""docs/harness.md shows what kvaddr.check prints for a kernel without the max_pages bound: its example is the
text this tree prints for the command written next to it (regenerate the block from that command when the
report changes)."""
import pathlib
import re
import textwrap

import kvaddr
import np_kernels as K

HARNESS_MD = pathlib.Path(__file__).resolve().parents[2] / "docs" / "harness.md"


def documented_example():
    text = HARNESS_MD.read_text()
    at = text.index("4. Read a failure.")
    command = re.search(r"`(kvaddr\.check\(\"read_table\", np_kernels\.read_table_no_bound, [^`]*)`", text[at:])
    block = re.search(r"^   ```\n(.*?)^   ```$", text[at:], flags=re.S | re.M)
    assert command and block, "docs/harness.md: step 4 lost its command or its example block"
    return command.group(1), textwrap.dedent(block.group(1)).rstrip("\n")


def test_read_failure_example_is_what_the_command_prints(tmp_path, monkeypatch):
    command, shown = documented_example()
    assert command == 'kvaddr.check("read_table", np_kernels.read_table_no_bound, seed=2, replay_dir="kvaddr-failures")'
    monkeypatch.chdir(tmp_path)  # the replay directory is relative, as in the page
    report = kvaddr.check("read_table", K.read_table_no_bound, seed=2, replay_dir="kvaddr-failures")
    assert str(report).rstrip("\n") == shown
    assert (tmp_path / "kvaddr-failures" / "read_table-seed2-case11" / "manifest.json").is_file()
