"""The human audit: double review, adjudication, agreement, and corrections as a new version.

Plain Python over the release's models and a DuckDB file of append-only audit tables; the web
application (`pipeline.audit_web`) and the CLI (`atbench audit`) are thin layers over it.
"""

from pipeline.core.audit.agreement import AxisAgreement, agreement_by_axis, cohen_kappa
from pipeline.core.audit.answers import Answer, parse_answer, release_answer
from pipeline.core.audit.apply import apply_audit, audit_report
from pipeline.core.audit.plan import open_audit
from pipeline.core.audit.progress import Progress, TraceState, read_progress
from pipeline.core.audit.sheets import ImportResult, export_sheet, import_sheet
from pipeline.core.audit.source import AuditedRelease, open_release
from pipeline.core.audit.store import AuditStore, Recorded, audit_db_path, check_name

__all__ = [
    "Answer",
    "AuditStore",
    "AuditedRelease",
    "AxisAgreement",
    "ImportResult",
    "Progress",
    "Recorded",
    "TraceState",
    "agreement_by_axis",
    "apply_audit",
    "audit_db_path",
    "audit_report",
    "check_name",
    "cohen_kappa",
    "export_sheet",
    "import_sheet",
    "open_audit",
    "open_release",
    "parse_answer",
    "read_progress",
    "release_answer",
]
