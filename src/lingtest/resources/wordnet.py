"""WordNet 3.0 for NLTK, installable offline from Debian's packages.

NLTK normally downloads WordNet from GitHub (``nltk.download("wordnet")``). Offline, the same
WordNet 3.0 database files ship in Debian's ``wordnet-base`` (``data.*``, ``index.*``, ``*.exc``,
...) and ``wordnet-sense-index`` (``index.sense``, ``cntlist``, ``frames.vrb``) packages under
``/usr/share/wordnet``. The one file NLTK needs that Debian lacks is ``lexnames`` (the 45 lexicographer
file names), which lingtest ships as ``wordnet_lexnames.txt``. :func:`install_wordnet` lays these out
as ``<nltk_data>/corpora/wordnet/``, the directory NLTK's own download produces.

:func:`ensure_wordnet` constructs a :class:`~nltk.corpus.reader.WordNetCorpusReader` on that directory
explicitly, so callers do not depend on ``nltk.data.path``.

Caveat: Debian patched some glosses in ``data.adj`` and ``data.verb``, so about half of the adjective
and verb synsets sit at different byte offsets than in Princeton's release (``love.v.01``: 01775182
here, 01775164 in NLTK's download); nouns and adverbs are identical. Synset names
(``love.v.01``), lemmas, sense keys and relations are unaffected; only resources keyed by raw WN 3.0
offsets need re-keying (:mod:`lingtest.resources.sentiwordnet` does this itself).

Command line (used by the setup script)::

    python -m lingtest.resources.wordnet install [--data-dir DIR] [--source debian|nltk]
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import sys
import tempfile
import warnings
import weakref
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from lingtest.errors import MissingResourceError
from lingtest.paths import nltk_data_dir

if TYPE_CHECKING:  # pragma: no cover
    from nltk.corpus.reader import WordNetCorpusReader

DEBIAN_WORDNET_DIR = Path("/usr/share/wordnet")
APT_HINT = "apt-get install wordnet-base wordnet-sense-index"

# files of the Debian packages that make up NLTK's wordnet corpus directory
BASE_FILES: tuple[str, ...] = (
    "adj.exc", "adv.exc", "noun.exc", "verb.exc",
    "data.adj", "data.adv", "data.noun", "data.verb",
    "index.adj", "index.adv", "index.noun", "index.verb",
    "cntlist.rev", "sentidx.vrb", "sents.vrb",
)
SENSE_INDEX_FILES: tuple[str, ...] = ("index.sense", "cntlist", "frames.vrb")

Source = Literal["debian", "nltk"]


def wordnet_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """``<data_dir>/corpora/wordnet`` (``data_dir`` defaults to :func:`lingtest.paths.nltk_data_dir`)."""
    return Path(data_dir if data_dir is not None else nltk_data_dir()).expanduser() / "corpora" / "wordnet"


def lexnames_path() -> Path:
    """The ``lexnames`` file shipped with lingtest."""
    return Path(str(files("lingtest.resources").joinpath("wordnet_lexnames.txt")))


def _copy_atomic(src: Path, dest: Path) -> None:
    """Copy ``src`` to ``dest`` unless an identical-size copy is there; via a temporary file."""
    if dest.is_file() and dest.stat().st_size == src.stat().st_size:
        return
    fd, tmp = tempfile.mkstemp(prefix=dest.name + ".", suffix=".tmp", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as out, src.open("rb") as inp:
            shutil.copyfileobj(inp, out, 1 << 20)
        os.chmod(tmp, 0o644)  # mkstemp files are private; corpus files are meant to be shared
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def nltk_download(package: str, root: Path) -> None:
    """``nltk.download(package)`` into the data directory ``root`` (needs the network)."""
    import nltk

    root.mkdir(parents=True, exist_ok=True)
    if not nltk.download(package, download_dir=str(root), quiet=True, raise_on_error=True):
        raise MissingResourceError(f"nltk.download({package!r}) into {root} failed (network needed)")


def install_wordnet(data_dir: str | os.PathLike[str] | None = None, source: Source = "debian", *,
                    debian_dir: str | os.PathLike[str] = DEBIAN_WORDNET_DIR) -> Path:
    """Install WordNet 3.0 for NLTK under ``data_dir`` and return the ``corpora/wordnet`` directory.

    ``source="debian"`` (offline): copies the Debian package files from ``debian_dir`` plus
    lingtest's ``lexnames``; raises :class:`MissingResourceError` naming the apt packages when the
    Debian files are absent. ``source="nltk"`` (network): ``nltk.download("wordnet")`` into
    ``data_dir`` (NLTK stores a ``wordnet.zip`` and unpacks it). Idempotent: files already present
    with the right size are left alone.
    """
    root = Path(data_dir if data_dir is not None else nltk_data_dir()).expanduser()
    target = wordnet_dir(root)
    if source == "nltk":
        nltk_download("wordnet", root)
        return target
    if source != "debian":
        raise ValueError(f"source must be 'debian' or 'nltk', got {source!r}")

    deb = Path(debian_dir)
    missing_base = [n for n in BASE_FILES if not (deb / n).is_file()]
    missing_sense = [n for n in SENSE_INDEX_FILES if not (deb / n).is_file()]
    if missing_base or missing_sense:
        pkgs = (["wordnet-base"] if missing_base else []) + (["wordnet-sense-index"] if missing_sense else [])
        raise MissingResourceError(
            f"WordNet files missing from {deb}: {', '.join(missing_base + missing_sense)} "
            f"(Debian package(s) {', '.join(pkgs)}); install them with `{APT_HINT}`, "
            "or install online with `python -m lingtest.resources.wordnet install --source nltk`"
        )
    target.mkdir(parents=True, exist_ok=True)
    for name in BASE_FILES + SENSE_INDEX_FILES:
        _copy_atomic(deb / name, target / name)
    _copy_atomic(lexnames_path(), target / "lexnames")
    return target


def authorize_nltk_root(root: str | os.PathLike[str]) -> None:
    """Let NLTK read files under ``root``.

    NLTK >= 3.9.3 refuses to open files outside ``nltk.data.path``/``$NLTK_DATA`` (its ``pathsec``
    sandbox), even for a reader constructed on an explicit directory. This appends ``root`` to
    ``nltk.data.path`` once; it is the only global state lingtest touches.
    """
    import nltk

    text = str(Path(root).expanduser().resolve())
    if text not in nltk.data.path:
        nltk.data.path.append(text)


def _find_corpus(root: Path, name: str):
    """NLTK path pointer for ``corpora/<name>`` (directory or ``.zip``) under ``root`` only."""
    import nltk

    authorize_nltk_root(root)
    try:
        return nltk.data.find(f"corpora/{name}", paths=[str(root)])
    except LookupError:
        return None


def load_wordnet(data_dir: str | os.PathLike[str] | None = None) -> WordNetCorpusReader:
    """A WordNet reader on ``<data_dir>/corpora/wordnet`` (or ``wordnet.zip``); no installing.

    Raises :class:`MissingResourceError` when it is not installed there."""
    from nltk.corpus.reader import WordNetCorpusReader

    root = Path(data_dir if data_dir is not None else nltk_data_dir()).expanduser()
    pointer = _find_corpus(root, "wordnet")
    if pointer is None:
        raise MissingResourceError(
            f"WordNet is not installed under {root}; run `python -m lingtest.resources.wordnet install "
            f"--data-dir {root}` (needs `{APT_HINT}`) or `... --source nltk` online"
        )
    with warnings.catch_warnings():  # "multilingual functions are not available": expected, no OMW
        warnings.simplefilter("ignore", UserWarning)
        reader = WordNetCorpusReader(pointer, None)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=functools.partial(_own_data_files, weakref.ref(reader)))
    return reader


def _own_data_files(ref: weakref.ReferenceType[WordNetCorpusReader]) -> None:
    """In a forked child: forget the reader's open ``data.*`` files, so that the child opens its own.
    Inherited file objects share their read position with the parent's, and the two processes seeking
    and reading them at once read each other's records."""
    reader = ref()
    if reader is not None:
        reader._data_file_map = {}


_READERS: dict[Path, WordNetCorpusReader] = {}


def ensure_wordnet(data_dir: str | os.PathLike[str] | None = None, *, install: bool = True,
                   source: Source = "debian") -> WordNetCorpusReader:
    """A working WordNet reader for ``data_dir``, installing it first when absent and ``install``.

    Readers are cached per directory (building one reads the index files, ~1-2 s)."""
    root = Path(data_dir if data_dir is not None else nltk_data_dir()).expanduser().resolve()
    if root in _READERS:
        return _READERS[root]
    if install and _find_corpus(root, "wordnet") is None:
        install_wordnet(root, source=source)
    wn = load_wordnet(root)
    _READERS[root] = wn
    return wn


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lingtest.resources.wordnet",
                                     description="Install WordNet 3.0 for NLTK.")
    sub = parser.add_subparsers(dest="cmd", required=True)
    inst = sub.add_parser("install", help="install WordNet (offline from Debian files by default)")
    inst.add_argument("--data-dir", default=None, help=f"NLTK data directory (default {nltk_data_dir()})")
    inst.add_argument("--source", default="debian", choices=("debian", "nltk"))
    inst.add_argument("--debian-dir", default=str(DEBIAN_WORDNET_DIR))
    args = parser.parse_args(argv)
    try:
        target = install_wordnet(args.data_dir, source=args.source, debian_dir=args.debian_dir)
        wn = ensure_wordnet(args.data_dir, install=False)
    except MissingResourceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    n = sum(1 for _ in wn.all_lemma_names("v"))
    print(f"WordNet {wn.get_version()} installed at {target} ({n} verb lemmas; dog.n.01: "
          f"{wn.synset('dog.n.01').definition()!r})")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
