"""The taxonomy file matches the public facts, and the normaliser accepts every spelling."""

from pathlib import Path

import pytest
import yaml

from pipeline.core.inputs.taxonomy import default_taxonomy, load_taxonomy
from pipeline.core.model.errors import InputError
from tests.support.paths import REPO


def test_leaf_counts_match_the_published_taxonomy() -> None:
    taxonomy = default_taxonomy()
    counts = [
        len(taxonomy.leaf_ids(axis)) for axis in ("risk_source", "failure_mode", "real_world_harm")
    ]
    assert counts == [8, 14, 10]


@pytest.mark.parametrize(
    ("axis", "spelling", "leaf"),
    [
        ("risk_source", "inherent_agent_or_llm_failures", "inherent_agent_failures"),
        ("risk_source", "Inherent Agent/LLM Failures", "inherent_agent_failures"),
        ("failure_mode", "choosing_malicious_tools", "choosing_malicious_tool"),
        ("failure_mode", "tool_misuse_in_context", "tool_misuse_in_specific_context"),
        (
            "failure_mode",
            "unconfirmed_or_overprivileged_action",
            "unconfirmed_or_over_privileged_action",
        ),
        ("real_world_harm", "privacy_confidentiality_harm", "privacy_and_confidentiality_harm"),
        (
            "real_world_harm",
            "Reputational and Interpersonal Harm",
            "reputational_and_interpersonal_harm",
        ),
    ],
)
def test_normalise_maps_aliases_and_display_names_to_ids(
    axis: str, spelling: str, leaf: str
) -> None:
    assert default_taxonomy().normalise(axis, spelling) == leaf  # type: ignore[arg-type]


def test_unknown_label_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="not a failure_mode leaf"):
        default_taxonomy().normalise("failure_mode", "being_rude")


def test_every_leaf_has_a_definition_of_its_own() -> None:
    definitions = [leaf.definition for axis in default_taxonomy().axes for leaf in axis.leaves]
    assert len(set(definitions)) == len(definitions) == 32


def _broken_copy(tmp_path: Path, mutate) -> Path:  # type: ignore[no-untyped-def]
    data = yaml.safe_load((REPO / "taxonomy" / "taxonomy.yaml").read_text())
    mutate(data)
    path = tmp_path / "taxonomy.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_missing_definition_names_file_and_field(tmp_path: Path) -> None:
    path = _broken_copy(
        tmp_path, lambda d: d["axes"][0]["families"][0]["leaves"][0].pop("definition")
    )
    with pytest.raises(InputError) as err:
        load_taxonomy(path)
    assert str(path) in str(err.value)
    assert err.value.field == "axes.0.families.0.leaves.0.definition"


def test_alias_naming_two_leaves_is_refused(tmp_path: Path) -> None:
    def clash(d: dict) -> None:  # type: ignore[type-arg]
        d["axes"][0]["families"][0]["leaves"][0]["aliases"] = ["direct_prompt_injection"]

    with pytest.raises(InputError, match="names both"):
        load_taxonomy(_broken_copy(tmp_path, clash))
