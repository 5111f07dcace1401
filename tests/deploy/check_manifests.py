#!/usr/bin/env python3
"""Checks rendered Kubernetes manifests (kubectl kustomize output) for what rpsum relies on.

usage: check_manifests.py RENDERED_YAML cpu|gpu        Exits 1 listing every failed property.
"""
import sys

import yaml


def flags_of(config_map):
    out = {}
    for line in config_map["data"]["rpsum.flags"].splitlines():
        line = line.strip()
        if line.startswith("--") and "=" in line:
            k, v = line[2:].split("=", 1)
            out[k] = v
    return out


def main(path, variant):
    with open(path, encoding="utf-8") as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    by_kind = {}
    for d in docs:
        by_kind.setdefault(d["kind"], []).append(d)
    errors = []

    def check(ok, what):
        if not ok:
            errors.append(what)

    for kind in ("Namespace", "Deployment", "Service", "PodDisruptionBudget",
                 "HorizontalPodAutoscaler", "ServiceMonitor", "ConfigMap"):
        check(kind in by_kind, f"no {kind}")
    if errors:
        return errors
    dep = by_kind["Deployment"][0]
    pod = dep["spec"]["template"]["spec"]
    c = pod["containers"][0]
    flag_cm = [m for m in by_kind["ConfigMap"] if m["metadata"]["name"].startswith("rpsum-flags")]
    check(len(flag_cm) == 1, "exactly one rpsum-flags ConfigMap")
    flags = flags_of(flag_cm[0])
    health_port = int(flags["health_listen"].rsplit(":", 1)[1])
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    check(ports.get("health") == health_port, "health port matches --health_listen")
    check(ports.get("grpc") == int(flags["listen"].rsplit(":", 1)[1]), "grpc port matches --listen")
    check(ports.get("metrics") == int(flags["metrics_listen"].rsplit(":", 1)[1]),
          "metrics port matches --metrics_listen")
    for name in ("listen", "health_listen", "metrics_listen"):
        check(flags[name].startswith("0.0.0.0:"), f"--{name} binds all interfaces in a pod")
    # Probes: all gRPC on the health port; liveness and startup ask "liveness" (never load-
    # or drain-dependent), readiness the overall status.
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        p = c.get(probe, {})
        check(p.get("grpc", {}).get("port") == health_port, f"{probe} is gRPC on the health port")
    check(c["livenessProbe"]["grpc"].get("service") == "liveness", "liveness asks 'liveness'")
    check(c["startupProbe"]["grpc"].get("service") == "liveness", "startup asks 'liveness'")
    check(c["readinessProbe"]["grpc"].get("service", "") == "", "readiness asks the overall status")
    # Drain fits in the grace period: preStop sleep + --drain_timeout_s + margin.
    pre = c["lifecycle"]["preStop"]["exec"]["command"]
    pre_s = int(pre[1]) if pre[0] == "sleep" else 0
    drain = int(flags["drain_timeout_s"])
    grace = pod["terminationGracePeriodSeconds"]
    check(grace >= pre_s + drain + 5, f"grace {grace} s >= preStop {pre_s} + drain {drain} + 5")
    # Non-root, read-only, no privilege.
    sc, psc = c["securityContext"], pod["securityContext"]
    check(psc.get("runAsNonRoot") is True, "pod runAsNonRoot")
    check(sc.get("readOnlyRootFilesystem") is True, "read-only root filesystem")
    check(sc.get("allowPrivilegeEscalation") is False, "no privilege escalation")
    check(sc.get("capabilities", {}).get("drop") == ["ALL"], "all capabilities dropped")
    check("limits" in c["resources"] and "requests" in c["resources"], "resources set")
    threads = int(flags.get("threads", "0"))
    cpu = c["resources"]["limits"]["cpu"]
    check(threads == int(cpu), f"--threads ({threads}) equals the CPU limit ({cpu})")
    # Secrets for TLS and the token are referenced, never inlined.
    secrets = {v["secret"]["secretName"] for v in pod["volumes"] if "secret" in v}
    check({"rpsum-tls", "rpsum-token"} <= secrets, "TLS and token come from Secrets")
    check("Secret" not in by_kind, "no Secret objects in the manifests")
    mounts = {m["mountPath"] for m in c["volumeMounts"]}
    for flag in ("tls_cert", "tls_key", "auth_token_file"):
        check(any(flags[flag].startswith(m + "/") for m in mounts), f"--{flag} is on a mount")
    # Services: one headless (client-side round_robin), one ClusterIP.
    svcs = by_kind["Service"]
    check(any(s["spec"].get("clusterIP") == "None" for s in svcs), "a headless Service")
    check(any(s["spec"].get("type") == "ClusterIP" and s["spec"].get("clusterIP") != "None"
              for s in svcs), "a ClusterIP Service")
    hpa = by_kind["HorizontalPodAutoscaler"][0]
    check(hpa["spec"]["metrics"][0]["pods"]["metric"]["name"] == "rpsum_queue_cost_tokens",
          "HPA scales on rpsum_queue_cost_tokens")
    check(hpa["spec"]["minReplicas"] >= 2, "HPA keeps 2 replicas for the PDB")
    res = c["resources"]["limits"]
    if variant == "gpu":
        check(res.get("nvidia.com/gpu") == 1, "gpu: one GPU per pod")
        check(flags.get("device", "").startswith("cuda"), "gpu: --device=cuda")
    else:
        check("nvidia.com/gpu" not in res, "cpu: no GPU requested")
        check(flags.get("device", "auto") in ("auto", "cpu"), "cpu: device auto or cpu")
    return errors


if __name__ == "__main__":
    errs = main(sys.argv[1], sys.argv[2])
    for e in errs:
        print(f"FAIL ({sys.argv[2]}): {e}")
    if not errs:
        print(f"check_manifests ({sys.argv[2]}): all properties hold")
    sys.exit(1 if errs else 0)
