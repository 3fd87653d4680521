"""Inputs for the issue-22 golden cases (tests/hostile/<case>/): symlinks where omerender writes, leftovers
of killed runs, deep JSON, hostile file names and keys. Each takes the case's ``input`` folder; the work
folder (where the case runs) is its parent."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from hostile_inputs import edit, example

SECRET = "not for the output folder\n"


def _secret(work: Path) -> Path:
    (work / "secret").mkdir()
    (work / "secret" / "id_rsa").write_text(SECRET, encoding="utf-8")
    return work / "secret"


def link_at(name: str) -> Callable[[Path], None]:
    """The example, and ``name`` (beside the output folder ``rendered``) a symlink to a folder with a secret."""

    def make(folder: Path) -> None:
        example(folder)
        _secret(folder.parent)
        os.symlink("secret", folder.parent / name)

    return make


def report_link(folder: Path) -> None:
    example(folder)
    _secret(folder.parent)
    os.symlink("secret/id_rsa", folder.parent / "report.txt")


def lock_leftover(folder: Path) -> None:
    """What a killed ``lock`` left beside the lock file."""
    example(folder)
    (folder.parent / ".omerender.lock.k1ll3d_x.tmp").write_text("half a lock\n", encoding="utf-8")


def leftovers(folder: Path) -> None:
    """What a killed ``build --report-file`` left, and the lock file an older version kept beside the folder."""
    example(folder)
    (folder.parent / ".report.txt.abcd1234.tmp").write_text("half a report\n", encoding="utf-8")
    (folder.parent / ".rendered.omerender-lock").write_bytes(b"")


def _config_map(deploy: str) -> str:
    return (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: inferenceservice-config\n  namespace: ome\n"
        f"data:\n  deploy: '{deploy}'\n"
    )


def deep_controller_json(folder: Path) -> None:
    example(folder)
    (folder / "config.yaml").write_text(_config_map('{"a":' * 1000 + "1" + "}" * 1000), encoding="utf-8")


def deep_argocd_parameters(folder: Path) -> None:
    example(folder)


def command_file_name(folder: Path) -> None:
    """A file whose name starts a GitHub workflow command, named first on the command line."""
    (folder.parent / "::stop-commands::tok.yaml").write_text("kind: ConfigMap\n", encoding="utf-8")


def old_command_file_name(folder: Path) -> None:
    """A file whose name holds the older spelling of a workflow command, which the runner reads mid-line."""
    (folder.parent / "a##[stop-commands]tok.yaml").write_text("kind: ConfigMap\n", encoding="utf-8")


def big_annotations(folder: Path) -> None:
    example(folder)
    path = folder / "runtime.yaml"
    text = path.read_text(encoding="utf-8")
    filler = "".join(f"    example.com/note-{n}: {'x' * 1000}\n" for n in range(263))
    path.write_text(text.replace("  annotations:\n", "  annotations:\n" + filler, 1), encoding="utf-8")


BAD_KEYS = (
    "  labels:\n"
    '    "bad key!": v\n'
    "    a/b/c: x\n"
    "    Example.com/team: web\n"
    "    ok.example.com/" + "n" * 64 + ": x\n"
    "    good.example.com/app_name-1: y\n"
    "  annotations:\n"
    '    "/x": y\n'
    "    Example.com/Mixed-Case: fine\n"
)

GENERATORS: dict[str, Callable[[Path], None]] = {
    "output-dir-symlink": link_at("rendered"),
    "output-dir-old-symlink": link_at(".rendered.old"),
    "output-dir-stage-symlink": link_at(".rendered.stage"),
    "output-dir-symlink-check": link_at("rendered"),
    "report-file-symlink": report_link,
    "leftovers-removed": leftovers,
    "lock-temp-leftover": lock_leftover,
    "controller-config-deep-json": deep_controller_json,
    "argocd-parameters-deep-json": deep_argocd_parameters,
    "github-actions-command-file-name": command_file_name,
    "github-actions-old-command-file-name": old_command_file_name,
    "effective-unknown-field": edit("profile.yaml", "      image:", "      imagee:"),
    "label-key-invalid": edit("runtime.yaml", "  annotations:\n", BAD_KEYS),
    "annotations-over-256k": big_annotations,
}
