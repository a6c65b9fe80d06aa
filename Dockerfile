# Strategium: the bot as a container. Build: docker build -t strategium .  (docs/deploy.md)
# Everything comes from the Python image and PyPI (the locked versions); nothing else is fetched.
# `python -m tests.container` builds and runs this image in CI (docs/deploy.md, «Checked here»).
FROM python:3.11-slim AS build
WORKDIR /src
# The dependencies first, in a layer that changes only with the lock: the runtime ones of
# pyproject.toml, at exactly the tested versions (the lock as constraints).
COPY requirements.lock pyproject.toml ./
RUN python -m venv /opt/strategium \
    && python -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies'], sep='\n')" \
        > runtime.txt \
    && /opt/strategium/bin/pip install --no-cache-dir --disable-pip-version-check \
        -c requirements.lock -r runtime.txt
# The package: its build compiles the catalogs into it (setup.py), so the bot never writes into
# its own site-packages. Then pip and setuptools leave: nothing of the build stays in the image.
COPY setup.py README.md ./
COPY rules ./rules
COPY storage ./storage
COPY bot ./bot
RUN /opt/strategium/bin/pip install --no-cache-dir --disable-pip-version-check --no-deps . \
    && /opt/strategium/bin/pip uninstall --yes --disable-pip-version-check pip setuptools

FROM python:3.11-slim
RUN useradd --system --uid 10001 --home-dir /data strategium \
    && mkdir -p /data && chown strategium /data
COPY --from=build /opt/strategium /opt/strategium
# PYTHONSAFEPATH: the working directory (the data volume) never shadows an installed module.
ENV PATH=/opt/strategium/bin:$PATH \
    DATABASE_PATH=/data/strategium.sqlite3 \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONSAFEPATH=1
USER strategium
WORKDIR /data
VOLUME ["/data"]
# The bot stops cleanly on SIGTERM (docker stop), within a second or two.
HEALTHCHECK --interval=60s --timeout=10s --start-period=60s --retries=3 \
    CMD ["python", "-m", "bot.runtime.health"]
CMD ["python", "-m", "bot"]
