"""`atbench sft`: guard-training SFT data from the engine, disjoint from a release."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pipeline.cli.console import plain_console, styled
from pipeline.cli.progress import StageProgress
from pipeline.core.build.sft import build_sft, check_sft_options, engine_generate
from pipeline.core.inputs.loading import load_inputs
from pipeline.core.llm import LLMSettings


def sft(
    size: Annotated[int, typer.Option(help="Trajectories in the SFT set.", show_default=False)],
    exclude: Annotated[
        Path,
        typer.Option(help="Release the data must not overlap (a folder).", show_default=False),
    ],
    out: Annotated[Path, typer.Option(help="Folder to write the SFT set to.", show_default=False)],
    seed: Annotated[
        int | None,
        typer.Option(help="Release seed of the generated data; default: the release's + 1."),
    ] = None,
    rationale: Annotated[
        bool, typer.Option("--rationale", help="Put a one-line rationale before the verdict.")
    ] = False,
    validation_share: Annotated[
        float, typer.Option(help="Share of trajectories (whole pairs) in the validation split.")
    ] = 0.1,
) -> None:
    """Generate SIZE trajectories with the procedural engine (the build's stage functions, in
    one process), disjoint from --exclude, as chat
    JSONL and Parquet for the binary and the fine-grained task, with a dataset card."""
    check_sft_options(exclude, size, validation_share, seed)  # before any generation
    inputs = load_inputs()
    console = plain_console()
    plain_console(stderr=True).print(
        f"building about {size} trajectories with the engine, then checking overlap",
        highlight=False,
    )
    with StageProgress():
        report = build_sft(
            exclude,
            size,
            out.resolve(),
            generate=engine_generate(inputs, LLMSettings()),
            taxonomy=inputs.taxonomy,
            seed=seed,
            rationale=rationale,
            validation_share=validation_share,
        )
    removed = ", ".join(f"{count} {reason}" for reason, count in report.removed.items())
    console.print(
        styled("SFT set", "bold green", f" at {out.resolve()}: ") + f"{report.kept} trajectories "
        f"({report.splits['train']} train, {report.splits['validation']} validation, "
        f"{report.unsafe} unsafe) of {report.generated} generated; removed: {removed}",
        soft_wrap=True,
    )
