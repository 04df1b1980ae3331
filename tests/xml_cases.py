"""Realistic XML reports for the XML optimizer tests, generated deterministically."""



from __future__ import annotations

TRACEBACK = "\n".join(
    [
        "self = &lt;tests.test_api.TestOrders object at 0x7f3a2c1d9b50&gt;",
        "",
        "    def test_refund_partial(self):",
        '        order = make_order(total=Decimal("20.00"))',
        "        refund = order.refund(Decimal(\"5.00\"))",
        ">       assert refund.status == &quot;settled&quot;",
        "E       AssertionError: assert 'pending' == 'settled'",
        "E         - settled",
        "E         + pending",
    ]
    + [f"    frame {i}: tokenlab/shop/orders.py:{100 + i} in _settle" for i in range(30)]
    + ["", "tests/test_api.py:88: AssertionError"]
)


def junit_pytest(cases: int = 200) -> bytes:
    """A `pytest --junitxml` report: failures, an error, skips, passing cases with output."""
    lines = [
        '<?xml version="1.0" encoding="utf-8"?>',
        (
            f'<testsuites><testsuite name="pytest" errors="1" failures="2" skipped="3" tests="{cases}"'
            ' time="41.337" timestamp="2026-03-02T10:14:07.118824" hostname="ci-runner-7">'
        ),
    ]
    modules = ["test_api", "test_models", "test_cli", "test_store", "test_render"]
    for i in range(cases):
        module = modules[i % len(modules)]
        head = (
            f'<testcase classname="tests.{module}.TestCase{i % 7}" name="test_case_{i:03d}"'
            f' file="tests/{module}.py" line="{10 + i * 3}" time="{0.003 + (i % 13) / 1000:.3f}"'
        )
        if i == 57:
            lines.append(
                head.replace("test_case_057", "test_refund_partial")
                + '><failure message="AssertionError: assert \'pending\' == \'settled\'">'
                + TRACEBACK
                + "</failure></testcase>"
            )
        elif i == 131:
            lines.append(
                head.replace("test_case_131", "test_export_unicode")
                + '><failure message="UnicodeEncodeError: \'ascii\' codec can\'t encode character \'\\xe9\'">'
                "tests/test_cli.py:212: in test_export_unicode\n    out.write(name)\n"
                "E   UnicodeEncodeError: 'ascii' codec can't encode character '\\xe9'"
                "</failure><system-out>exporting 3 rows\n</system-out></testcase>"
            )
        elif i == 170:
            lines.append(
                head.replace("test_case_170", "test_store_reopen")
                + '><error message="failed on setup with &quot;PermissionError: [Errno 13] Permission denied:'
                " '/var/lib/tokenlab/store'&quot;\">@pytest.fixture\n    def store(tmp_path):\n"
                "E   PermissionError: [Errno 13] Permission denied: '/var/lib/tokenlab/store'"
                "</error></testcase>"
            )
        elif i in (12, 99, 150):
            lines.append(
                head
                + '><skipped type="pytest.skip" message="needs PostgreSQL">'
                f"tests/{module}.py:{10 + i * 3}: needs PostgreSQL</skipped></testcase>"
            )
        elif i % 40 == 5:
            out = "\n".join(f"DEBUG step {n}: ok" for n in range(4))
            lines.append(head + f"><system-out>{out}</system-out></testcase>")
        else:
            lines.append(head + " />")
    lines.append("</testsuite></testsuites>")
    return "".join(lines).encode()


def surefire() -> bytes:
    """A Maven surefire TEST-*.xml: properties, a failure, an error, a flaky test, system-out."""
    props = "\n".join(
        f'    <property name="{name}" value="{value}"/>'
        for name, value in [
            ("java.runtime.name", "OpenJDK Runtime Environment"),
            ("sun.boot.library.path", "/usr/lib/jvm/java-17-openjdk-amd64/lib"),
            ("java.vm.version", "17.0.10+7-Ubuntu-122.04.1"),
            ("maven.multiModuleProjectDirectory", "/home/runner/work/shop/shop"),
            ("java.vm.vendor", "Ubuntu"),
            ("path.separator", ":"),
            ("user.country", "US"),
            ("user.dir", "/home/runner/work/shop/shop/orders"),
            ("java.runtime.version", "17.0.10+7-Ubuntu-122.04.1"),
            ("basedir", "/home/runner/work/shop/shop/orders"),
            ("os.arch", "amd64"),
            ("java.io.tmpdir", "/tmp"),
            ("line.separator", "&#10;"),
            ("os.name", "Linux"),
            ("sun.jnu.encoding", "UTF-8"),
            ("surefire.test.class.path", "/home/runner/.m2/repository/junit/junit/4.13.2/junit-4.13.2.jar"),
        ]
    )
    cases = []
    for i in range(40):
        name = f"shouldComputeTotal{i:02d}"
        if i == 7:
            cases.append(
                '  <testcase name="shouldRejectNegativeQuantity" classname="com.shop.orders.OrderServiceTest" time="0.012">\n'
                '    <failure message="expected: &lt;400&gt; but was: &lt;200&gt;" type="org.opentest4j.AssertionFailedError">'
                "org.opentest4j.AssertionFailedError: expected: &lt;400&gt; but was: &lt;200&gt;\n"
                + "".join(f"\tat com.shop.orders.Frame{n}.call(Frame{n}.java:{n + 10})\n" for n in range(25))
                + "</failure>\n  </testcase>"
            )
        elif i == 23:
            cases.append(
                '  <testcase name="shouldConnectToInventory" classname="com.shop.orders.OrderServiceTest" time="30.001">\n'
                '    <error message="Connection refused: localhost/127.0.0.1:5432" type="java.net.ConnectException">'
                "java.net.ConnectException: Connection refused\n\tat java.base/sun.nio.ch.Net.connect0(Native Method)\n"
                "</error>\n    <system-out>connecting to inventory at localhost:5432\n</system-out>\n  </testcase>"
            )
        elif i == 31:
            cases.append(
                '  <testcase name="shouldRetryPayment" classname="com.shop.orders.OrderServiceTest" time="0.210">\n'
                '    <flakyFailure message="timeout after 200ms" type="java.util.concurrent.TimeoutException">'
                "java.util.concurrent.TimeoutException\n</flakyFailure>\n  </testcase>"
            )
        else:
            cases.append(
                f'  <testcase name="{name}" classname="com.shop.orders.OrderServiceTest" time="0.00{i % 9}"/>'
            )
    log = "\n".join(f"2026-03-02 10:15:{i % 60:02d} INFO  OrderService - processed order {1000 + i}" for i in range(60))
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<testsuite xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        'xsi:noNamespaceSchemaLocation="https://maven.apache.org/surefire/maven-surefire-plugin/xsd/surefire-test-report.xsd" '
        'version="3.0" name="com.shop.orders.OrderServiceTest" time="31.402" tests="40" errors="1" skipped="0" failures="1">\n'
        f"  <properties>\n{props}\n  </properties>\n" + "\n".join(cases) + f"\n  <system-out><![CDATA[{log}\n]]></system-out>\n"
        "</testsuite>\n"
    ).encode()


def checkstyle() -> bytes:
    """A checkstyle report: clean files, one error, repeated warnings of a few kinds."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>', '<checkstyle version="10.12.5">']
    for n in range(60):
        path = f"/home/runner/work/shop/src/main/java/com/shop/module{n // 10}/Class{n:02d}.java"
        if n == 4:
            out.append(f'<file name="{path}">')
            out.append(
                '<error line="12" column="1" severity="error" message="Unused import - java.util.List."'
                ' source="com.puppycrawl.tools.checkstyle.checks.imports.UnusedImportsCheck"/>'
            )
            for line in range(30, 90, 3):
                out.append(
                    f'<error line="{line}" column="{9 + line % 5}" severity="warning" message="\'{line}\' is a magic number."'
                    ' source="com.puppycrawl.tools.checkstyle.checks.coding.MagicNumberCheck"/>'
                )
            for line in range(100, 130, 4):
                out.append(
                    f'<error line="{line}" severity="warning" message="Line is longer than 100 characters (found {101 + line % 30})."'
                    ' source="com.puppycrawl.tools.checkstyle.checks.sizes.LineLengthCheck"/>'
                )
            out.append("</file>")
        elif n == 41:
            out.append(f'<file name="{path}">')
            out.append(
                '<error line="7" column="5" severity="warning" message="Missing a Javadoc comment."'
                ' source="com.puppycrawl.tools.checkstyle.checks.javadoc.MissingJavadocMethodCheck"/>'
            )
            out.append("</file>")
        else:
            out.append(f'<file name="{path}">')
            out.append("</file>")
    out.append("</checkstyle>")
    return ("\n".join(out) + "\n").encode()
