"""DVC stage `download@<dataset>`: see lingtest.pipeline.data.download_stage."""

from lingtest.pipeline.data import download_stage
from lingtest.pipeline.runner import main

if __name__ == "__main__":
    main("download", download_stage)
