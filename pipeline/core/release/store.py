"""The release's DuckDB file: the one queryable copy of everything a release contains.

Only the release step writes it (DuckDB allows one writer per file). Tables are built as Arrow
tables in memory and inserted in one statement each, which keeps a 1,000-trajectory release
well under a second. The `record` column holds each trajectory's full JSON so the file alone
reproduces the exact models; the other columns exist to be queried. The schema is documented
in docs/release-schema.md; change both together.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.llm.ledger import LedgerEntry
from pipeline.core.model.actions import format_action
from pipeline.core.model.rejection import Rejection
from pipeline.core.model.trajectory import AgentTurn, ToolCall, ToolSpec, Trajectory
from pipeline.core.release.atbench_format import release_order, to_atbench_row

DB_FILE = "release.duckdb"
LEDGER_COLUMNS = (*(key for key in LedgerEntry.model_fields if key != "schema_version"), "in_build")
"""The keys of one LLM ledger row, and `in_build` (see `build.stamps.release_ledger`)."""

TABLES = (
    "trajectories",
    "turns",
    "tools",
    "trajectory_tools",
    "risk_points",
    "pairs",
    "rejections",
    "llm_calls",
    "taxonomy",
    "manifest",
)
VIEWS = ("leaf_counts", "domain_balance", "subset_sizes")

_SCHEMA = """
CREATE TABLE trajectories (
    id INTEGER PRIMARY KEY,
    uid VARCHAR NOT NULL UNIQUE,
    domain VARCHAR NOT NULL,
    pair_id VARCHAR NOT NULL,
    variant VARCHAR NOT NULL,
    label VARCHAR NOT NULL CHECK (label IN ('safe', 'unsafe')),
    risk_source VARCHAR,
    failure_mode VARCHAR,
    real_world_harm VARCHAR,
    reason VARCHAR NOT NULL,
    tags VARCHAR[] NOT NULL,
    n_episodes INTEGER NOT NULL,
    n_turns INTEGER NOT NULL,
    n_tokens INTEGER NOT NULL,
    backend VARCHAR NOT NULL,
    record JSON NOT NULL
);
CREATE TABLE turns (
    uid VARCHAR NOT NULL,
    episode INTEGER NOT NULL,
    episode_kind VARCHAR NOT NULL,
    turn INTEGER NOT NULL,
    position INTEGER NOT NULL,
    role VARCHAR NOT NULL,
    content VARCHAR,
    thought VARCHAR,
    action VARCHAR,
    tool_name VARCHAR,
    arguments JSON,
    grounded_in_context BOOLEAN,
    PRIMARY KEY (uid, episode, turn)
);
CREATE TABLE tools (
    name VARCHAR PRIMARY KEY,
    description VARCHAR NOT NULL,
    parameters JSON NOT NULL,
    n_trajectories INTEGER NOT NULL,
    n_variants INTEGER NOT NULL
);
CREATE TABLE trajectory_tools (
    uid VARCHAR NOT NULL,
    tool_name VARCHAR NOT NULL,
    position INTEGER NOT NULL,
    used BOOLEAN NOT NULL,
    modified BOOLEAN NOT NULL,
    PRIMARY KEY (uid, tool_name)
);
CREATE TABLE risk_points (
    uid VARCHAR NOT NULL,
    idx INTEGER NOT NULL,
    episode INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    channel VARCHAR NOT NULL,
    text VARCHAR NOT NULL,
    PRIMARY KEY (uid, idx)
);
CREATE TABLE pairs (
    pair_id VARCHAR PRIMARY KEY,
    domain VARCHAR NOT NULL,
    safe_uid VARCHAR,
    unsafe_uid VARCHAR,
    divergence INTEGER
);
CREATE TABLE rejections (
    trajectory_id VARCHAR NOT NULL,
    pair_id VARCHAR NOT NULL,
    domain VARCHAR NOT NULL,
    stage VARCHAR NOT NULL,
    check_name VARCHAR NOT NULL,
    reason_code VARCHAR NOT NULL,
    message VARCHAR NOT NULL
);
CREATE TABLE llm_calls (
    ts TIMESTAMPTZ,
    stage VARCHAR,
    domain VARCHAR,
    role VARCHAR,
    item_id VARCHAR,
    model VARCHAR,
    backend VARCHAR,
    cached BOOLEAN,
    attempts INTEGER,
    prompt_tokens BIGINT,
    completion_tokens BIGINT,
    tokens_estimated BOOLEAN,
    latency_s DOUBLE,
    cost_usd DOUBLE,
    status VARCHAR,
    error VARCHAR,
    in_build BOOLEAN
);
CREATE TABLE taxonomy (
    position INTEGER PRIMARY KEY,
    axis VARCHAR NOT NULL,
    family VARCHAR NOT NULL,
    family_name VARCHAR NOT NULL,
    leaf VARCHAR NOT NULL,
    name VARCHAR NOT NULL,
    definition VARCHAR NOT NULL,
    aliases VARCHAR[] NOT NULL,
    UNIQUE (axis, leaf)
);
CREATE TABLE manifest (
    key VARCHAR PRIMARY KEY,
    value JSON NOT NULL
);

CREATE VIEW leaf_counts AS
WITH labels AS (
    SELECT 'risk_source' AS axis, risk_source AS leaf FROM trajectories WHERE label = 'unsafe'
    UNION ALL
    SELECT 'failure_mode', failure_mode FROM trajectories WHERE label = 'unsafe'
    UNION ALL
    SELECT 'real_world_harm', real_world_harm FROM trajectories WHERE label = 'unsafe'
)
SELECT x.axis, x.family, x.leaf, x.name, count(l.leaf) AS n
FROM taxonomy AS x LEFT JOIN labels AS l ON l.axis = x.axis AND l.leaf = x.leaf
GROUP BY x.position, x.axis, x.family, x.leaf, x.name
ORDER BY x.position;

CREATE VIEW domain_balance AS
SELECT
    domain,
    count(*) FILTER (WHERE label = 'safe') AS safe,
    count(*) FILTER (WHERE label = 'unsafe') AS unsafe,
    count(*) FILTER (WHERE label = 'unsafe') / count(*) AS unsafe_share
FROM trajectories
GROUP BY domain
ORDER BY domain;

CREATE VIEW subset_sizes AS
WITH tagged AS (SELECT unnest(tags) AS tag, label FROM trajectories)
SELECT
    s.tag,
    count(t.tag) AS n,
    count(t.tag) FILTER (WHERE t.label = 'safe') AS safe,
    count(t.tag) FILTER (WHERE t.label = 'unsafe') AS unsafe
FROM (VALUES ('delayed_trigger'), ('false_reference'), ('long_context'), ('long_html')) AS s(tag)
LEFT JOIN tagged AS t ON t.tag = s.tag
GROUP BY s.tag
ORDER BY s.tag;
"""


def write_release_db(
    path: Path,
    trajectories: Sequence[Trajectory],
    rejections: Sequence[Rejection],
    ledger_rows: Sequence[Mapping[str, Any]],
    taxonomy: Taxonomy,
    manifest: Mapping[str, Any],
) -> None:
    """Create the release database at `path` (which must not exist yet).

    Public ids follow `release_order`, the same numbering as atbench.json. `manifest` holds
    what is known before the files exist (the sha256 list lives only in manifest.json).
    """
    if path.exists():
        raise FileExistsError(f"{path} already exists; a release database is written once")
    ordered = release_order(trajectories)
    tables = {
        "trajectories": _trajectory_table(ordered),
        "turns": _turn_table(ordered),
        **_tool_tables(ordered),
        "risk_points": _risk_point_table(ordered),
        "pairs": _pair_table(ordered),
        "rejections": _rejection_table(rejections),
        "llm_calls": _ledger_table(ledger_rows),
        "taxonomy": _taxonomy_table(taxonomy),
        "manifest": pa.table(
            {
                "key": list(manifest),
                "value": [json.dumps(value, ensure_ascii=False) for value in manifest.values()],
            }
        ),
    }
    try:
        with duckdb.connect(str(path)) as con:
            con.execute(_SCHEMA)
            for name, table in tables.items():
                if table.num_rows == 0:
                    continue  # e.g. no rejections; an empty Arrow table has no typed columns
                con.register("incoming", table)
                con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM incoming")
                con.unregister("incoming")
    except BaseException:
        # a half-written database would look like a release to the next reader
        path.unlink(missing_ok=True)
        path.with_name(path.name + ".wal").unlink(missing_ok=True)
        raise


def release_db(release: Path) -> Path:
    """The DuckDB file of a release given as its directory (what every command takes) or as
    the file itself."""
    return release / DB_FILE if release.is_dir() else release


def load_trajectories(release: Path) -> list[Trajectory]:
    """The exact trajectories of a release (its directory, or its DuckDB file), in id order."""
    with duckdb.connect(str(release_db(release)), read_only=True) as con:
        records = con.execute("SELECT record FROM trajectories ORDER BY id").fetchall()
    return [Trajectory.model_validate_json(record) for (record,) in records]


def _estimate_tokens(row: Mapping[str, Any]) -> int:
    """Rough size (chars / 4) of what a guard reads: the tool list and the contents."""
    parts = (json.dumps(row[key], ensure_ascii=False) for key in ("tool_used", "contents"))
    return len("".join(parts)) // 4


def _trajectory_table(ordered: Sequence[Trajectory]) -> pa.Table:
    columns: dict[str, list[Any]] = defaultdict(list)
    for public_id, traj in enumerate(ordered):
        labels = traj.labels
        columns["id"].append(public_id)
        columns["uid"].append(traj.id)
        columns["domain"].append(traj.domain)
        columns["pair_id"].append(traj.pair_id)
        columns["variant"].append(traj.variant)
        columns["label"].append(traj.verdict)
        columns["risk_source"].append(labels.risk_source if labels else None)
        columns["failure_mode"].append(labels.failure_mode if labels else None)
        columns["real_world_harm"].append(labels.real_world_harm if labels else None)
        columns["reason"].append(traj.reason)
        columns["tags"].append(sorted(traj.tags))
        columns["n_episodes"].append(len(traj.episodes))
        columns["n_turns"].append(len(traj.turns))
        columns["n_tokens"].append(_estimate_tokens(to_atbench_row(traj, public_id)))
        columns["backend"].append(traj.provenance.backend)
        columns["record"].append(traj.model_dump_json())
    return pa.table(columns)


def _turn_table(ordered: Sequence[Trajectory]) -> pa.Table:
    columns: dict[str, list[Any]] = defaultdict(list)
    for traj in ordered:
        position = 0
        for e, episode in enumerate(traj.episodes):
            for t, turn in enumerate(episode.turns):
                columns["uid"].append(traj.id)
                columns["episode"].append(e)
                columns["episode_kind"].append(episode.kind)
                columns["turn"].append(t)
                columns["position"].append(position)
                columns["role"].append(turn.role)
                call = None
                if isinstance(turn, AgentTurn):
                    if isinstance(turn.action, ToolCall):
                        call = turn.action
                    columns["content"].append(None)
                    columns["thought"].append(turn.thought)
                    columns["action"].append(format_action(turn.action))
                    columns["grounded_in_context"].append(turn.grounded_in_context)
                else:
                    columns["content"].append(turn.content)
                    columns["thought"].append(None)
                    columns["action"].append(None)
                    columns["grounded_in_context"].append(None)
                columns["tool_name"].append(call.name if call else None)
                columns["arguments"].append(
                    json.dumps(call.arguments, ensure_ascii=False) if call else None
                )
                position += 1
    return pa.table(columns)


def _tool_tables(ordered: Sequence[Trajectory]) -> dict[str, pa.Table]:
    """One row per tool name with its most common spec; per-trajectory rows flag deviations.

    A trace may rewrite a tool's description (tool description injection), so the same name
    can carry several specs; `modified` marks the trajectories whose spec is not the common one.
    """
    variants: dict[str, Counter[str]] = defaultdict(Counter)
    specs: dict[str, ToolSpec] = {}
    for traj in ordered:
        for tool in traj.tools:
            key = tool.model_dump_json()
            variants[tool.name][key] += 1
            specs.setdefault(key, tool)
    common = {name: counts.most_common(1)[0][0] for name, counts in variants.items()}
    tools: dict[str, list[Any]] = defaultdict(list)
    for name in sorted(variants):
        spec = specs[common[name]]
        tools["name"].append(name)
        tools["description"].append(spec.description)
        tools["parameters"].append(json.dumps(spec.parameters, ensure_ascii=False))
        tools["n_trajectories"].append(variants[name].total())
        tools["n_variants"].append(len(variants[name]))
    links: dict[str, list[Any]] = defaultdict(list)
    for traj in ordered:
        called = {
            turn.action.name
            for turn in traj.turns
            if isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall)
        }
        for position, tool in enumerate(traj.tools):
            links["uid"].append(traj.id)
            links["tool_name"].append(tool.name)
            links["position"].append(position)
            links["used"].append(tool.name in called)
            links["modified"].append(tool.model_dump_json() != common[tool.name])
    return {
        "tools": pa.table(tools),
        "trajectory_tools": pa.table(links),
    }


def _risk_point_table(ordered: Sequence[Trajectory]) -> pa.Table:
    columns: dict[str, list[Any]] = defaultdict(list)
    for traj in ordered:
        for idx, point in enumerate(traj.risk_points):
            columns["uid"].append(traj.id)
            columns["idx"].append(idx)
            columns["episode"].append(point.episode)
            columns["turn"].append(point.turn)
            columns["channel"].append(point.channel)
            columns["text"].append(point.text)
    return pa.table(columns)


def _pair_table(ordered: Sequence[Trajectory]) -> pa.Table:
    """One row per pair; an unpaired trace (e.g. imported) leaves its twin's uid NULL."""
    pairs: dict[str, dict[str, Trajectory]] = defaultdict(dict)
    for traj in ordered:
        twins = pairs[traj.pair_id]
        if traj.variant in twins:
            raise ValueError(
                f"pair {traj.pair_id!r} has two {traj.variant} variants: "
                f"{twins[traj.variant].id!r} and {traj.id!r}"
            )
        twins[traj.variant] = traj
    columns: dict[str, list[Any]] = defaultdict(list)
    for pair_id in sorted(pairs):
        twins = pairs[pair_id]
        safe, unsafe = twins.get("safe"), twins.get("unsafe")
        present = [t for t in (unsafe, safe) if t is not None]
        columns["pair_id"].append(pair_id)
        columns["domain"].append(present[0].domain)
        columns["safe_uid"].append(safe.id if safe else None)
        columns["unsafe_uid"].append(unsafe.id if unsafe else None)
        columns["divergence"].append(
            next((t.divergence for t in present if t.divergence is not None), None)
        )
    return pa.table(columns)


def _rejection_table(rejections: Sequence[Rejection]) -> pa.Table:
    columns: dict[str, list[Any]] = defaultdict(list)
    for rejection in rejections:
        for key, value in rejection.model_dump().items():
            columns["check_name" if key == "check" else key].append(value)
    return pa.table(columns)


def _ledger_table(rows: Sequence[Mapping[str, Any]]) -> pa.Table:
    """Ledger rows as written by the LLM layer; missing keys become NULL, extra keys are not
    stored. `ts` may be epoch seconds, an ISO 8601 string or a datetime; naive means UTC."""
    columns: dict[str, list[Any]] = {key: [] for key in LEDGER_COLUMNS}
    for row in rows:
        for key in LEDGER_COLUMNS:
            value = row.get(key)
            columns[key].append(_timestamp(value) if key == "ts" else value)
    return pa.table(columns)


def _timestamp(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return datetime.fromtimestamp(value, UTC)
    stamp = datetime.fromisoformat(value) if isinstance(value, str) else value
    if not isinstance(stamp, datetime):
        raise ValueError(f"ledger ts {value!r} is neither epoch seconds nor an ISO timestamp")
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)


def _taxonomy_table(taxonomy: Taxonomy) -> pa.Table:
    columns: dict[str, list[Any]] = defaultdict(list)
    for axis in taxonomy.axes:
        for family in axis.families:
            for leaf in family.leaves:
                columns["position"].append(len(columns["position"]))
                columns["axis"].append(axis.id)
                columns["family"].append(family.id)
                columns["family_name"].append(family.name)
                columns["leaf"].append(leaf.id)
                columns["name"].append(leaf.name)
                columns["definition"].append(leaf.definition)
                columns["aliases"].append(list(leaf.aliases))
    return pa.table(columns)
