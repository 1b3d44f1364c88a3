"""DVC stage `adversarial_score`: see lingtest.pipeline.adversarial.score."""

from lingtest.pipeline.adversarial import score
from lingtest.pipeline.runner import main

if __name__ == "__main__":
    main("adversarial_score", score)
