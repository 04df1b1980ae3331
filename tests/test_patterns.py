"""`compile_on_use`: a pattern compiled at its first use acts as the `re.Pattern` would."""

from __future__ import annotations

import re

import pytest

from tokenlab.patterns import compile_on_use


def test_the_pattern_is_compiled_only_when_used(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[object] = []
    real = re.compile
    monkeypatch.setattr(re, "compile", lambda *args: compiled.append(args) or real(*args))
    pattern = compile_on_use(r"(?P<word>\w+)-(\d+)", re.IGNORECASE)
    assert pattern.pattern == r"(?P<word>\w+)-(\d+)" and compiled == []
    assert pattern.fullmatch("Worker-7") is not None
    assert compiled == [(r"(?P<word>\w+)-(\d+)", re.IGNORECASE)]
    pattern.search("a-1")
    assert len(compiled) == 1


@pytest.mark.parametrize("flags", [0, re.MULTILINE, re.IGNORECASE | re.DOTALL])
def test_every_method_answers_as_the_compiled_pattern(flags: int) -> None:
    source, text = r"^(?P<key>[a-z]+)=(\d*)$", "a=1\nB=2\nc=\nd=44"
    lazy, real = compile_on_use(source, flags), re.compile(source, flags)
    assert lazy.flags == real.flags and lazy.groups == real.groups and lazy.groupindex == real.groupindex
    for method in ("search", "match", "fullmatch"):
        found, expected = getattr(lazy, method)(text), getattr(real, method)(text)
        assert (found and found.span()) == (expected and expected.span())
    assert lazy.findall(text) == real.findall(text)
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in real.finditer(text)]
    assert lazy.sub(r"\2", text) == real.sub(r"\2", text) and lazy.subn("", text) == real.subn("", text)
    assert lazy.split(text) == real.split(text)


def test_bytes_patterns_and_positions() -> None:
    lazy, real = compile_on_use(rb"\n(?=x)"), re.compile(rb"\n(?=x)")
    data = b"a\nxb\nc\nx"
    assert lazy.match(data, 1) is not None and lazy.match(data, 4) is None
    assert [m.start() for m in lazy.finditer(data, 2, 8)] == [m.start() for m in real.finditer(data, 2, 8)]


def test_an_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        compile_on_use("a").no_such_method  # type: ignore[attr-defined]  # noqa: B018
    with pytest.raises(re.error):
        compile_on_use("(").search("x")
