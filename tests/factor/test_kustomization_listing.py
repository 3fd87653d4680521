"""factor.kustomization.add_resources: a profile appended to a kustomization's resources, the rest of it kept."""

from __future__ import annotations

import pytest

from omerender.factor.kustomization import Refusal, add_resources

NEW = ["profiles/sglang-profile.yaml"]


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (
            "resources:\n  - a.yaml  # a\n# end\n",
            "resources:\n  - a.yaml  # a\n  - profiles/sglang-profile.yaml\n# end\n",
        ),
        (
            "resources:\n- a.yaml\n\n# c\nbases:\n- b\n",
            "resources:\n- a.yaml\n- profiles/sglang-profile.yaml\n\n# c\nbases:\n- b\n",
        ),
        ("# top\nbases: [b]\n", "# top\nbases: [b]\nresources:\n  - profiles/sglang-profile.yaml\n"),
        ("", "resources:\n  - profiles/sglang-profile.yaml\n"),
        (  # OME's config/runtimes: a comment between the key and its first item, items not indented
            "resources:\n# SRT runtimes\n- srt/a.yaml\n\n# vLLM\n- vllm/b.yaml\n",
            "resources:\n# SRT runtimes\n- srt/a.yaml\n\n# vLLM\n- vllm/b.yaml\n- profiles/sglang-profile.yaml\n",
        ),
        (
            "\ufeffresources:\r\n  - a.yaml\r\n",
            "\ufeffresources:\r\n  - a.yaml\r\n  - profiles/sglang-profile.yaml\r\n",
        ),
        ("resources:\n  - profiles/sglang-profile.yaml\n", "resources:\n  - profiles/sglang-profile.yaml\n"),
    ],
)
def test_the_profile_is_appended_and_the_rest_kept(given: str, expected: str) -> None:
    assert add_resources(given, NEW) == expected


@pytest.mark.parametrize(
    ("given", "where", "words"),
    [
        ("resources:\n  - a.yaml\nnamePrefix: team-\n", (3, 1), "'namePrefix' is not applied by omerender"),
        ("resources: a.yaml\n", (1, 1), "resources must be a list"),
        ("- a.yaml\n", (1, 1), "one YAML mapping"),
        ("resources: [a.yaml\n", (2, 1), "invalid YAML"),
    ],
)
def test_what_omerender_does_not_apply_is_refused_where_it_is(given: str, where: tuple[int, int], words: str) -> None:
    with pytest.raises(Refusal) as caught:
        add_resources(given, NEW)
    assert (caught.value.line, caught.value.col) == where
    assert words in caught.value.message
