"""The real `rewind mcp` as a test peer, driven by the MCP SDK's own stdio client.

`McpSession` starts the installed `rewind` (the console script beside this Python) with
`mcp --client NAME` as a subprocess through the SDK's `stdio_client`, opens a
`ClientSession` (the initialize handshake), and serves synchronous calls from the tests
on an event loop of its own thread: one task opens, uses and closes the session (the
SDK's task groups must be left by the task that entered them).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult, Implementation

REWIND = Path(sys.executable).parent / "rewind"
PASSED_ENV = ("REWIND_KEY_DIR", "REWIND_KEYRING", "OPENBLAS_NUM_THREADS")


def server_env(model_dir: Path, **extra: str) -> dict[str, str]:
    """What the server needs beyond the SDK's default environment (HOME, PATH...)."""
    env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
    return {**env, "REWIND_MODEL_DIR": str(model_dir), **extra}


class McpSession:
    def __init__(self, data_dir: Path, model_dir: Path, client: str | None = "claude-desktop",
                 errlog: Path | None = None, timeout: float = 120.0,
                 reported_name: str = "rewind-tests") -> None:
        args = ["--data-dir", str(data_dir), "mcp"] + (["--client", client] if client else [])
        self.params = StdioServerParameters(command=str(REWIND), args=args,
                                            env=server_env(model_dir))
        self.reported_name = reported_name
        self.timeout = timeout
        self.errlog = open(errlog or os.devnull, "w")  # noqa: SIM115 - closed in close()
        self._loop = asyncio.new_event_loop()
        self._queue: asyncio.Queue | None = None
        self._started = concurrent.futures.Future()
        self.started_at = time.perf_counter()
        self._thread = threading.Thread(target=self._loop.run_until_complete,
                                        args=(self._main(),), daemon=True)
        self._thread.start()
        self.init_s = self._started.result(timeout)  # the handshake done (or its error)

    async def _main(self) -> None:
        self._queue = asyncio.Queue()
        try:
            async with stdio_client(self.params, errlog=self.errlog) as (r, w), \
                    ClientSession(r, w, client_info=Implementation(
                        name=self.reported_name, version="1")) as session:
                await session.initialize()
                self._started.set_result(time.perf_counter() - self.started_at)
                while True:
                    item = await self._queue.get()
                    if item is None:
                        return
                    job, fut = item
                    try:
                        fut.set_result(await job(session))
                    except BaseException as exc:  # noqa: BLE001 - handed to the caller
                        fut.set_exception(exc)
        except BaseException as exc:  # noqa: BLE001
            if not self._started.done():
                self._started.set_exception(exc)
            raise

    def _run(self, job) -> Any:
        fut: concurrent.futures.Future = concurrent.futures.Future()
        self._loop.call_soon_threadsafe(self._queue.put_nowait, (job, fut))
        return fut.result(self.timeout)

    def list_tools(self):
        return self._run(lambda s: s.list_tools()).tools

    def call(self, name: str, **arguments: Any) -> CallToolResult:
        return self._run(lambda s: s.call_tool(name, arguments))

    def text(self, result: CallToolResult) -> str:
        return "\n".join(c.text for c in result.content if c.type == "text")

    def close(self) -> None:
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._queue.put_nowait, None)
            self._thread.join(30)
        self.errlog.close()

    def __enter__(self) -> McpSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
