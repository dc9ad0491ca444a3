"""scripts/debian_mirror.sh, which gives scripts/bazel7.sh's debootstrap the
Debian mirror of the machine's apt sources (no mirror is written in the
scripts): both of apt's formats, read from sample files in a temporary
folder by the shell function itself."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import REPO

SCRIPT = REPO / "scripts" / "debian_mirror.sh"

SECURITY = """\
Types: deb
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main
"""
DEB822 = """\
# The machine's archive, after two stanzas that are not it.
Types: deb
URIs: http://off.example/debian
Suites: bookworm
Components: main
Enabled: no

Types: deb-src
URIs: http://sources.example/debian
Suites: bookworm
Components: main

types: deb deb-src
uris: http://elsewhere.example/apt https://mirror.example/pub/debian/
suites: bookworm bookworm-updates
components: main
"""
ONE_LINE = """\
# deb http://commented.example/debian bookworm main
deb-src http://sources.example/debian bookworm main
deb http://mirror.example/debian-security bookworm-security main
deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://one-line.example/debian bookworm main
"""
NOT_DEBIAN = """\
Types: deb
URIs: https://packages.example/node_20.x
Suites: nodistro
Components: main
"""


def mirror(apt: Path) -> subprocess.CompletedProcess:
    """`debian_mirror APT` run by bash with the script sourced, as bazel7.sh runs it (set -euo pipefail)."""
    return subprocess.run(["bash", "-c", 'set -euo pipefail; source "$0"; debian_mirror "$1"', str(SCRIPT), str(apt)],
                          capture_output=True, text=True)


def apt_dir(root: Path, files: dict[str, str]) -> Path:
    (root / "sources.list.d").mkdir(parents=True)
    for name, text in files.items():
        (root / name).write_text(text)
    return root


def test_deb822_sources_give_the_first_enabled_binary_debian_archive(tmp_path):
    apt = apt_dir(tmp_path, {"sources.list.d/a-security.sources": SECURITY, "sources.list.d/debian.sources": DEB822,
                             "sources.list.d/nodesource.sources.disabled": ONE_LINE})
    result = mirror(apt)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "https://mirror.example/pub/debian\n"


def test_one_line_sources_skip_comments_and_options(tmp_path):
    apt = apt_dir(tmp_path, {"sources.list": ONE_LINE})
    assert mirror(apt).stdout == "http://one-line.example/debian\n"
    apt = apt_dir(tmp_path / "in_a_list_file", {"sources.list.d/debian.list": ONE_LINE})
    assert mirror(apt).stdout == "http://one-line.example/debian\n"


def test_with_both_formats_sources_list_comes_first(tmp_path):
    apt = apt_dir(tmp_path, {"sources.list": ONE_LINE, "sources.list.d/debian.sources": DEB822})
    assert mirror(apt).stdout == "http://one-line.example/debian\n"


def test_no_debian_archive_is_a_clear_error(tmp_path):
    for case, files in {"nothing": {}, "other archives only": {"sources.list.d/node.sources": NOT_DEBIAN,
                                                               "sources.list.d/security.sources": SECURITY}}.items():
        apt = apt_dir(tmp_path / case.replace(" ", "_"), files)
        result = mirror(apt)
        assert result.returncode == 1 and result.stdout == "", case
        assert result.stderr == (
            f"no Debian archive in apt's sources ({apt}/sources.list, {apt}/sources.list.d/*.list or *.sources: "
            "a 'deb' source whose URI ends in /debian); set ETSB_DEBIAN_MIRROR to a Debian mirror's URL\n"), case
