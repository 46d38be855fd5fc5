#!/usr/bin/env bash
# The package graph's rules (README "Layout"), checked on every source file; `make test` runs
# it. Each violation is printed as FILE: import MODULE: the rule it breaks, and the exit status is 1.
#   - Feature modules import only modules below them (the ranks below); none imports JouleDaemon
#     or JouleClient, and JouleClient never imports JouleDaemon.
#   - JouleApplication imports only JouleWire of Joule's own modules, and no package product.
#   - Every module a target imports is declared in Package.swift (targets and products; the
#     toolchain's own modules, Foundation, Glibc, Testing and so on, need no declaration).
#   - `import Glibc` / `import Musl` only in files whose path says they are a gateway.
#   - Sources/joule (the CLI) holds no task group, loop or sleep: it parses, calls and prints.
#   - Tests mirror the modules: every library module has its own test target.
set -euo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
"$swift" package dump-package > "${TMPDIR:-/tmp}/joule-package.json"
python3 - "${TMPDIR:-/tmp}/joule-package.json" <<'EOF'
import json, os, re, sys

package = json.load(open(sys.argv[1]))
# Bottom up; a feature module may import only lower ranks.
ranks = {
    "JouleWire": 0, "JouleHardware": 1, "JouleEnergy": 2, "JouleWorkloads": 3, "JouleLocation": 3,
    "JouleApps": 4, "JouleTransferQueue": 4, "JouleSession": 5, "JouleHistory": 5, "JouleHTTP": 5, "JouleMetrics": 5,
    "JouleDaemon": 6, "JouleClient": 6,
}
targets, declared, products = {}, {}, set()
for target in package["targets"]:
    name = target["name"]
    base = "Tests" if target["type"] == "test" else "Sources"
    targets[name] = target.get("path") or f"{base}/{name}"
    declared[name] = set()
    for dependency in target["dependencies"]:
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                declared[name].add(dependency[kind][0])
                if kind == "product":
                    products.add(dependency[kind][0])
known = set(targets) | products
problems = []

def imports(path):
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        match = re.match(r"\s*(?:@testable\s+|@_exported\s+)?import\s+(?:\w+\s+)?(\w+)", line)
        if match:
            yield number, match.group(1)

for name, root in sorted(targets.items()):
    for directory, _, files in os.walk(root):
        for file in sorted(files):
            if not file.endswith(".swift"):
                continue
            path = os.path.join(directory, file)
            for number, module in imports(path):
                where = f"{path}:{number}: import {module}"
                if module in known and module != name and module not in declared[name]:
                    problems.append(f"{where}: not declared in {name}'s dependencies in Package.swift")
                if name in ranks and module in ranks and module != name and ranks[module] >= ranks[name]:
                    problems.append(f"{where}: {name} may import only modules below it (README Layout)")
                if name == "JouleApplication" and module in known and module != "JouleWire":
                    problems.append(f"{where}: JouleApplication imports only JouleWire of Joule's modules")
                if module in ("Glibc", "Musl") and root.startswith("Sources") and "Gateway" not in path:
                    problems.append(f"{where}: C calls belong in a gateway file (a path with Gateway in it)")
            if name == "joule":
                text = re.sub(r"//[^\n]*", "", open(path, encoding="utf-8").read())
                for pattern in (r"with\w*TaskGroup", r"Task\.sleep", r"(?<![.\w])u?sleep\(", r"while\s+true", r"repeat\s*\{"):
                    for match in re.finditer(pattern, text):
                        number = text.count("\n", 0, match.start()) + 1
                        problems.append(f"{path}:{number}: {match.group(0)}: the CLI parses, calls and prints; "
                                        "loops, task groups and sleeps belong in a library")

tests = {name for name, target in zip(targets, package["targets"]) if target["type"] == "test"}
for name, target in zip(targets, package["targets"]):
    if target["type"] == "regular" and name.startswith("Joule") and not name.endswith("Testing"):
        if f"{name}Tests" not in tests:
            problems.append(f"{targets[name]}: {name} has no test target {name}Tests (tests mirror the modules)")

for problem in problems:
    print(f"check-layers: {problem}")
sys.exit(1 if problems else 0)
EOF
