"""The dependency-tree family: `npm ls --all`, `cargo tree`, `pipdeptree`, `mvn
dependency:tree`, `gradle dependencies`.

    __init__.py    `detect`: a tree drawing of package@version entries
    optimizer.py   roots, direct dependencies and every problem line under a census
    indented.py    trees drawn by indentation alone (`npm explain`); naming folded records
"""

from __future__ import annotations


def detect(data: bytes, sample: bytes) -> str | None:
    from tokenlab.optimizers.dependency_tree.optimizer import looks_like_dependency_tree

    if looks_like_dependency_tree(sample):
        return "a tree drawing of package@version entries"
    return None
