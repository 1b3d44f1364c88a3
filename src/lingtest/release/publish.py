"""After freezing: tag it in git, or (for a release too large for git) track it with DVC, push it to
the Hugging Face Hub.

* Releases are committed to git with the release index (``git add releases/<suite>/<version>
  releases/index.json``); :func:`tag_committed` then makes the annotated tag ``<suite>@v<version>`` on
  the commit that added each release, for every release the index lists and no tag names yet (an
  existing tag is never moved).
* :func:`dvc_track` runs ``dvc add <release>`` instead, for a release too large for git: the data go to
  the DVC cache (``dvc push`` sends them to the remote), git gets the small ``<version>.dvc`` file.
* :func:`git_tag` tags HEAD once it holds a DVC-tracked release's ``.dvc`` file as it is on disk.
* :func:`push_to_hub` uploads the release folder as a dataset repository (needs a network and a token).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lingtest.errors import LingtestError


def _git(args: list[str], cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise LingtestError(f"git {' '.join(args)} failed: {proc.stderr.strip()}")
    return proc


def dvc_track(release_dir: Path, root: Path) -> Path:
    """``dvc add`` the release folder; returns its ``.dvc`` file."""
    rel = release_dir.resolve().relative_to(root.resolve()).as_posix()
    proc = subprocess.run([sys.executable, "-m", "dvc", "add", "--quiet", rel], cwd=root, capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise LingtestError(f"dvc add {rel} failed: {(proc.stdout + proc.stderr).strip()[-2000:]}")
    return release_dir.with_name(release_dir.name + ".dvc")


def git_tag(tag: str, dvc_file: Path, root: Path, message: str) -> None:
    rel = dvc_file.resolve().relative_to(root.resolve()).as_posix()
    committed = _git(["show", f"HEAD:{rel}"], root, check=False)
    if committed.returncode != 0 or committed.stdout != dvc_file.read_text(encoding="utf-8"):
        raise LingtestError(f"commit {rel} (and the .gitignore beside it) before tagging {tag}: "
                            f"git add {rel} {Path(rel).parent.as_posix()}/.gitignore && git commit")
    if _git(["rev-parse", "-q", "--verify", f"refs/tags/{tag}"], root, check=False).returncode == 0:
        raise LingtestError(f"tag {tag} exists; a released version is never moved")
    _git(["tag", "-a", tag, "-m", message], root)


def push_to_hub(release_dir: Path, repo_id: str, *, tag: str, private: bool = False) -> str:
    """Upload the release folder to the dataset repository ``repo_id`` and tag that commit; returns its URL."""
    from huggingface_hub import HfApi

    api = HfApi()
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    info = api.upload_folder(repo_id=repo_id, repo_type="dataset", folder_path=str(release_dir),
                             commit_message=f"lingtest release {tag}")
    api.create_tag(repo_id, repo_type="dataset", tag=tag.replace("@", "-"), revision=info.oid)
    return str(info.commit_url)


def tag_committed(root: Path, release_root: Path) -> list[str]:
    """Tag ``<suite>@v<version>`` on the commit that added each release of the index that no tag names
    yet; returns the tags made. A release not committed yet is left for a later call."""
    from lingtest.release.index import git_tags, read_index

    have = git_tags(root)
    made = []
    for name, versions in read_index(release_root).items():
        for version, entry in versions.items():
            tag = str(entry.get("tag") or f"{name}@v{version}")
            if "withdrawn" in entry or tag in have:
                continue
            folder = (release_root / name / version).resolve().relative_to(root.resolve()).as_posix()
            log = _git(["log", "--diff-filter=A", "--format=%H", "--", f"{folder}/provenance.json"], root, check=False)
            commits = log.stdout.split()
            if not commits:
                continue
            _git(["tag", "-a", tag, commits[-1], "-m", f"lingtest release {name} {version}"], root)
            made.append(tag)
    return made
