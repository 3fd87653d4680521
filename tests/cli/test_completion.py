"""omerender completion: the bash script, sourced in a real bash, completes commands and flags."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent


def _complete(words: list[str]) -> list[str]:
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    script = subprocess.run(
        [str(BIN / "omerender"), "completion", "bash"], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    words_text = " ".join(f'"{w}"' for w in words)
    probe = (
        f"{script}\n"
        f"COMP_WORDS=({words_text}); COMP_CWORD={len(words) - 1}\n"
        "_omerender_completion omerender\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        [bash, "--norc", "-c", probe], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_bash_completes_a_command() -> None:
    assert _complete(["omerender", "bu"]) == ["build"]


def test_bash_completes_a_flag_and_a_format() -> None:
    assert _complete(["omerender", "build", "--output-d"]) == ["--output-dir"]
    assert _complete(["omerender", "status", "-o", "w"]) == ["wide"]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_every_shell_gets_a_script(run_cli, shell: str) -> None:
    done = run_cli("completion", shell)
    assert done.exit_code == 0 and "_OMERENDER_COMPLETE" in done.stdout, done
    assert run_cli("completion", "tcsh").exit_code == 2
