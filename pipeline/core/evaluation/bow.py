"""`bow`: a TF-IDF + logistic-regression guard trained on an SFT set, answering in the
`atbench` fine-grained format.

It reads what a judge reads (tool list and turns, rendered as the prompts render them) and
learns the verdict from every training trace and one leaf per axis from the unsafe ones, so
"does engine data teach anything that transfers?" can be asked of any benchmark on a laptop.
Needs scikit-learn (the `eval` extra); import this module only when the guard is asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

from pipeline.core.evaluation.formats import AXIS_TITLES, FORMATS, PromptFormat, Task
from pipeline.core.evaluation.render import render_tools, render_turns
from pipeline.core.evaluation.sft_files import read_sft_trajectories
from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.llm import LLMFailure
from pipeline.core.model.errors import InputError
from pipeline.core.model.labels import AXES, AxisId
from pipeline.core.model.progress import report as progress
from pipeline.core.model.trajectory import Trajectory


def guard_text(traj: Trajectory) -> str:
    return f"{render_tools(traj)}\n{render_turns(traj)}"


def _classifier() -> LogisticRegression:
    return LogisticRegression(C=1.0, max_iter=2000)


@dataclass
class BowEvaluator:
    train_dir: Path
    taxonomy: Taxonomy
    name: str = "bow"
    format: PromptFormat = field(default_factory=lambda: FORMATS["atbench"])
    task: Task = "fine_grained"
    trained_on: int = 0
    _vectorizer: Any = None
    _verdict: Any = None
    _leaves: dict[AxisId, Any] = field(default_factory=dict)
    _constant: dict[AxisId, str] = field(default_factory=dict)

    def config(self) -> dict[str, Any]:
        return {"train": str(self.train_dir), "trained_on": self.trained_on}

    def fit(self) -> BowEvaluator:
        """Train on the SFT set's training split; errors name the folder before any work."""
        train = read_sft_trajectories(self.train_dir, "train")
        verdicts = {t.verdict for t in train}
        if verdicts != {"safe", "unsafe"}:
            raise InputError(
                f"the training split needs safe and unsafe traces, has only {sorted(verdicts)}",
                file=self.train_dir,
            )
        # One vocabulary for all four models: the texts are the same, only the targets differ.
        self._vectorizer = TfidfVectorizer(
            ngram_range=(1, 2), sublinear_tf=True, min_df=2, max_features=200_000
        )
        features = self._vectorizer.fit_transform([guard_text(t) for t in train])
        self._verdict = LogisticRegression(C=1.0, max_iter=2000).fit(
            features, [t.verdict for t in train]
        )
        rows = [i for i, t in enumerate(train) if t.labels is not None]
        for axis in AXES:
            targets = [getattr(train[i].labels, axis) for i in rows]
            if len(set(targets)) == 1:
                self._constant[axis] = targets[0]
            elif targets:
                self._leaves[axis] = LogisticRegression(C=1.0, max_iter=2000).fit(
                    features[rows], targets
                )
        self.trained_on = len(train)
        return self

    async def answer(self, trajectories: Sequence[Trajectory]) -> list[str | LLMFailure]:
        if self._verdict is None:
            self.fit()
        features = self._vectorizer.transform([guard_text(t) for t in trajectories])
        verdicts = self._verdict.predict(features)
        leaves = {axis: model.predict(features) for axis, model in self._leaves.items()}
        answers: list[str | LLMFailure] = []
        for i, verdict in enumerate(verdicts):
            lines = [str(verdict)]
            if verdict == "unsafe":
                for axis in AXES:
                    leaf = self._constant.get(axis) or (
                        str(leaves[axis][i]) if axis in leaves else None
                    )
                    if leaf is not None:
                        lines.append(f"{AXIS_TITLES[axis]}: {leaf}")
            answers.append("\n".join(lines))
            progress().item_done(rejected=False)
        return answers
