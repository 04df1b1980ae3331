"""The JSON layout's limits (`JsonDocConfig`); the defaults suit API responses and tool output."""

from __future__ import annotations

from dataclasses import dataclass, field

from tokenlab.optimizers.json_doc import compact as json_compact
from tokenlab.optimizers.json_doc import findings as json_findings
from tokenlab.optimizers.json_doc import records as json_records


@dataclass(frozen=True)
class JsonDocConfig:
    """Limits for the JSON layout; the defaults suit API responses and tool output."""

    max_depth: int = 10  # containers deeper than this fold whole
    max_string_chars: int = 160  # longer strings keep a prefix (DETAIL) or fold (RECORD)
    string_prefix_chars: int = 60
    blob_min_chars: int = 64  # unbroken base64/hex runs this long count as long strings
    blob_prefix_chars: int = 16
    max_scalar_items: int = 12  # longer arrays of scalars keep only a head and a tail
    head_items: int = 3
    tail_items: int = 3
    max_members: int = 40  # larger objects keep decision fields plus a head and a tail
    records_listed: int = 100  # arrays of records up to this long show every record
    # Past this many, a record whose compact view keeps most of it (more than `lines_budget`)
    # is shown as one line of its decision fields when those fit: 60 job records each
    # showing their `output` and a marker for the rest saved almost nothing.
    records_always_listed: int = 20
    # Longer arrays still show every record when their compact views are this cheap
    # (judged on a sample): a package list whose items carry whole READMEs, say.
    listing_budget: float = 0.05
    listing_sample: int = 16
    max_records_listed: int = 2000
    # Else, up to this many records that carry decision fields show one line each (those
    # fields only) when the lines cost at most `lines_budget` of the items (on a sample).
    max_records_lined: int = 1000
    lines_budget: float = 0.5
    lines: json_compact.LineLimits = field(default_factory=json_compact.LineLimits)
    max_anomalies: int = 40  # anomalous records shown per array
    bulky_chars: int = 1000  # a folded field this large gets its own ref in DETAIL mode
    min_fold_chars: int = 48  # folding less than this would cost more than it saves
    label_names: int = 3  # field names listed in a grouped placeholder
    records: json_records.RecordsConfig = field(default_factory=json_records.RecordsConfig)
    findings: json_findings.FindingsLimits = field(default_factory=json_findings.FindingsLimits)


DEFAULT_CONFIG = JsonDocConfig()
