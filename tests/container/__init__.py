"""The container check: the project's Dockerfile built and its image run on this machine
(``python -m tests.container``; :mod:`tests.container.check`)."""
