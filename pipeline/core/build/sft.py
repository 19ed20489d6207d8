"""`atbench sft`: guard-training data from the engine, disjoint from a given release.

The trajectories come from the ordinary build stages under a spec with a different release
seed (so different scenario seeds). `engine_generate` runs those stage functions in one process
and one event loop (every domain at once, as a build step does), without Dagster's per-run
start-up, which costs several times the work itself for an SFT-sized build on two cores; this
module then removes overlap with the excluded release, selects N, splits, and writes chat rows,
Parquet and a card (`sft_files` layout).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel, ConfigDict

from pipeline import __version__
from pipeline.core.build.stages import (
    STAGES,
    expand_stage,
    filter_stage,
    inject_stage,
    pair_stage,
    plan_stage,
)
from pipeline.core.build.workspace import Workspace
from pipeline.core.evaluation.evaluators import evaluation_templates
from pipeline.core.evaluation.formats import FORMATS, TASKS, Task, target_text
from pipeline.core.evaluation.overlap import (
    NEAR_DUPLICATE,
    NearDuplicateIndex,
    skeleton_digest,
    trace_digest,
)
from pipeline.core.evaluation.reporting import write_markdown
from pipeline.core.evaluation.sft_files import (
    REPORT_FILE,
    SPLITS,
    Split,
    chat_file,
    parquet_file,
    trajectories_file,
)
from pipeline.core.inputs.files import write_json_atomic, write_jsonl_atomic, write_text_atomic
from pipeline.core.inputs.loading import Inputs
from pipeline.core.inputs.seeds import domain_ids
from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.llm import LLMSettings
from pipeline.core.llm.templates import TemplateRenderer
from pipeline.core.model.errors import InputError
from pipeline.core.model.progress import report as progress
from pipeline.core.model.spec import ReleaseSpec
from pipeline.core.model.trajectory import Trajectory
from pipeline.core.release.publish import MANIFEST_FILE
from pipeline.core.release.sources import check_release, load_release

Generate = Callable[[ReleaseSpec], list[Trajectory]]
"""Build every domain under a spec and return the filtered trajectories."""


def engine_generate(inputs: Inputs, settings: LLMSettings, outputs: Path | None = None) -> Generate:
    """The build's own stage functions (plan, expand, inject, pair, filter) for every domain;
    the work folder and response cache are the build's, so a rerun resumes from them."""

    def generate(spec: ReleaseSpec) -> list[Trajectory]:
        ws = Workspace.for_spec(spec, outputs)
        plan_stage(spec, inputs, ws)

        async def construct() -> None:
            limiter = asyncio.Semaphore(settings.max_concurrency)
            stages = (expand_stage, inject_stage, pair_stage, filter_stage)
            for name, stage in zip(STAGES[1:], stages, strict=True):
                progress().start(name)  # the progress display's line, as a build's asset says
                await asyncio.gather(
                    *(stage(spec, inputs, d, ws, settings, limiter) for d in spec.domains)
                )

        asyncio.run(construct())
        return [t for domain in spec.domains for t in ws.read("filtered", domain, Trajectory)]

    return generate


OVERSAMPLE = 2.5
"""Planned traces per requested one: the world-driven engine rejects what it cannot ground or
prove (about half of a plan in some domains), and overlap removal takes a few more."""


class SftReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    size: int
    seed: int
    excluded_release: str
    excluded_release_seed: int | None
    spec: dict[str, Any]
    generated: int
    removed: dict[str, int]
    """Overlap with the excluded release, by reason (checked in this order)."""
    kept: int
    splits: dict[str, int]
    unsafe: int
    rationale: bool
    near_duplicate_threshold: float
    code_version: str


def check_sft_options(
    exclude: Path, size: int, validation_share: float, seed: int | None = None
) -> None:
    """Everything that can be wrong with the options, before any generation."""
    check_release(exclude, "--exclude")
    if seed is not None and seed == release_seed(exclude):
        raise InputError(
            f"--seed {seed} is the excluded release's own seed; SFT data needs other scenario seeds"
        )
    if not 0 < validation_share < 1:
        raise InputError(f"--validation-share must be between 0 and 1, got {validation_share}")
    minimum = math.ceil(2 / validation_share)
    if size < minimum:
        raise InputError(
            f"--size {size} is too small for a train/validation split with "
            f"--validation-share {validation_share}: need at least {minimum}"
        )


def release_seed(release_dir: Path) -> int | None:
    manifest = json.loads((release_dir / MANIFEST_FILE).read_text(encoding="utf-8"))
    seed = (manifest.get("config") or {}).get("spec", {}).get("seed")
    return seed if isinstance(seed, int) else None


def sft_spec(release_dir: Path, size: int, seed: int | None) -> ReleaseSpec:
    """The build spec: the release's domains, another seed (default: the release's + 1)."""
    chosen = seed if seed is not None else (release_seed(release_dir) or 0) + 1
    manifest = json.loads((release_dir / MANIFEST_FILE).read_text(encoding="utf-8"))
    domains = (manifest.get("config") or {}).get("spec", {}).get("domains") or domain_ids()
    return ReleaseSpec(size=math.ceil(size * OVERSAMPLE), seed=chosen, domains=tuple(domains))


def remove_overlap(
    generated: Sequence[Trajectory], release: Sequence[Trajectory], prefix: str
) -> tuple[list[Trajectory], dict[str, int]]:
    """Generated traces renamed under `prefix`, minus any that overlap the release."""
    ids = {t.id for t in release}
    skeletons = {skeleton_digest(t) for t in release}
    traces = {trace_digest(t) for t in release}
    index = NearDuplicateIndex(release)
    removed = dict.fromkeys(("trajectory_id", "skeleton", "exact_duplicate", "near_duplicate"), 0)
    kept = []
    for traj in generated:
        renamed = traj.model_copy(
            update={"id": f"{prefix}-{traj.id}", "pair_id": f"{prefix}-{traj.pair_id}"}
        )
        if renamed.id in ids:
            removed["trajectory_id"] += 1
        elif skeleton_digest(traj) in skeletons:
            removed["skeleton"] += 1
        elif trace_digest(traj) in traces:
            removed["exact_duplicate"] += 1
        elif index.most_similar(traj) >= NEAR_DUPLICATE:
            removed["near_duplicate"] += 1
        else:
            kept.append(renamed)
    return kept, removed


def _rank(pair_id: str, salt: str) -> str:
    return hashlib.sha256(f"{salt}/{pair_id}".encode()).hexdigest()


def select_and_split(
    trajectories: Sequence[Trajectory], size: int, validation_share: float, salt: str
) -> dict[Split, list[Trajectory]]:
    """`size` traces in whole pairs where possible, then a split by pair (twins stay together)."""
    groups: dict[str, list[Trajectory]] = {}
    for traj in trajectories:
        groups.setdefault(traj.pair_id, []).append(traj)
    chosen: list[list[Trajectory]] = []
    total = 0
    ranked = sorted(groups, key=lambda p: _rank(p, salt))
    for pair_id in ranked:
        group = groups[pair_id]
        if total + len(group) <= size:
            chosen.append(group)
            total += len(group)
    taken = {group[0].pair_id for group in chosen}
    for pair_id in ranked:  # fill the last places with one twin of a pair that did not fit
        if total < size and pair_id not in taken:
            chosen.append(groups[pair_id][:1])
            total += 1
    validation_target = max(1, round(total * validation_share))
    splits: dict[Split, list[Trajectory]] = {"train": [], "validation": []}
    for group in sorted(chosen, key=lambda g: _rank(g[0].pair_id, salt + "/split")):
        side: Split = "validation" if len(splits["validation"]) < validation_target else "train"
        splits[side].extend(group)
    return {split: sorted(rows, key=lambda t: t.id) for split, rows in splits.items()}


def chat_rows(
    trajectories: Sequence[Trajectory], task: Task, taxonomy: Taxonomy, *, rationale: bool
) -> list[dict[str, Any]]:
    """`{"messages": [user prompt, assistant target], ...}`: the evaluator's own prompt."""
    renderer = TemplateRenderer(evaluation_templates())
    fmt = FORMATS["atbench"]
    rows = []
    for traj in trajectories:
        (prompt,) = renderer.render(fmt.templates[task], fmt.variables(traj, taxonomy))
        rows.append(
            {
                "messages": [
                    prompt,
                    {
                        "role": "assistant",
                        "content": target_text(traj, task, taxonomy, rationale=rationale),
                    },
                ],
                "id": traj.id,
                "domain": traj.domain,
                "verdict": traj.verdict,
            }
        )
    return rows


def build_sft(
    exclude: Path,
    size: int,
    out_dir: Path,
    *,
    generate: Generate,
    taxonomy: Taxonomy,
    seed: int | None = None,
    rationale: bool = False,
    validation_share: float = 0.1,
) -> SftReport:
    check_sft_options(exclude, size, validation_share, seed)
    spec = sft_spec(exclude, size, seed)
    release = load_release(exclude).trajectories
    generated = generate(spec)
    kept, removed = remove_overlap(generated, release, prefix=f"sft{spec.seed}")
    splits = select_and_split(kept, size, validation_share, salt=str(spec.seed))
    for split in SPLITS:
        write_jsonl_atomic(trajectories_file(out_dir, split), splits[split])
        for task in TASKS:
            rows = chat_rows(splits[split], task, taxonomy, rationale=rationale)
            _write_rows(chat_file(out_dir, task, split), parquet_file(out_dir, task, split), rows)
    everything = [t for split in SPLITS for t in splits[split]]
    report = SftReport(
        size=size,
        seed=spec.seed,
        excluded_release=str(exclude.resolve()),
        excluded_release_seed=release_seed(exclude),
        spec=spec.model_dump(mode="json"),
        generated=len(generated),
        removed=removed,
        kept=len(everything),
        splits={split: len(splits[split]) for split in SPLITS},
        unsafe=sum(t.verdict == "unsafe" for t in everything),
        rationale=rationale,
        near_duplicate_threshold=NEAR_DUPLICATE,
        code_version=__version__,
    )
    write_json_atomic(out_dir / REPORT_FILE, report.model_dump(mode="json"))
    write_markdown(out_dir / "README.md", "sft_card.md.j2", report=report, tasks=TASKS)
    return report


def _write_rows(jsonl: Path, parquet: Path, rows: list[dict[str, Any]]) -> None:
    jsonl.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(jsonl, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    parquet.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), parquet)
