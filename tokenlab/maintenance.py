"""Store maintenance now lives in `tokenlab.store.maintenance`; this name stays for importers."""

from tokenlab.store.maintenance import StoreStats, VerifyReport, gc, stats, verify

__all__ = ["StoreStats", "VerifyReport", "gc", "stats", "verify"]
