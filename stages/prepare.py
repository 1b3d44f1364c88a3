"""DVC stage `prepare@<dataset>`: see lingtest.pipeline.data.prepare_stage."""

from lingtest.pipeline.data import prepare_stage
from lingtest.pipeline.runner import main

if __name__ == "__main__":
    main("prepare", prepare_stage)
