"""Regular expressions compiled when first used, not when their module is imported.

Every `tokens` process imports the pipeline's modules, and compiling their patterns at
import cost about 20 ms of a cold `tokens run` whose command printed nothing, which uses
none of them; analysing a log compiled some 200 patterns of families it never ran. Most
patterns serve content of one kind, so a process compiles only those its input needs.

`compile_on_use` returns an object that stands in for the `re.Pattern`: `.pattern` is
known at once (modules build patterns from other patterns' text), and the first use of
any other attribute compiles the pattern and keeps the compiled pattern's methods on the
object, so later calls go straight to them, as fast as on the `re.Pattern` itself. The
`re` module's functions (`re.sub(pattern, …)`) take only a real pattern or a string: pass
`.pattern` text or call the object's own methods. Two threads that use it first at once
each compile it, and keep equal patterns.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from typing import AnyStr

# What a `re.Pattern` offers; all are kept on the object at its first use.
_ATTRIBUTES = (
    "search",
    "match",
    "fullmatch",
    "split",
    "findall",
    "finditer",
    "sub",
    "subn",
    "scanner",
    "flags",
    "groups",
    "groupindex",
)


class _CompiledOnUse:
    """A `re.Pattern`'s stand-in that compiles it at its first use (see the module's doc)."""

    def __init__(self, pattern: str | bytes, flags: int) -> None:
        self.pattern = pattern
        self._flags = flags

    def __getattr__(self, name: str) -> object:  # only for attributes not yet kept
        if name not in _ATTRIBUTES:
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self._flags)
        for attribute in _ATTRIBUTES:
            setattr(self, attribute, getattr(compiled, attribute))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"compile_on_use({self.pattern!r}, {self._flags!r})"


def compile_on_use(pattern: AnyStr, flags: int | re.RegexFlag = 0) -> re.Pattern[AnyStr]:
    """`re.compile(pattern, flags)`, done at the first use of the pattern's methods."""
    return _CompiledOnUse(pattern, int(flags))  # type: ignore[return-value]
