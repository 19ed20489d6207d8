"""Domains are the partition set: adding a domain means adding a seed file."""

import dagster as dg

from pipeline.core.inputs.seeds import domain_ids

domain_partitions = dg.StaticPartitionsDefinition(domain_ids())
