# Strategium: the bot as a container. Build: docker build -t strategium .
# Everything comes from the Python image and PyPI (the locked versions); nothing else is fetched.
FROM python:3.11-slim AS build
WORKDIR /src
COPY requirements.lock pyproject.toml README.md ./
COPY rules ./rules
COPY storage ./storage
COPY bot ./bot
# The lock as constraints: only the runtime dependencies, at exactly the tested versions.
RUN python -m venv /opt/strategium \
    && /opt/strategium/bin/pip install --no-cache-dir --disable-pip-version-check \
        -c requirements.lock . \
    && /opt/strategium/bin/python -c "from bot.i18n import compile_catalogs; compile_catalogs()"

FROM python:3.11-slim
RUN useradd --system --uid 10001 --home-dir /data strategium \
    && mkdir -p /data && chown strategium /data
COPY --from=build /opt/strategium /opt/strategium
ENV PATH=/opt/strategium/bin:$PATH \
    DATABASE_PATH=/data/strategium.sqlite3 \
    PYTHONUNBUFFERED=1
USER strategium
VOLUME ["/data"]
HEALTHCHECK --interval=60s --timeout=10s --start-period=60s --retries=3 \
    CMD ["python", "-m", "bot.health"]
CMD ["python", "-m", "bot"]
