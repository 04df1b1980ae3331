"""Which outliner reads a file: the language from its name, extension or shebang line."""

from __future__ import annotations

import re
from pathlib import PurePath

# Languages outlined through tree-sitter tag queries: language -> (grammar, query file stem).
CODE_LANGUAGES: dict[str, tuple[str, str]] = {
    "python": ("python", "python"),
    "javascript": ("javascript", "javascript"),
    "typescript": ("typescript", "typescript"),
    "tsx": ("tsx", "typescript"),
    "go": ("go", "go"),
    "rust": ("rust", "rust"),
    "java": ("java", "java"),
    "c": ("c", "c"),
    "cpp": ("cpp", "cpp"),
    "php": ("php", "php"),
    "ruby": ("ruby", "ruby"),
    "bash": ("bash", "bash"),
}

_EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp",
    ".hh": "cpp", ".hpp": "cpp", ".hxx": "cpp", ".h++": "cpp", ".ipp": "cpp", ".inl": "cpp",
    ".php": "php", ".phtml": "php",
    ".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby", ".ru": "ruby",
    ".sh": "bash", ".bash": "bash", ".zsh": "bash", ".ksh": "bash",
    ".md": "markdown", ".markdown": "markdown", ".mdown": "markdown", ".mkd": "markdown",
    ".json": "json", ".geojson": "json", ".jsonc": "json", ".ipynb": "json",
    ".yaml": "yaml", ".yml": "yaml",
    ".toml": "toml",
    ".csv": "csv",
    ".tsv": "tsv", ".tab": "tsv",
}  # fmt: skip

_FILE_NAMES: dict[str, str] = {
    "Rakefile": "ruby", "Gemfile": "ruby", "Vagrantfile": "ruby",
    "Pipfile": "toml", "Cargo.lock": "toml", "poetry.lock": "toml", "uv.lock": "toml",
    ".bashrc": "bash", ".bash_profile": "bash", ".profile": "bash", ".zshrc": "bash",
}  # fmt: skip

_SHEBANG = re.compile(r"#![ \t]*(?:\S*/)?(?:env[ \t]+(?:-\S+[ \t]+)*)?([A-Za-z]+)")
_INTERPRETERS = {
    "python": "python", "node": "javascript", "nodejs": "javascript", "deno": "typescript",
    "bash": "bash", "sh": "bash", "dash": "bash", "zsh": "bash", "ksh": "bash",
    "ruby": "ruby", "php": "php",
}  # fmt: skip
# A `.h` file is C++ when it uses constructs plain C cannot parse. A keyword is looked for
# after each line's own indentation: blanks read across line breaks were read again from
# each line start of a run of blank lines.
_CPP_HEADER_HINT = re.compile(r"^[^\S\n]*(?:class|namespace|template\s*<)\b|\w::\w", re.MULTILINE)


def detect_language(path: str, text: str) -> str:
    """A language name such as "python", "markdown", "json", "csv", or "text"."""
    name = PurePath(path).name
    if name in _FILE_NAMES:
        return _FILE_NAMES[name]
    suffix = PurePath(name).suffix.lower()
    language = _EXTENSIONS.get(suffix)
    if language == "c" and suffix == ".h" and _CPP_HEADER_HINT.search(text, 0, 200_000):
        return "cpp"
    if language is not None:
        return language
    if text.startswith("#!"):
        shebang = _SHEBANG.match(text, 0, 200)
        if shebang:
            interpreter = shebang.group(1).rstrip("0123456789")
            return _INTERPRETERS.get(interpreter, "text")
    return "text"
