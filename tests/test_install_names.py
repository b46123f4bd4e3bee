"""Every install instruction names a package that is Engram's own.

PyPI's `engram` is an unrelated project, so Engram's Python distribution is
`engram-grpc` (imported as `engram` and `engram_server`). A doc, a docstring or
an error message that says `pip install engram` sends a user to someone else's
code; this test reads them all and fails on such a line.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON_DISTRIBUTION = "engram-grpc"

# `pip install ...` up to the end of the command (a closing quote, backtick or
# comment, or the end of the line).
PIP_INSTALL = re.compile(r"pip install ([^`#\n)]+)")
REQUIREMENT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*")


def _texts() -> list[Path]:
    """The files a user reads: docs, READMEs, examples, and the Python sources whose
    strings reach users (error messages, docstrings)."""
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    files += sorted((ROOT / "clients").rglob("README.md"))
    files += sorted((ROOT / "examples").rglob("*")) if (ROOT / "examples").exists() else []
    files += sorted((ROOT / "service" / "engram_server").rglob("*.py"))
    files += sorted((ROOT / "clients" / "python" / "engram").rglob("*.py"))
    skip = ("node_modules", "/v1/", "/target/", "/dist/")
    return [f for f in files if f.is_file() and not any(s in str(f) for s in skip)]


def _pip_requirements(line: str) -> list[str]:
    """The requirement names a `pip install` line installs (paths excluded)."""
    names = []
    for match in PIP_INSTALL.finditer(line):
        try:
            words = shlex.split(match.group(1).strip().rstrip("'\""), posix=True)
        except ValueError:
            words = match.group(1).split()
        for word in words:
            if word.startswith("-") or "/" in word or word in (".", ".."):
                continue
            name = REQUIREMENT_NAME.match(word.strip("'\""))
            if name:
                names.append(name.group(0).lower())
    return names


def test_the_python_distribution_is_engram_grpc() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == PYTHON_DISTRIBUTION
    dev = project["optional-dependencies"]["dev"]
    assert any(d.startswith(f"{PYTHON_DISTRIBUTION}[") for d in dev)


def test_no_text_tells_a_user_to_pip_install_pypis_engram() -> None:
    wrong = []
    for path in _texts():
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if "engram" in _pip_requirements(line):
                wrong.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not wrong, "these install PyPI's unrelated `engram`:\n" + "\n".join(wrong)


def test_the_rule_catches_the_wrong_name_and_passes_ours() -> None:
    assert _pip_requirements("pip install 'engram[mcp]'") == ["engram"]
    assert _pip_requirements("run `pip install engram` first") == ["engram"]
    assert _pip_requirements("pip install 'engram-grpc[mcp]'") == ["engram-grpc"]
    assert _pip_requirements("pip install '/path/to/engram[mcp]'") == []
    assert _pip_requirements("pip install -e '.[dev]' py-spy") == ["py-spy"]


NPM_PACKAGE = "engram-grpc"


def test_the_typescript_package_is_engram_grpc_and_builds_on_a_directory_install() -> None:
    import json

    package = json.loads((ROOT / "clients" / "typescript" / "package.json").read_text())
    assert package["name"] == NPM_PACKAGE
    # npm runs `prepare` on a directory install before the package's devDependencies
    # exist: it must be the script that installs them, not a bare `tsc`.
    assert package["scripts"]["prepare"] == "node scripts/build.mjs"
    example = json.loads((ROOT / "examples" / "typescript" / "package.json").read_text())
    assert example["dependencies"] == {NPM_PACKAGE: "file:../../clients/typescript"}


def test_no_text_names_an_npm_scope_that_is_not_ours() -> None:
    wrong = []
    for path in _texts():
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if "@engram/" in line:
                wrong.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not wrong, "the TypeScript package is engram-grpc:\n" + "\n".join(wrong)


def test_java_stubs_are_generated_by_the_maven_build_and_never_committed() -> None:
    import subprocess
    import xml.etree.ElementTree as ET

    java = ROOT / "clients" / "java"
    committed = subprocess.run(
        ["git", "ls-files", "--", "src/main/java/dev/engram/v1"],
        cwd=java,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert committed == ""
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    pom = ET.parse(java / "pom.xml").getroot()
    assert pom.findtext("m:groupId", namespaces=ns) == "io.github.engram-grpc"
    plugins = [p.findtext("m:artifactId", namespaces=ns) for p in pom.iter(f"{{{ns['m']}}}plugin")]
    assert "protobuf-maven-plugin" in plugins
    # The committed-stub generator and its check leave Java to Maven.
    assert "clients/java" not in (ROOT / "buf.gen.yaml").read_text()
    assert "mvn" not in (ROOT / "scripts" / "gen-protos").read_text()


def test_no_text_names_maven_coordinates_that_are_not_ours() -> None:
    wrong = []
    for path in _texts():
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if "<groupId>dev.engram</groupId>" in line or "dev.engram:engram-client" in line:
                wrong.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not wrong, "the Java client is io.github.engram-grpc:engram-client:\n" + "\n".join(wrong)


GO_MODULE = "github.com/engram-grpc/engram/clients/go"


def test_the_go_module_path_is_one_a_user_can_fetch() -> None:
    # engram.dev is another project's domain: `go get` would ask it, not us. The
    # module lives at this repository's path, where the module proxy finds it.
    go_mod = (ROOT / "clients" / "go" / "go.mod").read_text()
    assert go_mod.splitlines()[0] == f"module {GO_MODULE}"
    for proto in sorted((ROOT / "protos" / "engram" / "v1").glob("*.proto")):
        assert f'option go_package = "{GO_MODULE}/gen/engram/v1;engramv1";' in proto.read_text()
    wrong = []
    for path in _texts():
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if "engram.dev/" in line:
                wrong.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not wrong, f"the Go module is {GO_MODULE}:\n" + "\n".join(wrong)
