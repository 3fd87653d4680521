"""Inputs for the issue-10 golden cases (tests/hostile/<case>/) that cannot be committed as files:
special files, symlinks, big or generated text. Each takes the case's ``input`` folder."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import hostile as bench  # noqa: E402 - the bench's generators are the acceptance inputs

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "llama-demo"


def example(folder: Path) -> None:
    for path in EXAMPLE.glob("*.yaml"):
        shutil.copy(path, folder / path.name)


def edit(name: str, old: str, new: str) -> Callable[[Path], None]:
    """The example with one text replaced in one of its files."""

    def make(folder: Path) -> None:
        example(folder)
        path = folder / name
        text = path.read_text(encoding="utf-8")
        assert old in text, (name, old)
        path.write_text(text.replace(old, new, 1), encoding="utf-8")

    return make


def with_lock(text: str) -> Callable[[Path], None]:
    def make(folder: Path) -> None:
        example(folder)
        (folder / "omerender.lock").write_text(text, encoding="utf-8")

    return make


def lock_laughs(folder: Path) -> None:
    bench.lock_laughs(folder, 1)


def lock_symlink_outside(folder: Path) -> None:
    example(folder)
    outside = folder.parent / "elsewhere.lock"
    outside.write_text("apiVersion: omerender.io/v1alpha1\nkind: RuntimeLock\n", encoding="utf-8")
    os.symlink(outside, folder / "omerender.lock")


def lock_fifo(folder: Path) -> None:
    example(folder)
    os.mkfifo(folder / "pipe.lock")


def metadata_fifo(folder: Path) -> None:
    example(folder)
    os.mkfifo(folder / "meta.fifo")


def alias_text(files: int, chars: int, aliases: int) -> Callable[[Path], None]:
    """ConfigMaps whose data repeat one long string through aliases: 140 KB once made a 1 GB Deployment."""

    def make(folder: Path) -> None:
        for n in range(files):
            repeated = ", ".join(["*s"] * aliases)
            text = (
                f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{n}}}\ndata:\n  a: [&s {'x' * chars}, "
                f"{repeated}]\n"
            )
            (folder / f"c{n}.yaml").write_text(text, encoding="utf-8")

    return make


def curly(folder: Path) -> None:
    bench.curly_arg(folder, 1)


def undefined_mounts(folder: Path) -> None:
    bench.many_undefined_mounts(folder, 1)


def doubling_env(folder: Path) -> None:
    bench.doubling_env(folder, 1)


def long_script(folder: Path) -> None:
    bench.long_script(folder, 1)


def long_size(folder: Path) -> None:
    bench.long_size(folder, 1)


def many_env(folder: Path) -> None:
    example(folder)
    entries = "".join(f"        - name: V{i}\n          value: $(V{i + 1})\n" for i in range(3))
    path = folder / "runtime.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("      args:\n", "      env:\n" + entries + "      args:\n", 1)
    )


def six_cycle(folder: Path) -> None:
    names = [f"rt-{i}" for i in range(6)]
    docs = [
        f"apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n  name: {name}\n  annotations:\n"
        f"    ome.io/inherit-from: {names[(i + 1) % 6]}\nspec:\n  disabled: true\n"
        for i, name in enumerate(names)
    ]
    (folder / "cycle.yaml").write_text("---\n".join(docs), encoding="utf-8")


def stale_siblings(folder: Path) -> None:
    """A run killed between the two renames: no output folder, the user's files in ``.rendered.old``,
    and a half-written staging folder."""
    example(folder)
    work = folder.parent
    (work / ".rendered.old").mkdir()
    (work / ".rendered.old" / "NOTES.md").write_text("mine\n", encoding="utf-8")
    (work / ".rendered.stage" / "junk").mkdir(parents=True)
    (work / ".rendered.stage" / "junk" / "half.yaml").write_text("kind: Half\n", encoding="utf-8")


def name_collision(folder: Path) -> None:
    """Two InferenceServices whose names end in the same 20 characters: one model ConfigMap name."""
    example(folder)
    isvc = (folder / "isvc.yaml").read_text(encoding="utf-8")
    twin = isvc.replace(
        "  name: llama-3-2-3b-instruct\n  namespace", "  name: xx-llama-3-2-3b-instruct\n  namespace", 1
    )
    assert twin != isvc
    (folder / "isvc.yaml").write_text(isvc + "---\n" + twin, encoding="utf-8")


def krm_fifo(folder: Path) -> None:
    os.mkfifo(folder / "fn.fifo")


def output_under_a_file(folder: Path) -> None:
    example(folder)
    (folder.parent / "afile").write_text("not a folder\n", encoding="utf-8")


GENERATORS: dict[str, Callable[[Path], None]] = {
    "lock-billion-laughs": lock_laughs,
    "lock-recursive-alias": with_lock("x: &a [*a]\n"),
    "lock-deep-nesting": with_lock("[" * 100_000 + "\n"),
    "lock-symlink-outside": lock_symlink_outside,
    "lock-file-fifo": lock_fifo,
    "metadata-fifo": metadata_fifo,
    "metadata-dev-zero": example,
    "placeholder-curly-flood": curly,
    "serving-undefined-mounts": undefined_mounts,
    "serving-env-doubling": doubling_env,
    "serving-long-script": long_script,
    "alias-text-bomb": alias_text(1, 20_000, 900),  # 18 MB in one document
    "alias-text-run": alias_text(4, 10_000, 1_300),  # 13 MB in each of four files: 52 MB in all
    "model-size-32000-digits": long_size,
    "env-reference-order": many_env,
    "field-typo-strict": edit("profile.yaml", "      image:", "      imagee:"),
    "field-typo-warn": edit("profile.yaml", "      image:", "      imagee:"),
    "misspelt-kind": edit("profile.yaml", "kind: ClusterServingRuntime", "kind: ClusterServingRuntme"),
    "parent-invalid-profile": edit("profile.yaml", 'runtime-profile: "true"', 'runtime-profile: "True"'),
    "parent-not-a-string": edit("runtime.yaml", "inherit-from: sglang-profile", "inherit-from: 5"),
    "parent-near-miss": edit("runtime.yaml", "inherit-from: sglang-profile", "inherit-from: sglang-profle"),
    "parent-cyrillic": edit("runtime.yaml", "inherit-from: sglang-profile", "inherit-from: sglаng-profile"),
    "runtime-near-miss": edit("isvc.yaml", "name: sglang-llama-3-2-3b", "name: sglang-llama-3-2-3"),
    "model-near-miss": edit("isvc.yaml", "    name: llama-3-2-3b-instruct", "    name: llama-3-2-3b-instruc"),
    "non-string-key": edit("runtime.yaml", "  disabled: false\n", "  disabled: false\n  on: 5\n"),
    "isvc-name-64": edit(
        "isvc.yaml", "  name: llama-3-2-3b-instruct\n", "  name: llama-3-2-3b-instruct-" + "a" * 42 + "\n"
    ),
    "int32-out-of-range": edit("isvc.yaml", "maxReplicas: 1", "maxReplicas: 3000000000"),
    "inherit-from-on-isvc": edit(
        "isvc.yaml",
        "  namespace: llama-demo\n",
        "  namespace: llama-demo\n  annotations:\n    ome.io/inherit-from: x\n",
    ),
    "inherit-from-empty": edit("runtime.yaml", "inherit-from: sglang-profile", 'inherit-from: ""'),
    "cluster-runtime-namespace": edit(
        "profile.yaml", "  name: sglang-profile\n", "  name: sglang-profile\n  namespace: x\n"
    ),
    "cycle-of-six": six_cycle,
    "hidden-file": example,
    "krm-config-fifo": krm_fifo,
    "stale-staging-recovered": stale_siblings,
    "output-dir-under-a-file": output_under_a_file,
    "report-file-missing-folder": example,
    "status-file-missing-folder": example,
    "effective-partial-universe": example,
    "rendered-name-collision": name_collision,
    "namespace-flag-invalid": example,
    "namespace-flag-upper": example,
    "namespace-flag-too-long": example,
}
