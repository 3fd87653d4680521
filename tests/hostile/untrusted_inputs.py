"""Inputs for the issue-31 golden cases (tests/hostile/<case>/): what a pull request controls besides manifests, the
settings file and kustomizations, planted as a hostile contributor would (symlinks out of the repository, keys that
say where to write, paths that climb out), and numbers no reader takes. Each takes the case's ``input`` folder; the
work folder (where the case runs, outside the repository ``input``) is its parent."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from hostile_inputs import example

TENANT_B = "TENANT_B_DB_PASSWORD_9f3a: hunter2\nnamespace: tenant-b\n"  # another tenant's settings, never echoed
BIG_KUSTOMIZATION = 3_000_000  # bytes: its size must not leak either
DIGITS = "1" * 4301  # one digit past what Python reads from text
LISTED = ("profile.yaml", "runtime.yaml", "model.yaml", "isvc.yaml")
IN_BASE = {name: f"base/{name}" for name in LISTED}


def _tenant_b(work: Path) -> Path:
    """Another tenant's folder beside the repository, holding a settings file and a large kustomization."""
    other = work / "tenant-b"
    other.mkdir(exist_ok=True)
    (other / "settings.yaml").write_text(TENANT_B, encoding="utf-8")
    filler = "#" * (BIG_KUSTOMIZATION - len(TENANT_B) - 1)
    (other / "kustomization.yaml").write_text(TENANT_B + filler + "\n", encoding="utf-8")
    return other


def with_settings(text: str) -> Callable[[Path], None]:
    """The example with ``text`` as its ``.omerender.yaml``."""

    def make(folder: Path) -> None:
        example(folder)
        (folder / ".omerender.yaml").write_text(text, encoding="utf-8")

    return make


def settings_link(target: str) -> Callable[[Path], None]:
    """The example, its ``.omerender.yaml`` a symlink to ``target`` (relative to the input folder, or absolute)."""

    def make(folder: Path) -> None:
        example(folder)
        _tenant_b(folder.parent)
        os.symlink(target, folder / ".omerender.yaml")

    return make


def lock_through_link(folder: Path) -> None:
    """``lock-file: linked/omerender.lock`` where ``linked`` is a symlink to a folder outside the repository."""
    example(folder)
    (folder.parent / "elsewhere").mkdir()
    os.symlink("../elsewhere", folder / "linked")
    (folder / ".omerender.yaml").write_text("lock-file: linked/omerender.lock\n", encoding="utf-8")


def kustomization_link(at: str, target: str) -> Callable[[Path], None]:
    """The example listed by a kustomization; the kustomization file at ``at`` a symlink to ``target``."""

    def make(folder: Path) -> None:
        example(folder)
        _tenant_b(folder.parent)
        if at != "kustomization.yaml":  # the top one lists the folder that holds the link
            (folder / "kustomization.yaml").write_text(_listing([*LISTED, "sub"]), encoding="utf-8")
            (folder / "sub").mkdir()
        os.symlink(target, folder / at)

    return make


def _listing(resources: list[str] | tuple[str, ...]) -> str:
    return "resources:\n" + "".join(f"  - {r}\n" for r in resources)


def kustomized(files: dict[str, str | list[str]], first: Callable[[Path], None] = example) -> Callable[[Path], None]:
    """The example (or what ``first`` makes), and ``files`` (path -> text, or a list of resources for a kustomization)
    written below it."""

    def make(folder: Path) -> None:
        first(folder)
        for name, body in files.items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body if isinstance(body, str) else _listing(body), encoding="utf-8")

    return make


def moved(names: dict[str, str]) -> Callable[[Path], None]:
    """The example with each file ``name`` moved to ``names[name]`` (a path below the input folder)."""

    def make(folder: Path) -> None:
        example(folder)
        for old, new in names.items():
            (folder / new).parent.mkdir(parents=True, exist_ok=True)
            (folder / old).rename(folder / new)

    return make


def linked_file_out_of_its_folder(folder: Path) -> None:
    """``app/kustomization.yaml`` lists ``link.yaml``, a symlink (inside the inputs) to a file beside ``app``."""
    moved({"isvc.yaml": "app/isvc.yaml"})(folder)
    os.symlink("../runtime.yaml", folder / "app" / "link.yaml")
    (folder / "app" / "kustomization.yaml").write_text(_listing(["isvc.yaml", "link.yaml"]), encoding="utf-8")


def folder_named_like_a_kustomization(folder: Path) -> None:
    example(folder)
    (folder / "kustomization.yaml").mkdir()
    (folder / "kustomization.yaml" / "note.yaml").write_text("# not a kustomization\n", encoding="utf-8")


def over_cap_kustomization(folder: Path) -> None:
    example(folder)
    listing = _listing(LISTED)
    (folder / "kustomization.yaml").write_text(listing + "#" * (2 * 1024 * 1024) + "\n", encoding="utf-8")


def big_integer(name: str, body: str) -> Callable[[Path], None]:
    """The example and the file ``name`` holding ``body`` with DIGITS in place of ``{n}``."""

    def make(folder: Path) -> None:
        example(folder)
        (folder / name).write_text(body.replace("{n}", DIGITS), encoding="utf-8")

    return make


GENERATORS: dict[str, Callable[[Path], None]] = {
    "settings-symlink-out": settings_link("../tenant-b/settings.yaml"),
    "settings-symlink-dangling": settings_link("../tenant-b/no-such-file.yaml"),
    "settings-symlink-proc-environ": settings_link("/proc/self/environ"),
    "settings-report-format-file": with_settings('report-format: [text, "text=../post-comment.sh"]\n'),
    "settings-output-keys": with_settings("report-file: r.txt\nstatus-file: status.yaml\noutput-dir: rendered\n"),
    "settings-paths-outside": with_settings(
        "search-path: [platform, ../..]\nmodel-metadata: ../meta.yaml\ncontroller-config: /etc/hostname\n"
    ),
    "settings-lock-outside": with_settings("lock-file: ../omerender.lock\n"),
    "settings-lock-through-symlink": lock_through_link,
    "settings-control-character": with_settings('namespace: "team\x01a"\n'),
    "settings-integer-4301-digits": with_settings(f"max-errors: {DIGITS}\n"),
    "settings-kube-version-number": with_settings("kube-version: 1.30\n"),
    "report-format-into-input": example,
    "report-format-one-file-twice": example,
    "report-file-and-format-one-file": example,
    "kustomization-symlink-out": kustomization_link("kustomization.yaml", "../tenant-b/kustomization.yaml"),
    "kustomization-symlink-dangling": kustomization_link("kustomization.yaml", "../tenant-b/no-such-file.yaml"),
    "kustomization-sub-symlink-out": kustomization_link("sub/Kustomization", "../../tenant-b/kustomization.yaml"),
    "kustomization-file-twice": kustomized({"kustomization.yaml": [*LISTED, "./isvc.yaml"]}),
    "kustomization-file-out-of-its-folder": kustomized(
        {"app/kustomization.yaml": ["isvc.yaml", "../model.yaml"]}, moved({"isvc.yaml": "app/isvc.yaml"})
    ),
    "kustomization-symlinked-file-out-of-its-folder": linked_file_out_of_its_folder,
    "kustomization-base-folder": kustomized(
        {"base/kustomization.yaml": list(LISTED), "overlay/kustomization.yaml": ["../base"]}, moved(IN_BASE)
    ),
    "kustomization-diamond": kustomized(
        {
            "base/kustomization.yaml": list(LISTED),
            "a/kustomization.yaml": ["../base"],
            "b/kustomization.yaml": ["../base"],
            "kustomization.yaml": ["a", "b"],
        },
        moved(IN_BASE),
    ),
    "kustomization-two-files": kustomized({"kustomization.yaml": list(LISTED), "Kustomization": list(LISTED)}),
    "kustomization-folder-named-like-one": folder_named_like_a_kustomization,
    "kustomization-over-cap": over_cap_kustomization,
    "kustomization-integer-4301-digits": kustomized({"kustomization.yaml": f"resources: [{DIGITS}]\n"}),
    "manifest-integer-4301-digits": big_integer(
        "numbers.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: numbers\ndata:\n  n: {n}\n"
    ),
    "lock-integer-4301-digits": big_integer(
        "omerender.lock", "apiVersion: omerender.io/v1alpha1\nkind: RuntimeLock\nrevisions: {n}\n"
    ),
    "metadata-integer-4301-digits": big_integer("meta.yml.txt", "models:\n  llama-3-2-3b-instruct:\n    x: {n}\n"),
    "controller-config-integer-4301-digits": big_integer(
        "config.yml.txt",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: inferenceservice-config\n  namespace: ome\n"
        "data:\n  deploy: {n}\n",
    ),
}
