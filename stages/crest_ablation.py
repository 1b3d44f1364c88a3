"""DVC entry point: CREST ablation (lingtest.pipeline.crest.ablation)."""

from lingtest.pipeline.crest import ablation
from lingtest.pipeline.runner import main

if __name__ == "__main__":
    main("crest_ablation", ablation)
