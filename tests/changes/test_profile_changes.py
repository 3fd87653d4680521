"""Which profiles ``compare_views`` lists: an added profile changes nothing by itself (factor adds them), unless it
takes the merged spec of a runtime that goes: a rename or a move, which the report must show both ends of."""

from __future__ import annotations

from omerender.changes.diff import SideView, compare_views
from omerender.changes.report import RuntimeChange

OLD_PROFILE, NEW_PROFILE = "ClusterServingRuntime/vllm-profile", "ClusterServingRuntime/vllm-base"
CHILD = "ClusterServingRuntime/child"


def _side(runtimes: dict[str, str], profiles: set[str]) -> SideView:
    return SideView(runtimes, frozenset(profiles), frozenset(runtimes), {}, {}, frozenset())


def test_a_profile_only_added_is_not_listed() -> None:
    old = _side({CHILD: "c1"}, set())
    new = _side({CHILD: "c1", NEW_PROFILE: "p1"}, {NEW_PROFILE})
    assert compare_views(old, new).runtimes == ()


def test_a_renamed_profile_shows_where_it_went() -> None:
    old = _side({CHILD: "c1", OLD_PROFILE: "p1"}, {OLD_PROFILE})
    new = _side({CHILD: "c1", NEW_PROFILE: "p1"}, {NEW_PROFILE})
    assert compare_views(old, new).runtimes == (
        RuntimeChange(NEW_PROFILE, None, "p1"),
        RuntimeChange(OLD_PROFILE, "p1", None),
    )


def test_a_profile_added_beside_an_unrelated_removal_stays_unlisted() -> None:
    old = _side({CHILD: "c1", OLD_PROFILE: "p1"}, {OLD_PROFILE})
    new = _side({CHILD: "c1", NEW_PROFILE: "p2"}, {NEW_PROFILE})
    assert compare_views(old, new).runtimes == (RuntimeChange(OLD_PROFILE, "p1", None),)
