"""The set-up script and the ``etsb`` command."""

from __future__ import annotations

import os
import subprocess

from conftest import REPO, VENV

ETSB = VENV / "bin" / "etsb"


def run(*args, **kwargs):
    return subprocess.run(args, capture_output=True, text=True, **kwargs)


def test_etsb_help_and_version():
    from selective_build import __version__

    help_result = run(str(ETSB), "--help")
    assert help_result.returncode == 0
    assert "usage: etsb" in help_result.stdout
    version = run(str(ETSB), "--version")
    assert version.returncode == 0 and version.stdout.strip() == f"etsb {__version__}"


def test_python_module_entry_point_matches_console_script():
    result = run(str(VENV / "bin" / "python"), "-m", "selective_build", "--version")
    assert result.returncode == 0 and result.stdout == run(str(ETSB), "--version").stdout


def test_unknown_subcommand_is_a_usage_error():
    result = run(str(ETSB), "no-such-command")
    assert result.returncode == 2
    assert "unknown command 'no-such-command'" in result.stderr and "Traceback" not in result.stderr


def test_setup_second_run_does_nothing_and_changes_nothing():
    stamps = [VENV / ".etsb-setup-stamp", REPO / ".venv-export" / ".etsb-setup-stamp"]
    before = [(p.read_bytes(), p.stat().st_mtime_ns) for p in stamps]
    result = run("bash", str(REPO / "scripts" / "setup.sh"), "--export-env")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # nothing to do, nothing said
    assert [(p.read_bytes(), p.stat().st_mtime_ns) for p in stamps] == before


def test_setup_rejects_unknown_option():
    result = run("bash", str(REPO / "scripts" / "setup.sh"), "--bogus")
    assert result.returncode != 0
    assert "unknown option '--bogus'" in result.stderr


def test_executorch_runtime_is_installed():
    import executorch

    root = executorch.__path__[0]
    assert os.path.exists(os.path.join(root, "lib", "libexecutorch.so"))
    assert os.path.isdir(os.path.join(root, "include", "executorch", "runtime"))
