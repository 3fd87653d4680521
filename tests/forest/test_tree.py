"""`omerender tree`: the spec's example, a missing profile, determinism, filters, colour."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import yaml
from use_cases import forest, graph_text, said, tree_text

from omerender.cli import forest as cli_forest
from omerender.commands.forest import View
from omerender.commands.outcome import Verdict
from omerender.forest.text import MAX_INDENT, render

DEMO_TREE = (
    "ClusterServingRuntime sglang-profile  [profile, disabled]\n"
    "└── ServingRuntime llama-demo/sglang-llama-3-2-3b\n"
    "    └── InferenceService llama-demo/llama-3-2-3b-instruct\n"
)


def test_worked_example_profile_then_child_then_isvc(demo):
    done = forest(demo)
    assert done.verdict is Verdict.OK, said(done)
    assert tree_text(done) == DEMO_TREE
    lines = tree_text(done).splitlines()
    assert lines[0].startswith("ClusterServingRuntime sglang-profile")
    assert lines[1].index("sglang-llama-3-2-3b") > lines[0].index("sglang-profile")
    assert lines[2].index("llama-3-2-3b-instruct") > lines[1].index("sglang-llama-3-2-3b")


def test_missing_profile_fails_with_parent_not_found(demo):
    (demo / "profile.yaml").unlink()
    done = forest(demo)
    assert done.verdict is Verdict.FINDINGS, said(done)
    first, second, _ = tree_text(done).splitlines()
    assert first == "(not found) llama-demo/sglang-profile  [ParentNotFound]"
    assert second == "└── ServingRuntime llama-demo/sglang-llama-3-2-3b  [ParentNotFound]"
    assert 'inherit-from parent "sglang-profile" not found' in said(done)


def test_same_bytes_whatever_the_file_layout(demo, broken, tmp_path):
    docs = []
    for folder in (demo, broken):
        for path in sorted(folder.glob("*.yaml")):
            docs += [d for d in yaml.safe_load_all(path.read_text()) if d]
    docs = [d for i, d in enumerate(docs) if d not in docs[:i]]  # the model is in both folders
    one = tmp_path / "one"
    one.mkdir()
    (one / "all.yaml").write_text(yaml.safe_dump_all(list(reversed(docs))))
    many = tmp_path / "many" / "nested"
    many.mkdir(parents=True)
    for i, doc in enumerate(docs):
        (many / f"{len(docs) - i:03d}-x.yaml").write_text(yaml.safe_dump(doc))
    a, b = forest(one), forest(tmp_path / "many")
    assert a.verdict is b.verdict is Verdict.FINDINGS
    assert tree_text(a) == tree_text(b) and tree_text(a)
    for fmt in ("mermaid", "dot", "json"):
        assert graph_text(a, fmt) == graph_text(b, fmt) and graph_text(a, fmt), fmt


def test_runtime_subtree_and_isvc_chain(broken):
    text = tree_text(forest(broken, View(runtime="loop-a")))
    assert text.splitlines()[0].startswith("ClusterServingRuntime loop-a")
    assert "depth-1" not in text and "team-a/on-a-loop" in text
    text = tree_text(forest(broken, View(runtime="team-a/tail")))
    assert text == "ServingRuntime team-a/tail  [InheritanceCycle]\n└── InferenceService team-a/on-a-loop\n"
    text = tree_text(forest(broken, View(isvc="too-deep"), namespace="team-b"))
    lines = text.splitlines()
    assert [line.split()[-1] if "[" not in line else line.split("  [")[0].split()[-1] for line in lines] == [
        *(f"depth-{i}" for i in range(1, 8)),
        "team-b/too-deep",
    ]
    assert "plain-auto" not in text


def test_unknown_filter_is_a_usage_error(run_cli, demo):  # the CLI's exit code for the use case's problems
    assert run_cli("tree", str(demo), "--runtime", "nope").exit_code == 2
    assert run_cli("tree", str(demo), "--isvc", "nope").exit_code == 2
    assert run_cli("tree", str(demo), "--isvc", "a", "--runtime", "b").exit_code == 2


def test_collapse_isvcs_counts_per_runtime(broken):
    text = tree_text(forest(broken, View(collapse_isvcs=True)))
    assert "InferenceService " not in text
    assert "└── InferenceServices (1)  [1 auto-selected]" in text


def test_colour_only_when_asked_and_never_with_no_color(run_cli, demo, monkeypatch):
    plain = run_cli("tree", str(demo)).stdout
    assert "\033[" not in plain
    coloured = run_cli("tree", str(demo), "--color", "always").stdout
    assert "\033[" in coloured and coloured != plain
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert cli_forest.use_color("auto") is True
    monkeypatch.setenv("NO_COLOR", "1")
    assert cli_forest.use_color("auto") is False
    assert cli_forest.use_color("never") is False


def test_no_color_env_on_a_real_terminal_is_honoured(demo):
    """Through a pseudo-terminal: colour by default, none with NO_COLOR."""
    pty = pytest.importorskip("pty")
    base = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}

    def through_pty(env: dict[str, str]) -> bytes:
        master, slave = pty.openpty()
        proc = subprocess.Popen(
            [sys.executable, "-m", "omerender", "tree", str(demo)], stdout=slave, stderr=subprocess.DEVNULL, env=env
        )
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        proc.wait()
        os.close(master)
        return b"".join(chunks)

    assert b"\033[" in through_pty(base)
    assert b"\033[" not in through_pty({**base, "NO_COLOR": "1"})


def test_a_long_chain_does_not_recurse(tmp_path):
    docs = [
        {
            "apiVersion": "ome.io/v1beta1",
            "kind": "ClusterServingRuntime",
            "metadata": {"name": f"r{i}", **({"annotations": {"ome.io/inherit-from": f"r{i - 1}"}} if i else {})},
            "spec": {"disabled": False},
        }
        for i in range(3000)
    ]
    (tmp_path / "chain.yaml").write_text(yaml.safe_dump_all(docs))
    done = forest(tmp_path)
    assert done.verdict is Verdict.FINDINGS
    lines = tree_text(done).splitlines()
    assert len(lines) == 3001  # one per runtime, and what the depth cap cut
    assert lines[-2].endswith("(depth 2999) ClusterServingRuntime r2999  [MaxDepthExceeded]")
    cap = MAX_INDENT
    assert (
        lines[-1] == f"({2999 - cap} nodes deeper than {cap} levels drawn at level {cap}, each with its depth in front)"
    )
    # the indentation stops at the cap: the output grows linearly with the chain, not with its square
    assert max(len(line) for line in lines) <= 4 * cap + len(
        "(depth 2999) ClusterServingRuntime r2999  [MaxDepthExceeded]"
    )
    assert lines[cap].startswith(" " * 4 * (cap - 1) + "└── ClusterServingRuntime r16")
    assert lines[cap + 1].startswith(" " * 4 * (cap - 1) + "└── (depth 17) ClusterServingRuntime r17")
    assert lines[-2].startswith(" " * 4 * (cap - 1) + "└── (depth 2999)")


def test_a_long_chains_errors_are_located_without_reading_any_file_again(tmp_path, monkeypatch):
    from omerender.load import source

    composed: list[str] = []
    real = source._Composed

    def counting(text: str) -> source._Composed:
        composed.append(text)
        return real(text)

    monkeypatch.setattr(source, "_Composed", counting)
    for i in range(40):
        parent = f"  annotations:\n    team: a\n    ome.io/inherit-from: r{i - 1}\n" if i else ""
        text = f"apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n{parent}  name: r{i}\nspec: {{}}\n"
        (tmp_path / f"r{i:02d}.yaml").write_text(text)
    done = forest(tmp_path)
    assert done.verdict is Verdict.FINDINGS
    errors = [line for line in said(done).splitlines() if "MaxDepthExceeded" in line]
    assert len(errors) == 35
    for i, error in zip(range(5, 40), errors, strict=True):
        assert error.startswith(f"{tmp_path / f'r{i:02d}.yaml'}:6:26: error: [MaxDepthExceeded]"), error
    assert composed == []  # every position came from the first parse


def test_the_depth_cap_is_linear_and_keeps_shallow_trees_as_they_are() -> None:
    from omerender.forest.model import Forest, Node

    def chain(length: int) -> Forest:
        forest = Forest(roots=["n0"])
        for i in range(length):
            children = [f"n{i + 1}"] if i + 1 < length else []
            forest.nodes[f"n{i}"] = Node(
                id=f"n{i}", kind="ClusterServingRuntime", namespace="", name=f"r{i}", children=children
            )
        return forest

    shallow = render(chain(5), max_indent=4)
    assert shallow.splitlines()[-1] == " " * 12 + "└── ClusterServingRuntime r4"  # depth 4, the cap: not cut
    assert render(chain(3), max_indent=4).count("depth") == 0
    sizes = [len(render(chain(n), max_indent=8)) for n in (1000, 2000)]
    assert sizes[1] < 2.1 * sizes[0]


def test_validate_means_what_it_means_for_build(run_cli, demo):
    """tree and graph take the shared --validate: a field typo fails them by default, warns with warn."""
    profile = demo / "profile.yaml"
    profile.write_text(profile.read_text().replace("spec:\n", "spec:\n  imagee: typo\n", 1))
    strict = forest(demo)
    assert strict.verdict is Verdict.FINDINGS and "[unknown-field]" in said(strict) and "imagee" in said(strict)
    warned = forest(demo, validate="warn")
    assert warned.verdict is Verdict.OK and "warning: [unknown-field]" in said(warned), said(warned)
    ignored = forest(demo, validate="ignore")
    assert tree_text(warned) == tree_text(ignored) and graph_text(warned, "json") == graph_text(ignored, "json")
    for command in (["tree"], ["graph", "-o", "json"]):  # the shared option, on both commands
        assert run_cli(*command, str(demo), "--validate", "warn").exit_code == 0
