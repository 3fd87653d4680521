"""render.multinode: the LeaderWorkerSet and head Service OME creates for a component with a leader and workers."""

from __future__ import annotations

from stage_objects import context

from omerender import codes
from omerender.render.multinode import LWS_API, leader_view, lws_name, render_multinode, worker_view


def test_lws_name_keeps_the_last_fifty_characters() -> None:
    assert lws_name("svc-engine") == "lws-svc-engine"
    long = "x" * 60 + "-engine"
    assert lws_name(long) == "lws-" + long[-50:]


def test_leader_and_worker_views_carry_the_worker_size() -> None:
    merged = {"leader": {"runner": {"name": "l"}}, "worker": {"size": 2, "runner": {"name": "w"}}, "minReplicas": 1}
    assert leader_view(merged) == {"runner": {"name": "l"}, "worker": {"size": 2}}
    assert worker_view(merged) == {"runner": {"name": "w"}, "worker": {"size": 2}}
    no_leader = leader_view({"runner": {"name": "r"}, "worker": {"size": True}})  # a bool is no size
    assert no_leader == {"runner": {"name": "r"}, "worker": {"size": 0}}


def test_a_leader_without_workers_is_the_controller_panic_and_renders_nothing() -> None:
    ctx = context({})
    assert render_multinode(ctx, "engine", {"leader": {"runner": {"name": "l", "image": "x"}}}) == []
    assert [d.code for d in ctx.problems] == [codes.OME_PANIC]


def test_a_leader_and_workers_render_a_leaderworkerset_of_size_workers_plus_one_and_a_head_service() -> None:
    merged = {
        "leader": {"runner": {"name": "leader", "image": "x"}},
        "worker": {"size": 3, "runner": {"name": "worker", "image": "x"}},
    }
    ctx = context({}, {"model": {"name": "m"}, "runtime": {"name": "rt"}, "engine": merged})
    lws, service = render_multinode(ctx, "engine", merged)
    assert ctx.problems == []
    assert (lws["apiVersion"], lws["kind"], lws["metadata"]["name"]) == (LWS_API, "LeaderWorkerSet", "lws-svc-engine")
    template = lws["spec"]["leaderWorkerTemplate"]
    assert template["size"] == 4 and lws["spec"]["replicas"] == 1
    assert template["leaderTemplate"]["metadata"]["labels"]["ray.io/node-type"] == "head"
    assert "ray.io/node-type" not in template["workerTemplate"]["metadata"]["labels"]
    assert service["kind"] == "Service" and service["spec"]["selector"]["ray.io/node-type"] == "head"
