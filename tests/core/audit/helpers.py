"""A small published release for audit tests, built from the release factories, plus a pair
whose every text field carries a script, event-handler, `javascript:` or HTML payload."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.model.trajectory import Trajectory
from pipeline.core.release.publish import publish_release
from tests.support.factories import make_ledger_rows, make_pair, make_rejections, make_release

PAYLOAD = '<script>document.title="pwned"</script><img src=x onerror="document.title=\'pwned\'">'
LINK = "<a href=\"javascript:document.title='pwned'\">click me</a>"
LONG_HTML = (
    "<!doctype html><html><body>"
    + "".join(f"<div class='row'><p>Order {i} shipped</p>{LINK}</div>" for i in range(60))
    + PAYLOAD
    + "</body></html>"
)
HOSTILE_PAIR = "hostile-0000"


def hostile_pair() -> list[Trajectory]:
    """The factory pair with payloads in the tool description, observations and answers."""
    out = []
    for traj in make_pair("hostile", 0):
        data: dict[str, Any] = traj.model_dump(mode="json")
        data["tools"][0]["description"] += " " + PAYLOAD + " " + LINK
        turns = data["episodes"][0]["turns"]
        for turn in turns:
            if turn["role"] == "environment":
                turn["content"] = json.dumps({"page": LONG_HTML, "note": PAYLOAD})
            elif turn["role"] == "agent":
                turn["thought"] += " " + PAYLOAD
                if "response" in turn["action"]:
                    turn["action"]["response"] += " " + LINK
        turns[0]["content"] += " " + PAYLOAD
        data["risk_points"].append(
            {"episode": 0, "turn": 0, "channel": "tool_description", "text": PAYLOAD}
        )
        out.append(Trajectory.model_validate(data))
    return out


def publish_small(out_dir: Path, n_pairs: int = 3, *, hostile: bool = False) -> Path:
    """`2 * n_pairs` factory trajectories (plus the hostile pair) as a real release folder."""
    trajectories = make_release(n_pairs) + (hostile_pair() if hostile else [])
    publish_release(
        trajectories,
        make_rejections(),
        make_ledger_rows(),
        out_dir,
        taxonomy=default_taxonomy(),
        config={"size": len(trajectories), "seed": 7},
        backend="procedural",
        code_version="0.1.0+test",
    )
    return out_dir
