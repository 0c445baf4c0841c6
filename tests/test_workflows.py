"""The GitHub Actions workflows stay as the security review left them (issue 14 point 8).

Read from the YAML files, no network: every `uses:` names a full 40-hex commit SHA with the
release it stands for in a trailing comment, every checkout sets `persist-credentials: false`,
the workflow-level token has no scopes (`permissions: {}`) and every job states its own, and
no `run:` script expands `${{ }}` (values reach scripts through `env:`). The zizmor audit in
.ci/run covers the same ground and more; these tests say what broke without installing it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

WORKFLOWS = Path(__file__).resolve().parent.parent / ".github" / "workflows"
FILES = sorted(WORKFLOWS.glob("*.yml")) + sorted(WORKFLOWS.glob("*.yaml"))
IDS = [p.name for p in FILES]

# `uses: owner/repo[/path]@<40 hex> # vX[.Y[.Z]]`
PINNED = re.compile(r"^\s*(?:-\s+)?uses:\s*[\w.-]+/[\w./-]+@[0-9a-f]{40}\s+#\s+v\d+(?:\.\d+)*\s*$")


def _load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _steps(workflow: dict):
    for job_id, job in (workflow.get("jobs") or {}).items():
        for step in job.get("steps") or []:
            yield job_id, step


def test_there_are_workflows():
    assert FILES, f"no workflow files under {WORKFLOWS}"


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_every_action_is_pinned_to_a_commit_with_its_version(path: Path):
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines()
             if re.match(r"^\s*(?:-\s+)?uses:", ln)]
    bad = [ln.strip() for ln in lines
           if not ln.split("uses:", 1)[1].strip().startswith("./") and not PINNED.match(ln)]
    assert not bad, f"{path.name}: not pinned to a full SHA with a `# vX.Y.Z` comment: {bad}"
    # the YAML agrees with the line scan (no `uses:` hidden in a flow mapping)
    for _, step in _steps(_load(path)):
        if "uses" in step and not step["uses"].startswith("./"):
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", step["uses"]), step["uses"]


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_every_checkout_drops_its_credentials(path: Path):
    for job_id, step in _steps(_load(path)):
        if str(step.get("uses", "")).startswith("actions/checkout@"):
            assert (step.get("with") or {}).get("persist-credentials") is False, \
                f"{path.name}: job {job_id}: checkout without persist-credentials: false"


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_least_permissions(path: Path):
    workflow = _load(path)
    assert workflow.get("permissions") == {}, \
        f"{path.name}: the workflow-level token must have no scopes (`permissions: {{}}`)"
    for job_id, job in workflow["jobs"].items():
        perms = job.get("permissions")
        assert isinstance(perms, dict), f"{path.name}: job {job_id} states no permissions"
        assert all(v in ("read", "write", "none") for v in perms.values()), (job_id, perms)


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_no_expression_inside_a_run_script(path: Path):
    for job_id, step in _steps(_load(path)):
        if "run" in step:
            assert "${{" not in step["run"], \
                f"{path.name}: job {job_id}: pass `${{{{ }}}}` values through env:, not inside run:"
