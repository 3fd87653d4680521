"""Where ``kustomize build`` refuses a kustomization, omerender refuses it too, and where it builds, omerender
renders: each kustomization golden case (and a few more layouts) run through ``kubectl kustomize`` on this machine.

Deliberate differences are not here: a kustomization file that is a symlink out of the repository (kustomize follows
it; omerender refuses it, test_hostile.py) and the 1 MiB cap of a kustomization file.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
import untrusted_inputs as made
from gitops_helpers import need

# case -> (what makes its input folder, the folder kustomize builds, relative to it)
CASES: dict[str, tuple[Callable[[Path], None], str]] = {
    name: (made.GENERATORS[name], folder)
    for name, folder in {
        "kustomization-file-twice": ".",
        "kustomization-file-out-of-its-folder": "app",
        "kustomization-symlinked-file-out-of-its-folder": "app",
        "kustomization-base-folder": "overlay",
        "kustomization-diamond": ".",
        "kustomization-two-files": ".",
        "kustomization-folder-named-like-one": ".",
    }.items()
}
CASES["a-folder-named-like-one-beside-the-file"] = (
    made.kustomized({"Kustomization": list(made.LISTED)}, made.folder_named_like_a_kustomization),
    ".",
)
CASES["a-file-listed-once-in-a-subfolder"] = (
    made.kustomized({"app/kustomization.yaml": ["isvc.yaml"]}, made.moved({"isvc.yaml": "app/isvc.yaml"})),
    "app",
)
CASES["the-same-file-by-two-spellings"] = (
    made.kustomized({"kustomization.yaml": ["isvc.yaml", "a/../isvc.yaml"]}),
    ".",
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_omerender_refuses_what_kustomize_refuses(name: str, tmp_path: Path, run_cli) -> None:
    kubectl = need("kubectl")
    make, folder = CASES[name]
    work = tmp_path / "work"
    (work / "input").mkdir(parents=True)
    make(work / "input")
    (work / "input" / "a").mkdir(exist_ok=True)
    kustomize = subprocess.run(
        [kubectl, "kustomize", str(work / "input" / folder)], capture_output=True, text=True, check=False
    )
    ours = run_cli("build", str(work / "input"))
    assert (ours.exit_code == 0) == (kustomize.returncode == 0), (kustomize.stderr, ours.stderr)
    if kustomize.returncode != 0:
        assert "[kustomization]" in ours.stderr, ours.stderr
    shutil.rmtree(work)
