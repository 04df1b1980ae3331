"""The YAML family: CI configs, Kubernetes documents, any `key: value` document.

    optimizer.py   key paths and decision fields verbatim; long block scalars and bulky
                   fields behind refs; lists of similar items compact
"""
