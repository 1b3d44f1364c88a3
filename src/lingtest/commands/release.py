"""``lingtest release SUITE --version X.Y.Z``, ``lingtest release verify DIR [--regenerate]``,
``lingtest release materialize DIR`` and ``lingtest release tag``.

SUITE is a technique (its suite for the configured corpus: ``adversarial``; for TIN, whose cases are made
per system, its sources), a suite name (``adversarial-ontogum``) or a suite file. The release goes to
``<release.dir>/<suite>/<version>/`` (see :mod:`lingtest.release.freeze`) and into the release index;
commit both, then ``lingtest release tag`` tags ``<suite>@v<version>``. ``--dvc`` tracks a release too
large for git with DVC instead; ``--push REPO_ID`` uploads it to the Hugging Face Hub (network).
Exit codes: 0 ok, 1 verification or materialisation failed, 2 bad input.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from lingtest.commands import bind_typer

if TYPE_CHECKING:
    import typer


def freeze_command(suite: str, version: str, *, name: str | None = None, out: Path | None = None,
                   overrides: list[str] | None = None, dvc: bool = False, tag: bool = False,
                   push: str | None = None) -> int:
    from lingtest.config import load_params
    from lingtest.errors import LingtestError
    from lingtest.paths import project_root
    from lingtest.release.freeze import freeze
    from lingtest.release.publish import dvc_track, git_tag, push_to_hub
    from lingtest.release.suites import resolve_release

    root = project_root()
    try:
        cfg = load_params(root / "params.yaml", overrides or [])
        target = resolve_release(suite, cfg, root, name=name)
        rel = freeze(target.suite, version, cfg, root, out, kind=target.kind, generator=target.generator)
        state = "released" if rel.created else "already released (same suite), nothing written:"
        what = {"sources": "sources", "recipe": "files"}.get(target.kind, "cases")
        print(f"{state} {rel.name} {rel.version}: {rel.records:,} {what}, text {rel.text} -> {rel.path}")
        print(f"  suite sha256 {rel.suite_sha256}")
        print(f'  datasets.load_dataset("{rel.path}", split="{cfg.release.split}")')
        in_repo = root.resolve() in rel.path.resolve().parents
        if dvc and in_repo:
            dvc_file = rel.path.with_name(rel.path.name + ".dvc")
            if rel.created or not dvc_file.exists():
                dvc_file = dvc_track(rel.path, root)
                print(f"  tracked by DVC: {dvc_file.relative_to(root)} (dvc push sends the data to the remote)")
            if tag:
                git_tag(rel.tag, dvc_file, root, f"lingtest release {rel.name} {rel.version}")
                print(f"  tagged {rel.tag}")
            else:
                ignore = dvc_file.parent / ".gitignore"  # DVC writes none when the repository already ignores it
                index = rel.path.parent.parent / "index.json"
                files = " ".join(p.relative_to(root).as_posix() for p in (dvc_file, ignore, index) if p.exists())
                print(f"  next: git add {files} && git commit -m 'release {rel.tag}' && lingtest release {suite} "
                      f"--version {rel.version} --dvc --tag")
        elif in_repo:
            folder = rel.path.relative_to(root).as_posix()
            listing = (rel.path.parent.parent / "index.json").relative_to(root).as_posix()
            print(f"  next: git add {folder} {listing} && git commit -m 'release {rel.tag}' && lingtest release tag")
        if push:
            print(f"  pushed: {push_to_hub(rel.path, push, tag=rel.tag)}")
    except LingtestError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def verify_command(directory: Path, *, regenerate: bool = False, keep: bool = False) -> int:
    from lingtest.errors import LingtestError
    from lingtest.paths import project_root
    from lingtest.release.verify import regenerate as regen
    from lingtest.release.verify import verify_checksums, verify_content

    try:
        report = verify_checksums(directory)
        for problem in report.problems:
            print(f"FAIL {problem}")
        print(f"checksums: {report.checked} files {'OK' if report.ok else 'FAILED'}")
        if not report.ok:
            return 1
        problems = verify_content(directory, project_root())
        for problem in problems:
            print(f"FAIL {problem}")
        print(f"content: {'OK' if not problems else 'FAILED'} (rows, suite sha256, release index in git)")
        if problems:
            return 1
        if regenerate:
            result = regen(directory, project_root(), keep=keep)
            verdict = "byte-identical" if result.identical else "DIFFERENT"
            print(f"regenerated with `dvc repro {result.stage}` at {result.commit[:12]}: {verdict} "
                  f"(release {result.expected_sha256[:16]}, regenerated {result.regenerated_sha256[:16]})")
            if result.workdir is not None:
                print(f"  kept {result.workdir}")
            if not result.identical:
                return 1
    except LingtestError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def materialize_command(directory: Path, *, source: Path | None = None, regenerate: bool = False) -> int:
    from lingtest.config import load_params
    from lingtest.errors import LingtestError
    from lingtest.paths import project_root
    from lingtest.release.materialize import materialize

    root = project_root()
    try:
        cfg = load_params(root / "params.yaml", []) if (root / "params.yaml").is_file() else None
        got = materialize(directory, candidates=source, root=root, cfg=cfg, regenerate=regenerate)
        if got.ok:
            print(f"materialised {got.matched:,}/{got.total:,} rows from {got.candidates} -> {got.path}")
            return 0
        print(f"{got.total - got.matched:,} of {got.total:,} rows have no matching line in {got.candidates} "
              f"(first: {', '.join(got.missing[:5])}); nothing written. The file is another version of the "
              "suite (another commit, config or CPU): try --regenerate", file=sys.stderr)
        return 1
    except LingtestError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def release_freeze(
    suite: Annotated[str, typer.Argument(help="technique, <technique>-<corpus>, or a suite file")],
    version: Annotated[str, typer.Option("--version", "-v", help="X.Y.Z")],
    name: Annotated[str | None, typer.Option(help="release name (default <technique>-<corpus>)")] = None,
    out: Annotated[Path | None, typer.Option(help="releases folder (default release.dir)")] = None,
    dvc: Annotated[bool, typer.Option("--dvc", help="track the release with `dvc add` (too large for git)")
                   ] = False,
    tag: Annotated[bool, typer.Option("--tag", help="with --dvc: git tag <suite>@v<version> (commit the .dvc "
                                      "file first)")] = False,
    push: Annotated[str | None, typer.Option("--push", metavar="REPO_ID", help="upload to the Hugging Face Hub")
                    ] = None,
    overrides: Annotated[list[str] | None, typer.Argument(help="key=value overrides of params.yaml")] = None,
) -> None:
    """Freeze a generated suite into releases/<suite>/<version>/ (Parquet, gzip JSONL where the licence
    allows, dataset card, checksums) and record it in releases/index.json."""
    typer = _load_typer()
    code = freeze_command(suite, version, name=name, out=out, overrides=overrides, dvc=dvc, tag=tag, push=push)
    if code:
        raise typer.Exit(code)


def release_verify(
    directory: Annotated[Path, typer.Argument(help="a release folder releases/<suite>/<version>")],
    regenerate: Annotated[bool, typer.Option("--regenerate", help="regenerate at the recorded commit and config "
                                             "(dvc repro in a temporary clone) and compare bytes")] = False,
    keep: Annotated[bool, typer.Option("--keep", help="keep the temporary clone")] = False,
) -> None:
    """Check a release's checksums and content (rows, suite sha256, the release index in git) and, with
    --regenerate, that its suite regenerates byte-identically."""
    typer = _load_typer()
    code = verify_command(directory, regenerate=regenerate, keep=keep)
    if code:
        raise typer.Exit(code)


def release_materialize(
    directory: Annotated[Path, typer.Argument(help="a release folder releases/<suite>/<version>")],
    source: Annotated[Path | None, typer.Option("--from", help="the file to take the text from (default: the "
                                                "pipeline's suite, or the prepared corpus for sources)")] = None,
    regenerate: Annotated[bool, typer.Option("--regenerate", help="regenerate the suite at the release's commit "
                                             "and take the text from it")] = False,
) -> None:
    """Fill in the text a release withholds (its corpus's licence) from your own copy, checked row by row."""
    typer = _load_typer()
    code = materialize_command(directory, source=source, regenerate=regenerate)
    if code:
        raise typer.Exit(code)


def release_tag() -> None:
    """Tag <suite>@v<version> on the commit that added each committed release no tag names yet."""
    from lingtest.config import load_params
    from lingtest.paths import project_root
    from lingtest.release.publish import tag_committed

    root = project_root()
    cfg = load_params(root / "params.yaml", [])
    made = tag_committed(root, root / str(cfg.release.dir))
    print("\n".join(f"tagged {t}" for t in made) or "every committed release is tagged")


def _load_typer() -> Any:
    return bind_typer(globals())


def register(app: typer.Typer) -> None:
    """Add the ``release`` group (``SUITE --version`` freezes; ``verify DIR`` checks) to ``lingtest``."""
    typer = _load_typer()
    from typer.core import TyperGroup

    class FreezeByDefault(TyperGroup):
        """``lingtest release SUITE ...`` means ``lingtest release freeze SUITE ...``."""

        def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
            if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
                args = ["freeze", *args]
            return list(super().parse_args(ctx, args))

    release_app = typer.Typer(cls=FreezeByDefault, no_args_is_help=True,
                              help="Freeze a suite (lingtest release SUITE --version X.Y.Z) or verify a release.")
    release_app.command("freeze")(release_freeze)
    release_app.command("verify")(release_verify)
    release_app.command("materialize")(release_materialize)
    release_app.command("tag")(release_tag)
    app.add_typer(release_app, name="release")
