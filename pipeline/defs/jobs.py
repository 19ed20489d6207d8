"""Two jobs: per-domain construction, then the gated release. The CLI runs both in turn."""

import dagster as dg

from pipeline.defs.assets import (
    blueprints,
    filtered,
    injected,
    paired,
    release,
    release_candidate,
    skeletons,
)

construct_domains = dg.define_asset_job(
    "construct_domains",
    selection=[blueprints, skeletons, injected, paired, filtered],
    partitions_def=None,
    description="Plan, expand, inject, pair and filter the selected domains.",
)
publish = dg.define_asset_job(
    "publish",
    selection=dg.AssetSelection.assets(release_candidate, release),
    description="Consolidate the domains, run the blocking gates, publish the release.",
)
