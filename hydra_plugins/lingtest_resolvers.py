"""Loaded by Hydra's plugin discovery when DVC composes params.yaml (``dvc exp run -S ...``; DVC adds
the repository root, its default ``hydra.plugins_path``, to the plugin search path): registers the
OmegaConf resolvers that conf/ uses, so DVC's composition equals ``lingtest config compose``."""

from lingtest.config import register_resolvers

register_resolvers()
