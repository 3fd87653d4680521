"""`diff -o markdown` rendered by a real GFM renderer: hostile values give no link, image, mention, heading or HTML.

markdown-it-py in its ``gfm-like`` preset (GFM tables, strikethrough and linkify, the autolinks GitHub
adds to bare ``www.`` and ``https://`` text) stands in for GitHub's renderer; ``@mentions`` are a
GitHub feature applied to text outside code, so any ``@`` left in a text node would become one.
"""

from __future__ import annotations

import json
import shutil

import markdown_it
from lifecycle_helpers import edit
from use_cases import diff, diff_text, said

from omerender.commands.outcome import Verdict

BACKTICK = "--mem-frac=0.9` @octocat <img src=x onerror=alert(1)> [x](https://evil.example/a) ``` www.evil.example `"
LINE_BREAK = "ok\r\n# Injected heading\n<script>alert(1)</script>\r| forged | row |"
PIPE_PATH = "/cache|x` [y](https://evil.example/b) @octocat"
HEADINGS = {"omerender diff", "Runtimes whose merged spec changed", "InferenceServices that roll out"}


def _hostile(demo, tmp_path):
    new = tmp_path / "hostile"
    shutil.copytree(demo, new)
    edit(
        new / "profile.yaml",
        '        - "--served-model-name={{.Name}}"\n',
        f'        - "--served-model-name={{{{.Name}}}}"\n        - {json.dumps(BACKTICK)}\n',
    )
    edit(
        new / "profile.yaml",
        "    runner:\n      name: ome-container\n",
        "    runner:\n      name: ome-container\n      env:\n"
        f"        - name: HOSTILE\n          value: {json.dumps(LINE_BREAK)}\n",
    )
    edit(
        new / "profile.yaml",
        "          mountPath: /dev/shm\n",
        f"          mountPath: /dev/shm\n        - name: dshm\n          mountPath: {json.dumps(PIPE_PATH)}\n",
    )
    return new


def _tokens(markdown: str):
    md = markdown_it.MarkdownIt("gfm-like")
    for token in md.parse(markdown):
        yield token
        yield from token.children or ()


def test_hostile_values_render_as_code_only(demo, tmp_path):
    done = diff([demo, _hostile(demo, tmp_path)])
    assert done.verdict is Verdict.FINDINGS, said(done)
    tokens = list(_tokens(diff_text(done, "markdown")))
    kinds = {t.type for t in tokens}
    assert not kinds & {"link_open", "image", "html_inline", "html_block"}, kinds
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert set(headings) <= HEADINGS, headings
    for token in tokens:
        if token.type == "text":
            assert "@" not in token.content and "www." not in token.content and "http" not in token.content, token
    codes = " ".join(t.content for t in tokens if t.type == "code_inline")
    assert json.dumps(BACKTICK) in codes  # the value, whole and exact, inside a code span
    assert "\\r\\n# Injected heading\\n<script>" in codes  # line breaks shown, not obeyed
    # every table row keeps its six cells: no | or line break in a value split or ended one
    cells, rows = 0, 0
    for token in tokens:
        if token.type == "tr_open":
            rows += 1
            if cells:
                assert cells == 6
            cells = 0
        elif token.type in ("td_open", "th_open"):
            cells += 1
    assert rows >= 4 and cells == 6
    assert "/cache|x` [y](https://evil.example/b) @octocat" in codes


def test_an_env_name_the_api_server_refuses_is_an_error(run_cli, demo, tmp_path):
    new = tmp_path / "bad"
    shutil.copytree(demo, new)
    edit(
        new / "profile.yaml",
        "    runner:\n      name: ome-container\n",
        '    runner:\n      name: ome-container\n      env:\n        - name: "X\\r## heading"\n          value: "1"\n',
    )
    built = run_cli("build", str(new))
    assert (built.exit_code, built.stdout) == (1, ""), built
    assert '[invalid-name] env var name "X\\r## heading"' in built.stderr
    assert "\r" not in built.stderr
    assert diff([demo, new]).verdict is Verdict.TREE_BROKEN
    fine = tmp_path / "fine"
    shutil.copytree(demo, fine)
    edit(
        fine / "profile.yaml",
        "      name: ome-container\n",
        "      name: ome-container\n      env: [{name: my.env-1}]\n",
    )
    assert run_cli("build", str(fine)).exit_code == 0
