"""Stage bodies of the DVC pipeline. Each is ``run(cfg, tracker[, item])``; ``stages/`` holds thin
entry points that call :func:`lingtest.pipeline.runner.main`."""
