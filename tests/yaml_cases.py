"""Realistic YAML documents for the YAML optimizer tests, generated deterministically."""



from __future__ import annotations

import json


def _pod(n: int, failing: bool) -> list[str]:
    name = f"checkout-7d9f8b6c4-{n:05x}"
    applied = json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": "shop", "labels": {"app": "checkout"}},
            "spec": {"containers": [{"name": "checkout", "image": "registry.example.com/shop/checkout:1.42.0"}]},
        },
        separators=(",", ":"),
    )
    state = (
        [
            "      state:",
            "        waiting:",
            '          message: back-off 5m0s restarting failed container=checkout pod=' + name,
            "          reason: CrashLoopBackOff",
            "      lastState:",
            "        terminated:",
            "          exitCode: 1",
            "          reason: Error",
        ]
        if failing
        else ["      state:", "        running:", '          startedAt: "2026-03-02T09:12:44Z"']
    )
    managed = []
    for manager, operation in (("kube-controller-manager", "Update"), ("kubelet", "Update")):
        managed += [
            "    - apiVersion: v1",
            "      fieldsType: FieldsV1",
            "      fieldsV1:",
            "        f:metadata:",
            "          f:generateName: {}",
            "          f:labels:",
            "            .: {}",
            "            f:app: {}",
            "            f:pod-template-hash: {}",
            "          f:ownerReferences:",
            "            .: {}",
            '            k:{"uid":"6f1c2a8e-0d3b-4d55-9a71-2c0e5b7d9f10"}: {}',
            "        f:spec:",
            "          f:containers:",
            '            k:{"name":"checkout"}:',
            "              .: {}",
            "              f:image: {}",
            "              f:imagePullPolicy: {}",
            "              f:name: {}",
            "              f:resources: {}",
            f"      manager: {manager}",
            f"      operation: {operation}",
            '      time: "2026-03-02T09:12:40Z"',
        ]
    return [
        "- apiVersion: v1",
        "  kind: Pod",
        "  metadata:",
        "    annotations:",
        "      kubectl.kubernetes.io/last-applied-configuration: |",
        "        " + applied,
        '    creationTimestamp: "2026-03-02T09:12:40Z"',
        "    generateName: checkout-7d9f8b6c4-",
        "    labels:",
        "      app: checkout",
        "      pod-template-hash: 7d9f8b6c4",
        "    managedFields:",
        *managed,
        f"    name: {name}",
        "    namespace: shop",
        "    ownerReferences:",
        "    - apiVersion: apps/v1",
        "      blockOwnerDeletion: true",
        "      controller: true",
        "      kind: ReplicaSet",
        "      name: checkout-7d9f8b6c4",
        "      uid: 6f1c2a8e-0d3b-4d55-9a71-2c0e5b7d9f10",
        f'    resourceVersion: "{8812000 + n}"',
        f"    uid: {n:08x}-3c1e-4a7b-8f20-9d4e6b1a2c3d",
        "  spec:",
        "    containers:",
        "    - env:",
        "      - name: DATABASE_URL",
        "        valueFrom:",
        "          secretKeyRef:",
        "            key: url",
        "            name: checkout-db",
        "      - name: LOG_LEVEL",
        "        value: info",
        "      image: registry.example.com/shop/checkout:1.42.0",
        "      imagePullPolicy: IfNotPresent",
        "      name: checkout",
        "      ports:",
        "      - containerPort: 8080",
        "        name: http",
        "        protocol: TCP",
        "      resources:",
        "        limits:",
        "          cpu: 500m",
        "          memory: 512Mi",
        "        requests:",
        "          cpu: 100m",
        "          memory: 128Mi",
        "      terminationMessagePath: /dev/termination-log",
        "      terminationMessagePolicy: File",
        "      volumeMounts:",
        "      - mountPath: /var/run/secrets/kubernetes.io/serviceaccount",
        "        name: kube-api-access-" + f"{n:05x}",
        "        readOnly: true",
        "    dnsPolicy: ClusterFirst",
        "    enableServiceLinks: true",
        f"    nodeName: gke-shop-pool-1-{n % 3}",
        "    restartPolicy: Always",
        "    schedulerName: default-scheduler",
        "    serviceAccountName: default",
        "    terminationGracePeriodSeconds: 30",
        "  status:",
        "    conditions:",
        "    - lastProbeTime: null",
        '      lastTransitionTime: "2026-03-02T09:12:40Z"',
        "      status: \"True\"",
        "      type: Initialized",
        "    - lastProbeTime: null",
        '      lastTransitionTime: "2026-03-02T09:12:45Z"',
        f"      status: \"{'False' if failing else 'True'}\"",
        "      type: Ready",
        "    containerStatuses:",
        f"    - containerID: containerd://{n:064x}",
        "      image: registry.example.com/shop/checkout:1.42.0",
        "      imageID: registry.example.com/shop/checkout@sha256:" + "9f" * 32,
        *state,
        "      name: checkout",
        f"      ready: {'false' if failing else 'true'}",
        f"      restartCount: {7 if failing else 0}",
        "      started: true",
        f"    hostIP: 10.128.0.{10 + n % 3}",
        f"    phase: {'Running'}",
        f"    podIP: 10.4.{n % 7}.{20 + n}",
        "    qosClass: Burstable",
        '    startTime: "2026-03-02T09:12:40Z"',
    ]


def kubectl_pods(count: int = 12, failing: tuple[int, ...] = (5,)) -> bytes:
    """`kubectl get pods -o yaml`: a List of similar pods with managedFields, one crash-looping."""
    lines = ["apiVersion: v1", "items:"]
    for n in range(count):
        lines += _pod(n, n in failing)
    lines += ["kind: List", "metadata:", '  resourceVersion: ""']
    return ("\n".join(lines) + "\n").encode()


CERT = "\n".join(
    "    " + ("MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ"[i % 7 :] + "QUFBQUFB" * 2)[:68]
    for i in range(24)
)


def manifests() -> bytes:
    """A `helm template` style stream: several documents, one with a certificate."""
    docs = []
    for n, name in enumerate(["api", "worker", "scheduler", "web"]):
        docs.append(
            "\n".join(
                [
                    "# Source: shop/templates/deployment.yaml",
                    "apiVersion: apps/v1",
                    "kind: Deployment",
                    "metadata:",
                    f"  name: shop-{name}",
                    "  labels:",
                    "    app.kubernetes.io/name: shop",
                    f"    app.kubernetes.io/component: {name}",
                    "    app.kubernetes.io/managed-by: Helm",
                    "    helm.sh/chart: shop-3.1.4",
                    "spec:",
                    f"  replicas: {2 + n}",
                    "  selector:",
                    "    matchLabels:",
                    f"      app.kubernetes.io/component: {name}",
                    "  template:",
                    "    metadata:",
                    "      labels:",
                    f"        app.kubernetes.io/component: {name}",
                    "    spec:",
                    "      containers:",
                    f"        - name: {name}",
                    f"          image: \"ghcr.io/example/shop-{name}:3.1.4\"",
                    "          args: [\"--port=8080\", \"--log-format=json\"]",
                    "          resources:",
                    "            limits: {cpu: 500m, memory: 256Mi}",
                    "          readinessProbe:",
                    "            httpGet: {path: /healthz, port: 8080}",
                    "            periodSeconds: 10",
                ]
            )
        )
    docs.append(
        "\n".join(  # noqa: FLY002 (a document, one line an element)
            [
                "# Source: shop/templates/tls.yaml",
                "apiVersion: v1",
                "kind: Secret",
                "metadata:",
                "  name: shop-tls",
                "type: kubernetes.io/tls",
                "stringData:",
                "  tls.crt: |",
                "    -----BEGIN CERTIFICATE-----",
                CERT,
                "    -----END CERTIFICATE-----",
            ]
        )
    )
    return ("---\n" + "\n---\n".join(docs) + "\n").encode()


def ci_small() -> bytes:
    """A short GitHub Actions workflow: nothing in it is worth folding."""
    return b"""name: ci
on:
  push:
    branches: [main]
  pull_request:

jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        python: ["3.11", "3.12"]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: ${{ matrix.python }}
      - name: Install
        run: pip install -e '.[test]'
      - name: Test
        run: pytest -q
"""


def ci_large() -> bytes:
    """A GitLab CI config with long scripts and a long variables list."""
    script = "\n".join(f"    - ./scripts/step_{n:02d}.sh --verbose --target \"$CI_COMMIT_REF_SLUG\"" for n in range(20))
    variables = "\n".join(f"  FEATURE_FLAG_{n:02d}: \"enabled\"" for n in range(30))
    heredoc = "\n".join(f"      echo \"line {n} of the release notes for $CI_COMMIT_TAG\" >> notes.md" for n in range(25))
    return f"""stages:
  - build
  - test
  - release

variables:
{variables}

build:
  stage: build
  image: golang:1.22
  script:
{script}
  artifacts:
    paths: [dist/]

test:
  stage: test
  image: golang:1.22
  needs: [build]
  script:
    - go test ./...

release:
  stage: release
  image: alpine:3.19
  rules:
    - if: $CI_COMMIT_TAG
  script:
    - |
{heredoc}
      cat notes.md
""".encode()
