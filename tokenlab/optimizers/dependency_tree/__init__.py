"""The dependency-tree family: `npm ls --all`, `cargo tree`, `pipdeptree`, `mvn
dependency:tree`, `gradle dependencies`.

    optimizer.py   roots, direct dependencies and every problem line under a census
"""
