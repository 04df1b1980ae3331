"""Code outlines per language: each fixture in fixtures/reads/ has known symbols and lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from tokenlab.reads.outline import find_section, outline, render_outline
from tokenlab.reads.symbols import Symbol

FIXTURES = Path(__file__).parent.parent / "fixtures" / "reads"

# fixture -> (language, [(kind, path from the top, start line, end line), ...])
KNOWN = {
    "rate_limiter.js": ("javascript", [
        ("class", "TokenBucket", 8, 47),
        ("method", "TokenBucket.constructor", 11, 17),
        ("method", "TokenBucket.available", 35, 37),  # a getter
        ("method", "TokenBucket.onThrottle", 43, 46),  # an arrow-function class field
        ("function", "limiterFor", 55, 61),  # const f = (…) => {…}
        ("function", "drainOrder", 63, 69),  # a generator
        ("function", "middleware", 71, 80),  # module.exports.middleware = function …
    ]),
    "store.ts": ("typescript", [
        ("type", "Listener", 3, 3),
        ("interface", "Store", 10, 14),
        ("method", "Store.dispatch", 12, 12),
        ("enum", "Status", 16, 20),
        ("class", "BaseStore", 22, 47),  # abstract, exported
        ("method", "BaseStore.reduce", 27, 27),  # abstract signature
        ("method", "TodoStore.onChange", 68, 70),
        ("namespace", "Selectors", 73, 79),
        ("function", "Selectors.isBusy", 78, 78),
        ("interface", "Window", 86, 88),
    ]),
    "Button.tsx": ("tsx", [
        ("interface", "ButtonProps", 5, 10),
        ("function", "Button", 18, 24),
        ("function", "ConfirmButton", 26, 42),
        ("method", "ErrorBoundary.render", 51, 56),
    ]),
    "cache.go": ("go", [
        ("interface", "Clock", 11, 13),
        ("method", "Clock.Now", 12, 12),
        ("method", "systemClock.Now", 17, 17),  # receiver without a name
        ("struct", "LRU", 26, 33),
        ("type", "Option", 36, 36),
        ("function", "New", 48, 60),  # generic
        ("method", "LRU.Get", 63, 78),  # pointer receiver to a generic type
        ("method", "LRU.Len", 102, 106),
    ]),
    "tokenizer.rs": ("rust", [
        ("enum", "Token", 7, 14),  # the #[derive] line starts the range
        ("impl", "LexError", 22, 26),
        ("method", "LexError.fmt", 23, 25),
        ("trait", "Source", 30, 36),
        ("method", "Source.position", 31, 31),  # a signature in a trait
        ("method", "Lexer.number", 54, 64),
        ("macro", "tokens", 92, 96),
        ("module", "tests", 102, 117),  # from #[cfg(test)]
        ("function", "tests.reports_position", 112, 116),  # from #[test]
    ]),
    "OrderService.java": ("java", [
        ("class", "OrderService", 11, 79),
        ("enum", "OrderService.State", 13, 21),
        ("method", "OrderService.State.isFinal", 18, 20),
        ("record", "OrderService.Line", 23, 33),
        ("method", "OrderService.Line.Line", 24, 28),  # compact constructor
        ("interface", "OrderService.Repository", 35, 39),
        ("method", "OrderService.OrderService", 57, 59),  # constructor
        ("method", "OrderService.place", 61, 67),  # the annotation starts the range
    ]),
    "ring_buffer.c": ("c", [
        ("macro", "RB_MIN", 6, 6),
        ("struct", "ring_buffer", 8, 14),
        ("struct", "rb_stats", 16, 19),  # anonymous struct named by its typedef
        ("enum", "rb_status", 21, 25),
        ("function", "advance", 29, 29),  # the prototype
        ("function", "rb_create", 31, 44),  # returns a pointer
        ("function", "rb_get_stats", 84, 87),
    ]),
    "matrix.hpp": ("cpp", [
        ("namespace", "linalg", 7, 71),
        ("class", "linalg.Matrix", 9, 32),  # template<…> starts the range
        ("method", "linalg.Matrix.operator()", 18, 20),
        ("method", "linalg.Matrix.identity", 28, 28),  # a member declaration
        ("function", "linalg.Matrix<T, Rows, Cols>::transposed", 34, 43),
        ("method", "linalg.Shape.square", 49, 49),
        ("function", "linalg.trace", 54, 61),
        ("function", "linalg.operator<<", 63, 63),
        ("function", "linalg.detail.same_shape", 66, 68),
    ]),
    "InvoiceMailer.php": ("php", [
        ("namespace", "App\\Billing", 5, 5),
        ("interface", "Mailer", 10, 13),
        ("trait", "FormatsMoney", 15, 21),
        ("enum", "Channel", 23, 32),
        ("method", "Channel.label", 28, 31),
        ("method", "InvoiceMailer.sendReminder", 46, 57),  # the #[…] attribute starts it
        ("function", "format_invoice_number", 74, 77),
    ]),
    "report.rb": ("ruby", [
        ("module", "Reports", 6, 47),
        ("class", "Reports.Error", 7, 7),
        ("method", "Reports.SalesReport.from_csv", 17, 20),  # def self.…
        ("method", "Reports.SalesReport.top", 28, 28),  # endless def
        ("method", "Reports.SalesReport.validate!", 36, 39),
        ("method", "run", 49, 52),
    ]),
    "backup.sh": ("bash", [
        ("function", "log", 8, 10),
        ("function", "dump_database", 17, 22),  # `function name {` form
        ("function", "main", 37, 45),
    ]),
    "inventory.py": ("python", [
        ("function", "cached.wrapper", 15, 19),
        ("method", "Warehouse.shelf_label", 70, 74),
    ]),
}  # fmt: skip


def by_path(symbols: tuple[Symbol, ...]) -> dict[tuple[str, str], tuple[int, int]]:
    found: dict[tuple[str, str], tuple[int, int]] = {}
    pending = [(symbol, "") for symbol in reversed(symbols)]
    while pending:
        symbol, prefix = pending.pop()
        path = f"{prefix}.{symbol.name}" if prefix else symbol.name
        found.setdefault((symbol.kind, path), (symbol.start_line, symbol.end_line))
        pending.extend((child, path) for child in reversed(symbol.children))
    return found


@pytest.mark.parametrize("fixture", sorted(KNOWN), ids=str)
def test_known_symbols(fixture: str) -> None:
    language, expected = KNOWN[fixture]
    path = FIXTURES / fixture
    result = outline(str(path), path.read_text(encoding="utf-8"))
    assert result.language == language
    assert result.note == ""
    found = by_path(result.symbols)
    for kind, symbol_path, start, end in expected:
        assert found.get((kind, symbol_path)) == (start, end), f"{kind} {symbol_path}"


@pytest.mark.parametrize("fixture", sorted(KNOWN), ids=str)
def test_full_outline_golden(fixture: str, golden) -> None:  # type: ignore[no-untyped-def]
    path = FIXTURES / fixture
    result = outline(str(path), path.read_text(encoding="utf-8"))
    golden.check(f"outline/{fixture}.txt", render_outline(result, None))


@pytest.mark.parametrize(
    ("fixture", "name", "start"),
    [
        ("cache.go", "LRU.Put", 81),
        ("tokenizer.rs", "Lexer.next", 70),
        ("matrix.hpp", "linalg::detail::same_shape", 66),
        ("matrix.hpp", "Matrix::transposed", 26),  # the declaration in the class comes first
        ("OrderService.java", "Order.total", 50),
        ("report.rb", "SalesReport.to_json", 30),
    ],
)
def test_find_code_sections(fixture: str, name: str, start: int) -> None:
    path = FIXTURES / fixture
    found = find_section(outline(str(path), path.read_text(encoding="utf-8")), name)
    assert found is not None and found.start_line == start


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("broken.js", "class A {\n  m() {\n    if (\n}\nfunction b() {}\n"),
        ("broken.go", "package x\nfunc (\n"),
        ("broken.rs", "impl {{{{\nfn f( {\n"),
        ("broken.c", "int main( {\n#define\n"),
        ("broken.rb", "class\ndef\nend end end\n"),
        ("broken.sh", "f() {\n  if then fi\n"),
        ("weird.java", "\x00\x01class \ufffd {\n"),
    ],
)
def test_syntax_errors_still_outline(path: str, source: str) -> None:
    result = outline(path, source)
    assert result.line_count == source.count("\n")
    for symbol in by_path(result.symbols).values():
        assert 1 <= symbol[0] <= symbol[1] <= result.line_count


def test_header_detected_as_cpp() -> None:
    assert outline("a.h", "namespace x {\nclass A {};\n}\n").language == "cpp"
    assert outline("b.h", "struct a { int x; };\nint f(void);\n").language == "c"


def test_detail_holds_the_signature_line() -> None:
    path = FIXTURES / "cache.go"
    found = find_section(outline(str(path), path.read_text(encoding="utf-8")), "LRU.Get")
    assert found is not None and found.detail == "func (c *LRU[V]) Get(key string) (V, bool) {"
