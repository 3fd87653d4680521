"""Golden cases of `diff` on keyed lists: env, ports, volumes, containers and tolerations.

tests/lifecycle/diff_cases/<kind>/ holds the profile before (old/) and after each change (add/,
remove/, change/, reorder/); common/ holds the rest of the tree (runtime, model, InferenceService),
given to each side as a second root (--old common --old KIND/old --new common --new KIND/VARIANT).
expected/<variant>.<format> is stdout, byte for byte, for text, json and markdown. Run pytest with
--update-golden to rewrite them from the current output, then review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

CASES = Path(__file__).parent / "diff_cases"
KINDS = ("env", "ports", "volumes", "containers", "tolerations")
VARIANTS = ("add", "remove", "change", "reorder")
FORMATS = {"text": "txt", "json": "json", "markdown": "md"}


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("kind", KINDS)
def test_keyed_list_change(kind, variant, fmt, run_cli, request, monkeypatch) -> None:
    monkeypatch.chdir(CASES)
    done = run_cli("diff", "--old", "common", "--old", f"{kind}/old", "--new", "common", "--new", f"{kind}/{variant}",
                   "-o", fmt)  # fmt: skip
    assert (done.exit_code, done.stderr) == (1, ""), done
    expected = CASES / kind / "expected" / f"{variant}.{FORMATS[fmt]}"
    if request.config.getoption("--update-golden"):
        expected.parent.mkdir(exist_ok=True)
        expected.write_text(done.stdout, encoding="utf-8")
    assert expected.read_text(encoding="utf-8") == done.stdout
