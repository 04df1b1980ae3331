"""Tree-sitter, below everything that parses code or data: the budgeted reads' outlines
(`reads/`) and the YAML optimizer (`optimizers/yaml_doc/`) both use it.

    treesitter.py   the only module that talks to py-tree-sitter and the bundled grammars
    queries/        tag queries (`<language>-tags.scm`), shipped as package data
"""
