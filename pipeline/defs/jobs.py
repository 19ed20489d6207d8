"""The build as one job: plan, construct the run's domains, gate and publish the release.

A run selects what it needs (the CLI: everything, or only the release assets when every stage
file is current) and constructs the domains of `BuildSettings.wave`, any set of them; the
release's blocking checks run with it.
"""

import dagster as dg

build = dg.define_asset_job(
    "build",
    selection=dg.AssetSelection.all(),
    description="Plan the release, construct the selected domains, gate and publish.",
)
