"""Records of several tools' shapes, built for the tests of `lines.families` and `lines.records`."""

from __future__ import annotations


def worker(index: int, region: str, tier: str) -> list[str]:
    return [
        f"  # data.worker[{index}] will be created",
        f'      + name   = "worker-{index}"',
        f'      + region = "{region}"',
        f'      + tier   = "{tier}"',
    ]


HASHES = ["b79fthhg2d", "9bhfb87m59", "hcb5f2h8gc", "bch45c62k2", "fbgkmmkb26", "dt87mfd4g9"]


def config_map(tenant: int, level: str = "info") -> list[str]:
    return [
        "apiVersion: v1",
        "data:",
        f"  LOG_LEVEL: {level}",
        f"  TENANT: t{tenant:02}",
        "kind: ConfigMap",
        "metadata:",
        f"  name: tenant{tenant:02}-config-{HASHES[tenant - 1]}",
    ]
